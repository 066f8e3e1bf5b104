"""A fake Raspberry Pi for doctor's tests: its /proc, /boot/firmware, /dev and /etc as a folder
(tests/companion/cli/test_doctor*.py; the boards' facts are Raspberry Pi's documentation's)."""

from __future__ import annotations

from pathlib import Path

from settings.machine import Machine

PI5 = "Raspberry Pi 5 Model B Rev 1.0\x00"
PI4 = "Raspberry Pi 4 Model B Rev 1.5\x00"
GOOD_BOOT = "[all]\ndtparam=spi=on\ndtparam=i2c_arm=on\ndtoverlay=spi0-0cs\ndtparam=uart0=on\n"
GOOD_CMDLINE = "console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 fsck.repair=yes rootwait\n"


def fake_pi(
    root: Path,
    *,
    model: str = PI5,
    boot: str = GOOD_BOOT,
    cmdline: str = GOOD_CMDLINE,
    groups: str = "dialout,gpio,spi,i2c",
) -> Machine:
    (root / "proc" / "device-tree").mkdir(parents=True)
    (root / "proc" / "device-tree" / "model").write_text(model)
    (root / "proc" / "cmdline").write_text(cmdline)
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text(boot)
    (root / "dev").mkdir()
    for dev in ("spidev0.0", "spidev0.1", "i2c-1"):
        (root / "dev" / dev).write_text("")
    (root / "etc").mkdir()
    (root / "etc" / "passwd").write_text(
        "root:x:0:0::/root:/bin/sh\nrhuna:x:990:990::/var/lib/rhuna-table:/usr/sbin/nologin\n"
    )
    lines = ["root:x:0:", "rhuna:x:990:"]
    for i, name in enumerate(("dialout", "gpio", "spi", "i2c")):
        members = "rhuna" if name in groups.split(",") else ""
        lines.append(f"{name}:x:{20 + i}:{members}")
    (root / "etc" / "group").write_text("\n".join(lines) + "\n")
    return Machine(root)
