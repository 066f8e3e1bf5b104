"""``make pi-rehearsal``: the Pi's path, rehearsed on an arm64 Debian userland (issue 44).

This is Debian on an emulated CPU (qemu-user), not a Pi: its timings are not the Pi's
(``benchmarks/pi_budget.py`` stays the CPU model), and Raspberry Pi OS's own packages are not
there. What it does, as root:

0. its own tools: what is missing of ``mmdebstrap``, ``qemu-user-static``, ``binfmt-support``
   (and ``proot`` when binfmt_misc cannot be used) is installed with ``apt-get update`` and
   ``apt-get install``; a binfmt_misc that cannot be mounted or registered is said, with the
   fix, and without it no arm64 system can be built;
1. the system: Debian's ``mmdebstrap`` builds an arm64 ``SUITE`` (bookworm, trixie) from
   Debian's archive once, cached outside the checkout in ``/var/cache/rhuna-pi-rehearsal/SUITE``;
   each run works on a fresh copy of it. The arm64 programs run through binfmt_misc's
   ``qemu-aarch64`` (qemu-user-static, ``update-binfmts --enable qemu-aarch64``) under a plain
   ``chroot``; where binfmt_misc cannot be registered, through ``proot -q qemu-aarch64-static``.
2. a normal user ``pi`` (its home, sudo without a password, as Raspberry Pi OS's first user),
   ``make dist``'s archive in that home, as the guide's ``scp`` leaves it;
3. docs/hardware.md's blocks marked ``# on the Pi``, in order, each command as written (a
   ``cd`` and a ``VAR=value`` carry to the next commands, as in one shell), as ``pi``, against
   the hub emulator on a pty whose by-id link is the guide's own example name; a table of each
   command, its exit status and first line; the first surprise (an exit status not 0) stops it.

Stand-ins, said in the table: ``systemctl`` (no systemd runs in a chroot) is a script that
runs the unit's ExecStart as its User= in the background (start), sends SIGTERM and waits
(stop), and prints the service's log and whether it runs (status); the config's edits the guide
asks for after the install (the hub's port, ``[gpio] pin_factory``: Debian has no
python3-lgpio) are in /etc/rhuna-table/rhuna.toml before install.sh runs (it keeps an existing
config); the hand that lays each token when ``enroll`` asks for it is this script; the
WorldKeeper's part before the first draw (a Performance begun, Aria declared: the wheel and
the GM page cannot be reached from here) is ``rhuna-table run --commands FILE
--keep-running`` as the unit's user, the service stopped meanwhile, then one of Aria's tokens
on a Draw Board well until ``history --json`` has its ``draw`` from the reader; the
mpremote lines need a MicroPython board, which the hub emulator is not: they run ``mpremote
--version`` instead (the tool runs on arm64; the board's side is not covered).

    python -m scripts.pi_rehearsal --suite bookworm [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("RHUNA_PI_CACHE", "/var/cache/rhuna-pi-rehearsal"))
GUIDE = ROOT / "docs" / "hardware.md"
PI_MARK = re.compile(r"^\s*#.*\bon the Pi\b", re.IGNORECASE)
IN_FOLDER = re.compile(r"\bin (~/\S+)")
#: the by-id name the guide's HUB= line writes (the emulator's link has it: nothing substituted)
HUB_NAME = "usb-MicroPython_Board_in_FS_mode_e6614c311b7e6f35-if00"
USER = "pi"
#: what Raspberry Pi OS has beside the minimal system mmdebstrap builds: passwd's useradd
#: (the Imager's first user; trixie's minimal system has no useradd, bookworm's had)
PACKAGES = "ca-certificates,git,sudo,python3,procps,iproute2,util-linux,passwd"


@dataclass(frozen=True)
class Step:
    """One command of a Pi block: where it is written, the folder it runs in, the text."""

    line: int
    cwd: str
    text: str


def guide_steps(text: str) -> list[Step]:
    """Every command of the guide's ``# on the Pi`` blocks, in order, as written.

    A block's first comment may say the folder (``# on the Pi, in ~/rhuna-table``); a ``cd``
    changes it for what follows. Comment lines and a command's trailing ``  # …`` are not
    commands; ``VAR=value`` lines are (they carry to the next ones).
    """
    steps: list[Step] = []
    cwd = "~"
    inside, pi, first = False, False, 0
    for n, raw in enumerate(text.splitlines(), 1):
        fence = raw.strip().startswith("```")
        if fence and not inside:
            inside, pi, first = True, False, n + 1
            continue
        if fence and inside:
            inside = False
            continue
        if not inside:
            continue
        line = raw.strip()
        if n == first:
            pi = bool(PI_MARK.match(line))
            if pi:
                where = IN_FOLDER.search(line)
                cwd = where.group(1) if where else cwd
            continue
        if not pi or not line or line.startswith("#"):
            continue
        command = re.split(r"\s{2,}#|\s#\s", line, maxsplit=1)[0].strip()
        steps.append(Step(n, cwd, command))
        if command.startswith("cd "):
            cwd = command[3:].strip()
    return steps


# --- the arm64 system ----------------------------------------------------------------------------


#: the tools the rehearsal runs, and the Debian package each comes in
TOOLS = {
    "mmdebstrap": "mmdebstrap",
    "qemu-aarch64-static": "qemu-user-static",
    "update-binfmts": "binfmt-support",
}
BINFMT = Path("/proc/sys/fs/binfmt_misc")


def missing_packages(tools: dict[str, str] = TOOLS, path: str | None = None) -> list[str]:
    """The Debian packages of the tools not on ``path`` (default: ``$PATH``), in order."""
    return [pkg for tool, pkg in tools.items() if shutil.which(tool, path=path) is None]


def install_packages(packages: list[str]) -> None:
    """``apt-get update``, then ``apt-get install -y PACKAGES``, as root; a failure is a clear
    stop naming the packages, never a traceback."""
    if not packages:
        return
    named = " ".join(packages)
    if shutil.which("apt-get") is None:
        raise SystemExit(
            f"make pi-rehearsal: needs {named}, and there is no apt-get here: install them"
            " (Debian's packages of those names), then run it again"
        )
    say(f"installing what the rehearsal needs: apt-get update; apt-get install -y {named}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in (["apt-get", "update"], ["apt-get", "install", "-y", *packages]):
        done = subprocess.run(argv, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or [""]
            raise SystemExit(
                f"make pi-rehearsal: {' '.join(argv)} failed (exit status {done.returncode}):"
                f" {said[0]}\n  fix: install {named} yourself (as root), then run it again"
            )


def _run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv``'s exit status and output; a program that is not there is status 127, said."""
    try:
        return subprocess.run(argv, capture_output=True, text=True)
    except OSError as e:
        return subprocess.CompletedProcess(argv, 127, "", f"{argv[0]}: {e.strerror or e}")


def binfmt_ready(where: Path = BINFMT) -> tuple[bool, str]:
    """Whether arm64 programs run through binfmt_misc here (mounted and registered if it can
    be), and if not, why, in words."""
    entry = where / "qemu-aarch64"
    if not entry.exists():
        if not (where / "register").exists():
            done = _run(["mount", "-t", "binfmt_misc", "binfmt_misc", str(where)])
            if done.returncode != 0 or not (where / "register").exists():
                why = first_line(done.stderr + done.stdout) or f"exit status {done.returncode}"
                return False, f"binfmt_misc cannot be mounted on {where} ({why})"
        done = _run(["update-binfmts", "--enable", "qemu-aarch64"])
        if not entry.exists():
            why = first_line(done.stderr + done.stdout) or f"exit status {done.returncode}"
            return False, (
                f"qemu-aarch64 cannot be registered with binfmt_misc"
                f" (update-binfmts --enable qemu-aarch64: {why})"
            )
    try:
        if "flags: " in entry.read_text():
            with_credentials(entry)
    except (OSError, KeyError) as e:
        return False, f"qemu-aarch64 cannot be re-registered with the C flag ({e})"
    if entry.exists() and "enabled" in entry.read_text():
        return True, ""
    return False, f"{entry} is not enabled (echo 1 > {entry})"


def with_credentials(entry: Path) -> None:
    """Re-register qemu-aarch64 with binfmt_misc's C flag (and O), so a setuid arm64 program
    (sudo, su) runs with its owner's uid: Debian registers it with P F only, and sudo then says
    "effective uid is not 0"."""
    fields = dict(line.split(" ", 1) for line in entry.read_text().splitlines() if " " in line)
    flags = fields.get("flags:", "").strip()
    if "C" in flags:
        return
    entry.write_text("-1")
    spec = (
        ":qemu-aarch64:M:{}:{}:{}:{}:".format(
            fields["offset"].strip() if fields.get("offset", "0").strip() != "0" else "",
            "".join(
                f"\\x{fields['magic'][i : i + 2]}"
                for i in range(0, len(fields["magic"].strip()), 2)
            ),
            "".join(
                f"\\x{fields['mask'][i : i + 2]}" for i in range(0, len(fields["mask"].strip()), 2)
            ),
            fields["interpreter"].strip(),
        )
        + "POCF"
    )
    Path("/proc/sys/fs/binfmt_misc/register").write_text(spec)


def installed(status: str) -> set[str]:
    """The packages dpkg's ``status`` file (its text) says are installed."""
    out = set()
    for stanza in status.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in stanza.splitlines() if ": " in line and line[0] != " "
        )
        if fields.get("Status", "").endswith(" installed") and "Package" in fields:
            out.add(fields["Package"])
    return out


def lacking(base: Path) -> list[str]:
    """The packages of :data:`PACKAGES` a cached system was built without (an older list)."""
    status = base / "var" / "lib" / "dpkg" / "status"
    have = installed(status.read_text("utf-8", "replace")) if status.exists() else set()
    return [pkg for pkg in PACKAGES.split(",") if pkg not in have]


def complete(base: Path, suite: str) -> None:
    """Install into a cached system what :data:`PACKAGES` gained since it was built."""
    missing = lacking(base)
    if not missing:
        return
    named = " ".join(missing)
    say(f"the cached arm64 {suite} system lacks {named}: apt-get install -y {named} in it")
    shutil.copy("/etc/resolv.conf", base / "etc" / "resolv.conf")
    (base / "proc").mkdir(exist_ok=True)
    subprocess.run(["mount", "-t", "proc", "proc", str(base / "proc")], check=True)
    try:
        done = subprocess.run(
            ["chroot", str(base), "/bin/sh", "-c",
             f"apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq {named}"],
        )  # fmt: skip
    finally:
        subprocess.run(["umount", "-l", str(base / "proc")], capture_output=True)
    if done.returncode != 0:
        raise SystemExit(
            f"make pi-rehearsal: apt-get install {named} failed in {base} (exit status"
            f" {done.returncode}; its lines above say why)\n  fix: rm -rf {base}, and it is"
            " built again"
        )


def base_system(suite: str) -> Path:
    """The cached arm64 system of ``suite`` (built once with mmdebstrap, Debian's archive)."""
    base = CACHE / suite / "base"
    if (base / "usr" / "bin" / "python3").exists():
        complete(base, suite)
        return base
    base.parent.mkdir(parents=True, exist_ok=True)
    tmp = base.with_name("base.part")
    shutil.rmtree(tmp, ignore_errors=True)
    say(f"building the arm64 {suite} system in {base} (once; ~20 min under qemu-user)")
    done = subprocess.run(
        ["mmdebstrap", "--architectures=arm64", "--variant=apt", f"--include={PACKAGES}",
         suite, str(tmp), "http://deb.debian.org/debian"],
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(
            f"make pi-rehearsal: mmdebstrap could not build the arm64 {suite} system"
            f" (exit status {done.returncode}; its own lines above say why)"
        )
    tmp.rename(base)
    return base


class System:
    """A fresh copy of the base system, entered with chroot (binfmt) or proot."""

    def __init__(self, suite: str, reuse: bool = False) -> None:
        self.suite = suite
        self.reuse = reuse
        self.root = CACHE / suite / "run"
        self.mounts: list[Path] = []
        ready, why = binfmt_ready()
        self.proot = not ready
        if self.proot and not (CACHE / suite / "base" / "usr" / "bin" / "python3").exists():
            # mmdebstrap runs the arm64 system's maintainer scripts through binfmt_misc
            raise SystemExit(
                f"make pi-rehearsal: {why}, so mmdebstrap cannot build the arm64 {suite}"
                " system.\n  fix: run it on a host (or a VM, or a --privileged container)"
                " where root can mount binfmt_misc: modprobe binfmt_misc; mount -t binfmt_misc"
                " binfmt_misc /proc/sys/fs/binfmt_misc; update-binfmts --enable qemu-aarch64"
            )
        if self.proot:
            say(f"{why}: the arm64 programs run through proot -q qemu-aarch64-static instead")
            install_packages(missing_packages({"proot": "proot"}))

    def __enter__(self) -> System:
        base = base_system(self.suite)
        self.unmount()
        if not (self.reuse and (self.root / "usr").exists()):
            shutil.rmtree(self.root, ignore_errors=True)
            subprocess.run(["cp", "-a", str(base), str(self.root)], check=True)
        shutil.copy("/etc/resolv.conf", self.root / "etc" / "resolv.conf")
        # this machine's network has a CA of its own (a TLS proxy): its bundle, or pip fails
        shutil.copy(
            "/etc/ssl/certs/ca-certificates.crt", self.root / "etc/ssl/certs/ca-certificates.crt"
        )
        if not self.proot:
            for what, where, kind in (
                ("proc", "proc", ["-t", "proc"]),
                ("/dev/pts", "dev/pts", ["--bind"]),
            ):
                target = self.root / where
                target.mkdir(parents=True, exist_ok=True)
                subprocess.run(["mount", *kind, what, str(target)], check=True)
                self.mounts.append(target)
        return self

    def unmount(self) -> None:
        for where in ("dev/pts", "proc"):
            target = self.root / where
            subprocess.run(["umount", "-l", str(target)], capture_output=True)
        self.mounts.clear()

    def __exit__(self, *exc: object) -> None:
        self.unmount()

    def argv(self, command: str, user: str = "root", cwd: str = "/") -> list[str]:
        inner = f"cd {cwd} && {command}"
        if user != "root":
            inner = f"exec su - {user} -c {shlex.quote(inner)}"
        if self.proot:
            return ["proot", "-q", "qemu-aarch64-static", "-0", "-r", str(self.root),
                    "-b", "/proc", "-b", "/dev", "/bin/sh", "-c", inner]  # fmt: skip
        return ["chroot", str(self.root), "/bin/sh", "-c", inner]

    def run(self, command: str, user: str = "root", cwd: str = "/", **kw):
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG": "C.UTF-8",
        }
        return subprocess.run(
            self.argv(command, user, cwd), capture_output=True, text=True, env=env, **kw
        )


# --- the stand-ins --------------------------------------------------------------------------------

SYSTEMCTL = r"""#!/bin/sh
# the rehearsal's systemctl (scripts/pi_rehearsal.py): no systemd in a chroot. For
# rhuna-table.service it runs the unit's ExecStart as its User= (start), SIGTERM and wait
# (stop), and says whether it runs with the last lines of its log (status); else it says so.
unit=$(for a in "$@"; do case $a in -*) ;; *) echo "$a" ;; esac; done | sed -n 2p)
verb=$(for a in "$@"; do case $a in -*) ;; *) echo "$a" ;; esac; done | sed -n 1p)
pid=/run/rhuna-table.pid
log=/var/log/rhuna-table.log
running() { [ -s $pid ] && kill -0 "$(cat $pid)" 2>/dev/null; }
case "$unit" in rhuna-table|rhuna-table.service) ;; *)
    echo "stand-in systemctl: $verb $unit: not rehearsed (no systemd here)"; exit 0 ;;
esac
exec_start=$(sed -n 's/^ExecStart=//p' /etc/systemd/system/rhuna-table.service)
user=$(sed -n 's/^User=//p' /etc/systemd/system/rhuna-table.service)
case $verb in
    start)
        running && exit 0
        install -d -o "$user" -g "$user" -m 0750 /var/lib/rhuna-table
        cd /var/lib/rhuna-table
        STATE_DIRECTORY=/var/lib/rhuna-table PYTHONUNBUFFERED=1 \
            setsid runuser -u "$user" -- $exec_start >>$log 2>&1 </dev/null &
        echo $! >$pid ;;
    stop)
        if running; then
            kill -TERM "$(cat $pid)"
            while running; do sleep 0.2; done
        fi
        rm -f $pid ;;
    restart) "$0" stop "$unit"; "$0" start "$unit" ;;
    is-active) running ;;
    status)
        if running; then echo "● rhuna-table.service - active (running), pid $(cat $pid) (stand-in)"
        else echo "● rhuna-table.service - inactive (dead) (stand-in)"; fi
        tail -n 5 $log 2>/dev/null
        running ;;
    *) echo "stand-in systemctl: $verb: not rehearsed" ;;
esac
"""


#: pip's config in the rehearsal's system (root's pip, as install.sh runs it under sudo)
PIP_CONF = "[global]\nretries = 20\ntimeout = 120\n"


def hosts_naming(text: str, hostname: str) -> str:
    """``/etc/hosts``'s text with a ``127.0.1.1 HOSTNAME`` line (as Debian's installer and
    Raspberry Pi OS write it) unless a line already names the host: the chroot shares the
    host's name (its UTS namespace) but not its /etc/hosts, and sudo then says "unable to
    resolve host" as every ``sudo`` row's first line."""
    for line in text.splitlines():
        if hostname in line.split("#", 1)[0].split()[1:]:
            return text
    return text + ("" if not text or text.endswith("\n") else "\n") + f"127.0.1.1\t{hostname}\n"


def prepare(system: System, archive: Path, hub_link: str) -> list[tuple[str, int, str]]:
    """The user, its sudo, the archive in its home, the stand-ins; rows for the table."""
    rows = []
    hosts = system.root / "etc" / "hosts"
    hosts.write_text(hosts_naming(hosts.read_text() if hosts.exists() else "", os.uname().nodename))
    done = system.run(
        f"(id {USER} >/dev/null 2>&1 || useradd -m -s /bin/bash {USER}) && echo '{USER} ALL=(ALL) NOPASSWD: ALL'"
        f" > /etc/sudoers.d/010_{USER}-nopasswd && chmod 0440 /etc/sudoers.d/010_{USER}-nopasswd"
    )
    rows.append(
        (
            "(stand-in) the Pi's user pi, sudo without a password",
            done.returncode,
            first_line(done.stderr + done.stdout),
        )
    )
    if done.returncode != 0:
        return rows
    home = system.root / "home" / USER
    shutil.copy(archive, home / archive.name)
    system.run(f"chown {USER}:{USER} /home/{USER}/{archive.name}")
    rows.append((f"(stand-in for scp) {archive.name} in /home/{USER}", 0, ""))
    tool = system.root / "usr" / "local" / "sbin" / "systemctl"
    tool.parent.mkdir(parents=True, exist_ok=True)
    tool.write_text(SYSTEMCTL)
    tool.chmod(0o755)
    rows.append(("(stand-in) systemctl: the unit's ExecStart as its User=", 0, ""))
    # pip under qemu-user reads a wheel at a fraction of a core: this machine's proxy reset
    # trixie's pillow wheel five times running (pip's default: 5 retries, 15 s); a Pi's own CPU
    # does not need it
    (system.root / "etc" / "pip.conf").write_text(PIP_CONF)
    rows.append(("(stand-in) /etc/pip.conf: retries 20, timeout 120 s (pip under qemu)", 0, ""))
    config = (ROOT / "examples" / "rhuna.toml").read_text()
    config = re.sub(
        r'(?m)^port = "/dev/serial/by-id/[^"]*"', f'port = "{hub_link}"', config, count=1
    )
    config = re.sub(r'(?m)^pin_factory = "lgpio"', 'pin_factory = "mock"', config)
    # the chroot shares the host's network: no broker on the host's 1883/9001, the pages on a
    # free port, not 8080
    config = re.sub(r"(?m)^(\[mqtt\]\nenabled = )true", r"\1false", config)
    config = re.sub(r"(?m)^port = 8080", f"port = {free_port()}", config)
    etc = system.root / "etc" / "rhuna-table"
    etc.mkdir(parents=True, exist_ok=True)
    # install.sh's own edits of a new config, so the pre-written one is what it would write
    config = config.replace('recaps = "recaps"', 'recaps = "/opt/rhuna-table/web/recaps"')
    config = re.sub(r"(?m)^# recap_url = .*$", 'recap_url = "/recaps/"', config)
    config = config.replace('# dir = "/opt/rhuna-table/web"', 'dir = "/opt/rhuna-table/web"')
    (etc / "rhuna.toml").write_text(config)
    rows.append(
        (
            "(stand-in) rhuna.toml edited first: hub port, pin_factory mock, no [mqtt], [web] port",
            0,
            "",
        )
    )
    return rows


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Hand:
    """Lays a new tag each time ``enroll`` asks for a token, lifting the last one first."""

    def __init__(self, hub) -> None:
        self.hub = hub
        self.n = 0

    def answer(self, line: str) -> None:
        if "now scan" in line or line.startswith("re-enrolling"):
            self.hub.lift(0)
            self.hub.wait_polls(self.hub.remove_misses + 2)
            self.n += 1
            self.hub.lay(0, f"04{self.n:012X}")


def interactive(system: System, step: Step, hand: Hand, timeout: float) -> tuple[int, str]:
    """A command whose output the hand answers (enroll)."""
    argv = system.argv(step.text, USER, step.cwd)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            hand.answer(line.strip())
        proc.wait()
    finally:
        timer.cancel()
        hand.hub.lift(0)
    return proc.returncode, "\n".join(lines)


def say(text: str) -> None:
    print(text, flush=True)


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:90]
    return ""


def rehearse(suite: str, archive: Path, reuse: bool = False) -> int:
    from firmware_bridge.emulator.hub import HubEmulator

    rows: list[tuple[str, int, str]] = []
    started = time.monotonic()
    steps = guide_steps(GUIDE.read_text("utf-8"))
    with System(suite, reuse) as system:
        by_id = system.root / "dev" / "serial" / "by-id" / HUB_NAME
        with HubEmulator(by_id, hub_id="PICO-E6614C311B7E6F35") as hub:
            os.chmod(hub.port.tty_path, 0o666)  # udev's dialout group: the chroot's gids differ
            hub_link = f"/dev/serial/by-id/{HUB_NAME}"
            rows += prepare(system, archive, hub_link)
            if any(rc != 0 for _, rc, _ in rows):  # the first surprise, before the guide
                table(rows, suite, time.monotonic() - started)
                return 1
            hand = Hand(hub)
            env: dict[str, str] = {}
            ok = True
            for step in steps:
                text = step.text
                assign = re.fullmatch(r"([A-Z_]+)=(\S+)", text)
                if assign:
                    env[assign.group(1)] = assign.group(2)
                    rows.append((text, 0, "(carried to the next commands)"))
                    continue
                if text.startswith("cd "):
                    done = system.run(text, USER, step.cwd)
                    rows.append((text, done.returncode, first_line(done.stdout + done.stderr)))
                    continue
                exports = "".join(f"export {k}={shlex.quote(v)}; " for k, v in env.items())
                t0 = time.monotonic()
                if text.startswith("mpremote "):
                    done = system.run("mpremote --version", USER, step.cwd, timeout=600)
                    rc = done.returncode
                    out = "(stand-in: mpremote --version) " + first_line(done.stdout + done.stderr)
                    if text.endswith(" reset"):  # the board's reset: the emulator replugged
                        hub.replug()
                        os.chmod(hub.port.tty_path, 0o666)
                        out += "; hub replugged"
                elif " enroll " in text:
                    rc, out = interactive(
                        system, Step(step.line, step.cwd, exports + text), hand, 1800
                    )
                    out = f"{hand.n} token(s) laid; " + (
                        first_line(out.splitlines()[-1]) if out else ""
                    )
                else:
                    done = system.run(exports + text, USER, step.cwd, timeout=3600)
                    rc, out = done.returncode, done.stdout + done.stderr
                    if text.startswith("sudo systemd/install.sh"):
                        (CACHE / suite / "install.log").write_text(out)
                        out = f"({time.monotonic() - t0:.0f} s) " + first_line(
                            out.splitlines()[-1] if rc else "Done."
                        )
                    else:
                        out = first_line(out)
                rows.append((text, rc, out))
                if rc != 0:
                    ok = False
                    break
                if text == "sudo systemctl start rhuna-table" and hand.n:  # after enroll
                    rows.append(first_draw(system, hub))
                    if rows[-1][1] != 0:
                        ok = False
                        break
            rows.append(recaps(system))
            rows.append(sizes(system))
            system.run("systemctl stop rhuna-table")
    table(rows, suite, time.monotonic() - started)
    return 0 if ok and all(rc == 0 for _, rc, _ in rows) else 1


#: what a WorldKeeper sends before the first draw (docs/service.md, "Try it without hardware"):
#: a Performance begun and the hero declared; a token laid before them is refused (P19, P23)
#: and never reaches the journal
FIRST_DRAW_HERO = "aria"
FIRST_DRAW_COMMANDS = (
    {"cmd": "begin_performance", "difficulty": 5},
    {"cmd": "declare", "hero": FIRST_DRAW_HERO, "shade": "control", "capability": "skill",
     "action": "target"},
)  # fmt: skip
FIRST_DRAW_RUN = "/run/rhuna-rehearsal-run"


def hero_token(tags: dict[str, str], hero: str = FIRST_DRAW_HERO) -> tuple[str, str] | None:
    """The tag (UID, token id) of one of ``hero``'s bag tokens in a registry's ``tags``:
    an Ember first (always in the hero's own bag), else any token the hero's id begins."""
    mine = sorted((t, u) for u, t in tags.items() if t.startswith(f"{hero}."))
    embers = [(t, u) for t, u in mine if t.startswith(f"{hero}.ember.")]
    found = (embers or mine)[:1]
    return (found[0][1], found[0][0]) if found else None


def drawn(history_json: str, token: str) -> dict[str, object] | None:
    """The entry of ``history --json`` that is a ``draw`` of ``token`` from a reader (the token
    laid on a Draw Board well: ``draw aria token=aria.ember.skill``, source ``reader:…``), or
    None: any other entry (the Performance begun, a declare) is not the first draw."""
    for line in history_json.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(entry, dict):
            continue
        words = str(entry.get("command", "")).split()
        if (
            words[:1] == ["draw"]
            and (f"token={token}" in words or f"token={json.dumps(token)}" in words)
            and str(entry.get("source", "")).startswith("reader:")
        ):
            return entry
    return None


def first_draw(system: System, hub) -> tuple[str, int, str]:
    """The first draw, as at the table: the service (the unit's ExecStart, as its user) with
    ``run --commands`` begins a Performance and declares Aria, as a WorldKeeper would (the
    wheel and the GM page are not reachable from here); then a token of hers on a Draw Board
    well, until ``history`` has that token's ``draw`` from the reader (the draw accepted).
    The service started by the guide's ``systemctl start`` is stopped for it and started
    again afterwards."""
    cfg = "/etc/rhuna-table/rhuna.toml"
    what = f"(rehearsal) first draw: run --commands (begin_performance, declare {FIRST_DRAW_HERO})"
    registry = system.root / "var" / "lib" / "rhuna-table" / "registry.json"
    try:
        tags = json.loads(registry.read_text())["tags"]
    except (OSError, ValueError, KeyError) as e:
        return (what, 1, f"no registry to find a token in: {registry}: {e}")
    found = hero_token(tags)
    if found is None:
        return (what, 1, f"no token of {FIRST_DRAW_HERO}'s in {registry}")
    uid, token = found
    what += f", {token} ({uid}) on well 1, then: rhuna-table history --json"
    run = Path(str(system.root) + FIRST_DRAW_RUN)
    run.mkdir(parents=True, exist_ok=True)
    run.chmod(0o755)
    (run / "commands.jsonl").write_text("".join(json.dumps(c) + "\n" for c in FIRST_DRAW_COMMANDS))
    (run / "commands.jsonl").chmod(0o644)
    (run / "out.log").unlink(missing_ok=True)
    system.run("systemctl stop rhuna-table", timeout=300)
    user = re.search(
        r"(?m)^User=(\S+)", (system.root / "etc/systemd/system/rhuna-table.service").read_text()
    )
    started = system.run(
        f"cd /var/lib/rhuna-table && STATE_DIRECTORY=/var/lib/rhuna-table PYTHONUNBUFFERED=1"
        f" setsid runuser -u {user.group(1) if user else 'rhuna'} -- rhuna-table run"
        f" --config {cfg} --commands {FIRST_DRAW_RUN}/commands.jsonl --keep-running"
        f" >{FIRST_DRAW_RUN}/out.log 2>&1 </dev/null & echo $! >{FIRST_DRAW_RUN}/pid",
        timeout=60,
    )
    try:
        if started.returncode != 0:
            return (what, started.returncode, first_line(started.stdout + started.stderr))
        acks = len(FIRST_DRAW_COMMANDS)
        out = ""
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            out = (
                (run / "out.log").read_text(errors="replace") if (run / "out.log").exists() else ""
            )
            if f"ack {acks}" in out or "refused" in out:
                break
            alive = system.run(f"kill -0 $(cat {FIRST_DRAW_RUN}/pid)")
            if alive.returncode != 0:
                break
            time.sleep(1)
        if f"ack {acks}" not in out:
            said = [x for x in out.splitlines() if x.startswith("refused")] or out.splitlines()[-1:]
            return (what, 1, "not acknowledged: " + (said[0][:80] if said else "(no output)"))
        hub.lay(1, uid)
        cmd = f"sudo -u rhuna rhuna-table history --config {cfg} --json"
        done = None
        while time.monotonic() < deadline:
            done = system.run(cmd, timeout=300)
            entry = drawn(done.stdout, token) if done.returncode == 0 else None
            if entry is not None:
                return (what, 0, f"#{entry.get('seq')} draw {token} from {entry.get('source')}")
            time.sleep(2)
        text = (done.stdout + done.stderr) if done else ""
        last = text.strip().splitlines()[-1:] or [""]
        return (what, 1, f"no draw of {token} in history; its last entry: {last[0][:80]}")
    finally:
        hub.lift(1)
        system.run(
            f"p=$(cat {FIRST_DRAW_RUN}/pid 2>/dev/null) && kill -TERM $p 2>/dev/null;"
            f' while [ -n "$p" ] && kill -0 $p 2>/dev/null; do sleep 0.2; done',
            timeout=300,
        )
        system.run("systemctl start rhuna-table", timeout=300)


def recaps(system: System) -> tuple[str, int, str]:
    done = system.run(
        "ls -ld /opt/rhuna-table/web/recaps && stat -c '%U:%G %a' /opt/rhuna-table/web/recaps"
    )
    return (
        "(rehearsal) the recap folder: ls -ld /opt/rhuna-table/web/recaps",
        done.returncode,
        first_line(done.stdout + done.stderr),
    )


def sizes(system: System) -> tuple[str, int, str]:
    """The install's size: packages and MB on the system, and what Node would have added."""
    done = system.run(
        "dpkg-query -W -f '${Installed-Size}\\n' | awk '{s+=$1} END {print NR, int(s/1024)}';"
        " du -sm /opt/rhuna-table | cut -f1;"
        " apt-get install -s nodejs npm 2>/dev/null | grep -c '^Inst ';"
        # apt's own sum of what they would take on the disk: bookworm's apt 2.6 says "After
        # this operation, 104 MB of additional disk space will be used.", trixie's apt 3.0
        # "Space needed: 104 MB / 3,043 MB available"; --assume-no: nothing is installed
        " apt-get install --assume-no nodejs npm 2>/dev/null | sed -n"
        " -e 's/^After this operation, \\([0-9.,]* [kMG]B\\) of additional disk space.*/\\1/p'"
        " -e 's/^ *Space needed: \\([0-9.,]* [kMG]B\\) .*/\\1/p' | head -1 | tr -d ' '"
    )
    parts = done.stdout.split()
    node_size = re.sub(r"([kMG]B)$", r" \1", parts[4]) if len(parts) >= 5 else ""
    text = (
        f"{parts[0]} Debian packages, {parts[1]} MB installed; /opt/rhuna-table {parts[2]} MB;"
        f" nodejs+npm would add {parts[3]} packages" + (f", {node_size}" if node_size else "")
        if len(parts) >= 4
        else done.stdout + done.stderr
    )
    return ("(rehearsal) the install's size", done.returncode, text)


def table(rows: list[tuple[str, int, str]], suite: str, seconds: float) -> None:
    width = min(72, max(len(r[0]) for r in rows))
    say(f"\npi-rehearsal, Debian {suite} arm64 under qemu-user ({seconds / 60:.0f} min):")
    say(f"| {'command':<{width}} | rc | first line |")
    say(f"|{'-' * (width + 2)}|----|------------|")
    for command, rc, line in rows:
        say(f"| {command[:width]:<{width}} | {rc:>2} | {line.replace('|', '/')} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="bookworm")
    parser.add_argument("--archive", type=Path, help="make dist's archive (default: dist/)")
    parser.add_argument(
        "--reuse", action="store_true", help="the last run's system again (not fresh: quicker)"
    )
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        raise SystemExit("make pi-rehearsal: run as root (chroot, mounts, mmdebstrap)")
    archive = args.archive or max((ROOT / "dist").glob("rhuna-table-*.tar.gz"), default=None)
    if archive is None:
        raise SystemExit("make pi-rehearsal: no dist/rhuna-table-*.tar.gz: make dist first")
    install_packages(missing_packages())
    return rehearse(args.suite, archive, args.reuse)


if __name__ == "__main__":
    sys.exit(main())
