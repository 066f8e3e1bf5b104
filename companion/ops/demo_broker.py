"""A private Mosquitto for ``rhuna-table demo`` and ``play``: the table's MQTT, and the web pages, on this machine.

Two listeners on free ports: plain MQTT on 127.0.0.1 for the demo's own service,
and MQTT over WebSockets that also serves the built pages (``web/dist``) with
``http_dir``, as the Pi's ``systemd/mosquitto-rhuna.conf`` does. Mosquitto 2.0
binds a websockets listener on *every* interface whatever address it is given,
so the broker never runs without a password file and an ACL: the accounts are
made with :mod:`companion.ops.accounts` (a service, gm and viewers per table, a
read-only wall) in a throwaway folder, and only the printed URLs carry them.

Given a ``folder`` (``rhuna-table play``: the table's state folder), the broker is kept
there instead, from one run to the next: its accounts (the same passwords, so a bookmarked
gm.html still logs in), its ports when they are still free (the same URLs), and its retained
messages (Mosquitto's persistence). Either way Mosquitto is asked to die with the process
that started it (Linux's parent-death signal), so even a ``kill -9`` leaves no broker behind.

>>> DemoBroker.binary() is None or DemoBroker.binary().endswith("mosquitto")
True
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from companion.ops import accounts as acc

#: the built pages (``make web``); the demo serves them when they are there
WEB_DIST = Path(__file__).resolve().parents[2] / "web" / "dist"


#: a kept broker's ports (``{"mqtt": …, "websockets": …}``), reused while they are free
PORTS_FILE = "ports.json"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _still_free(port: object) -> bool:
    """Whether Mosquitto could listen on ``port`` again: nothing listens there on any
    interface (a connection of the last run still in TIME_WAIT does not count, as for
    Mosquitto's own SO_REUSEADDR listeners)."""
    if not isinstance(port, int) or isinstance(port, bool) or not 1024 <= port <= 65535:
        return False
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def _die_with_parent() -> Callable[[], None] | None:
    """What the child runs before exec so that it gets SIGTERM when the thread that started
    it ends (Linux's ``PR_SET_PDEATHSIG``): a broker never outlives its ``play`` or demo, even
    one killed with -9. Looked up here, in the parent: the child only makes the call."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent, term = os.getpid(), int(signal.SIGTERM)

    def child() -> None:
        prctl(1, term)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the call: go now
            os.kill(os.getpid(), term)

    return child


class DemoBroker:
    """Mosquitto on two free ports with accounts for ``tables``; :meth:`start`, :meth:`stop`.

    ``folder``: keep the broker there across runs (accounts, ports, retained messages);
    without one it lives in a throwaway folder, removed by :meth:`stop`.
    """

    def __init__(
        self, tables: list[str], pages: Path = WEB_DIST, *, folder: Path | None = None
    ) -> None:
        self.kept = folder is not None
        if folder is None:
            self.dir = Path(tempfile.mkdtemp(prefix="rhuna-demo-broker-"))
            self.accounts = acc.Accounts()
            self.port, self.ws_port = _free_port(), _free_port()
        else:
            self.dir = folder
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            self.accounts = acc.load(self.dir / "accounts")  # the passwords of the last run
            self.port, self.ws_port = self._ports()
        self.pages = pages if (pages / "BUILT").exists() else None
        for table in tables:
            self.accounts = acc.add_table(self.accounts, table)
        acc.save(self.dir / "accounts", self.accounts)
        self.proc: subprocess.Popen[bytes] | None = None

    def _ports(self) -> tuple[int, int]:
        """The last run's ports while both are free (the same URLs), else two new ones."""
        path = self.dir / PORTS_FILE
        try:
            last = json.loads(path.read_text("utf-8"))
            mqtt, ws = last["mqtt"], last["websockets"]
        except (OSError, ValueError, KeyError, TypeError):
            mqtt = ws = None
        if mqtt != ws and _still_free(mqtt) and _still_free(ws):
            return int(mqtt), int(ws)
        ports = _free_port(), _free_port()
        path.write_text(json.dumps({"mqtt": ports[0], "websockets": ports[1]}) + "\n")
        return ports

    @staticmethod
    def binary() -> str | None:
        """Mosquitto's path, or None when it is not installed."""
        found = shutil.which("mosquitto")
        if found is None and os.access("/usr/sbin/mosquitto", os.X_OK):
            found = "/usr/sbin/mosquitto"
        return found

    def config_text(self) -> str:
        folder = self.dir / "accounts"
        lines = [
            "per_listener_settings false",
            "allow_anonymous false",
            f"password_file {folder / acc.PASSWD_FILE}",
            f"acl_file {folder / acc.ACL_FILE}",
            f"listener {self.port} 127.0.0.1",
            # binds every interface on Mosquitto 2.0, hence the accounts above
            f"listener {self.ws_port} 127.0.0.1",
            "protocol websockets",
            *([f"http_dir {self.pages}"] if self.pages else []),
            "set_tcp_nodelay true",
            f"log_dest file {self.dir / 'mosquitto.log'}",
        ]
        if self.kept:  # the retained messages, from one run to the next
            lines += ["persistence true", f"persistence_location {self.dir}/"]
        if os.getuid() == 0:
            lines.append("user root")  # else it drops to 'mosquitto', who cannot read our folder
        return "\n".join(lines) + "\n"

    def start(self, timeout: float = 5.0) -> DemoBroker:
        binary = self.binary()
        if binary is None:
            raise RuntimeError("mosquitto is not installed (Debian package mosquitto)")
        conf = self.dir / "mosquitto.conf"
        conf.write_text(self.config_text())
        self.proc = subprocess.Popen(
            [binary, "-c", str(conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            # a process group of its own: a terminal's Ctrl-C (SIGINT to its foreground group)
            # stops the demo, and the demo stops its broker last, after its tables went offline
            process_group=0,
            preexec_fn=_die_with_parent(),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = self.dir / "mosquitto.log"
                raise RuntimeError(
                    f"mosquitto exited: {log.read_text() if log.exists() else 'no log'}"
                )
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                socket.create_connection(("127.0.0.1", self.ws_port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"mosquitto did not listen on ports {self.port}, {self.ws_port}")

    def login(self, table: str) -> tuple[str, str]:
        """The service account of ``table``: (user, password)."""
        return acc.user(table, "service"), self.accounts.table(table).service

    def urls(self, table: str) -> list[tuple[str, str]]:
        """(what, URL) of the overlay, the table display, the wall and the WorldKeeper's remote
        (the demo's accounts are throwaway, and whoever runs the demo is the WorldKeeper)."""
        host = f"127.0.0.1:{self.ws_port}"
        return acc.urls(
            self.accounts, table, http_base=f"http://{host}", ws_url=f"ws://{host}/", gm=True
        )

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if not self.kept:
            shutil.rmtree(self.dir, ignore_errors=True)
