"""The Pi as the health checks read it: its files under a ``root`` (``/`` on a Pi, a folder
holding a fake ``/proc``, ``/sys``, ``/boot/firmware`` and ``/etc`` in the tests).

>>> boot = BootConfig.parse("[all]\\ndtparam=spi=on,i2c_arm=on\\ndtoverlay=spi0-0cs\\n")
>>> boot.on("spi"), boot.on("i2c_arm"), sorted(boot.overlays)
(True, True, ['spi0-0cs'])
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from settings.board import Board, board_of


@dataclass
class Machine:
    """The Pi as the checks see it; ``root`` is where ``/proc``, ``/sys``, ``/boot``, ``/etc`` live."""

    root: Path = Path("/")

    def path(self, absolute: str) -> Path:
        return self.root / absolute.lstrip("/")

    def read(self, absolute: str) -> str | None:
        try:
            return self.path(absolute).read_text(errors="replace")
        except OSError:
            return None

    def config_txt(self) -> tuple[str, BootConfig]:
        for name in ("/boot/firmware/config.txt", "/boot/config.txt"):
            text = self.read(name)
            if text is not None:
                return name, BootConfig.parse(text)
        return "/boot/firmware/config.txt", BootConfig.parse("")

    def model(self) -> str:
        for name in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
            text = self.read(name)
            if text:
                return text.replace("\x00", "").strip()
        return ""

    @property
    def is_pi5(self) -> bool:
        return self.board().kind == "pi5"

    def board(self) -> Board:
        return board_of(self.model())

    def cmdline(self) -> str:
        return self.read("/proc/cmdline") or ""

    def groups_of(self, user: str) -> set[str] | None:
        """The groups ``user`` is in (from /etc/group and its primary group); None: no such user."""
        passwd = self.read("/etc/passwd") or ""
        group = self.read("/etc/group") or ""
        primary = None
        for line in passwd.splitlines():
            parts = line.split(":")
            if len(parts) > 3 and parts[0] == user:
                primary = parts[3]
        if primary is None:
            return None
        found = set()
        for line in group.splitlines():
            parts = line.split(":")
            if len(parts) < 4:
                continue
            if parts[2] == primary or user in parts[3].split(","):
                found.add(parts[0])
        return found


@dataclass
class BootConfig:
    """The lines of config.txt that matter here (every ``[section]`` filter taken as applying)."""

    params: dict[str, str] = field(default_factory=dict)
    overlays: set[str] = field(default_factory=set)
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> BootConfig:
        cfg = cls()
        for raw in text.splitlines():
            line = raw.split("#", 1)[0].strip()
            if not line or line.startswith("[") or "=" not in line:
                continue
            key, value = (s.strip() for s in line.split("=", 1))
            if key == "dtparam":
                for item in value.split(","):
                    name, _, setting = item.partition("=")
                    cfg.params[name.strip()] = setting.strip() or "on"
            elif key == "dtoverlay":
                cfg.overlays.add(value.split(",", 1)[0].strip())
            else:
                cfg.settings[key] = value
        return cfg

    def on(self, param: str) -> bool:
        return self.params.get(param, "off") in ("on", "1", "true", "yes")
