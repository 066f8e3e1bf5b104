"""Which Raspberry Pi this is, and which device its header UART (GPIO14/15, pins 8/10) is.

From the Raspberry Pi documentation, "Configure UARTs" (raspberrypi/documentation,
``computers/configuration/uart.adoc``):

* Pi 3, Pi 4/400, Zero W and Zero 2 W have Bluetooth on the PL011 (``/dev/ttyAMA0``),
  and the *mini UART* (``/dev/ttyS0``) is the primary UART on the header, off until
  ``enable_uart=1``; ``dtoverlay=disable-bt`` (or ``miniuart-bt``) puts the PL011 back
  on the header as ``/dev/ttyAMA0`` (then ``sudo systemctl disable hciuart``).
* Pi 1, Pi 2 and the Zero have no Bluetooth: the header UART is ``/dev/ttyAMA0``.
* Pi 5: ``/dev/serial0`` is ``ttyAMA10``, the three-pin debug connector between the
  HDMI sockets; the header UART is UART0, ``/dev/ttyAMA0``, on with ``dtparam=uart0=on``
  (or ``dtoverlay=uart0-pi5``). A ``console=serial0`` there is the debug connector's and
  does not touch the header.

>>> b = board_of("Raspberry Pi 4 Model B Rev 1.5")
>>> b.kind, header_uart(b, set())
('bluetooth', '/dev/ttyS0')
>>> header_uart(b, {"disable-bt"}), header_uart(board_of("Raspberry Pi 5 Model B Rev 1.0"), set())
('/dev/ttyAMA0', '/dev/ttyAMA0')
"""

from __future__ import annotations

from dataclasses import dataclass

#: the overlays that give the header the PL011 back (Bluetooth off, or on the mini UART)
PL011_ON_HEADER = {"disable-bt", "pi3-disable-bt", "miniuart-bt", "pi3-miniuart-bt"}
_BLUETOOTH = ("Pi 3", "Pi 4", "Pi 400", "Zero W", "Zero 2 W", "Compute Module 4")
_PI5 = ("Pi 5", "Pi 500", "Compute Module 5")


@dataclass(frozen=True, slots=True)
class Board:
    """``model`` as the device tree says it ("" off a Pi); ``kind``: pi5, bluetooth, plain, none."""

    model: str
    kind: str

    @property
    def is_pi(self) -> bool:
        return self.kind != "none"

    @property
    def short(self) -> str:
        """``Pi 4``, ``Zero 2 W``, ``Pi 5`` — how the fixes name it."""
        name = self.model.removeprefix("Raspberry ").split(" Rev")[0]
        return name.replace(" Model B", "").replace(" Model A", " A") or "this board"


def board_of(model: str) -> Board:
    model = model.replace("\x00", "").strip()
    if "Raspberry Pi" not in model:
        return Board(model, "none")
    if any(f"Raspberry {p}" in model or f"Raspberry Pi {p}" in model for p in _PI5):
        return Board(model, "pi5")
    if any(f"Raspberry {p}" in model or f"Raspberry Pi {p}" in model for p in _BLUETOOTH):
        return Board(model, "bluetooth")
    return Board(model, "plain")


def header_uart(board: Board, overlays: set[str]) -> str:
    """The device on GPIO14/15 with these overlays."""
    if board.kind == "bluetooth" and not overlays & PL011_ON_HEADER:
        return "/dev/ttyS0"
    return "/dev/ttyAMA0"


def resolve(port: str, board: Board, overlays: set[str]) -> str:
    """``/dev/serial0`` / ``serial1`` as the board links them; other names as they are."""
    header = header_uart(board, overlays)
    if port == "/dev/serial0":
        return "/dev/ttyAMA10" if board.kind == "pi5" else header
    if port == "/dev/serial1" and board.kind == "bluetooth":
        return "/dev/ttyAMA0" if header == "/dev/ttyS0" else "/dev/ttyS0"
    return port


def console_devices(cmdline: str, board: Board, overlays: set[str]) -> list[tuple[str, str]]:
    """The serial consoles on the kernel command line: (as written, the device it is)."""
    found = []
    for word in cmdline.split():
        if not word.startswith("console="):
            continue
        name = word.removeprefix("console=").split(",")[0]
        if name.startswith(("serial", "ttyS", "ttyAMA")):
            found.append((word, resolve(f"/dev/{name}", board, overlays)))
    return found
