"""A private Mosquitto for ``rhuna-table demo``: the table's MQTT, and the web pages, on this machine.

Two listeners on free ports: plain MQTT on 127.0.0.1 for the demo's own service,
and MQTT over WebSockets that also serves the built pages (``web/dist``) with
``http_dir``, as the Pi's ``systemd/mosquitto-rhuna.conf`` does. Mosquitto 2.0
binds a websockets listener on *every* interface whatever address it is given,
so the broker never runs without a password file and an ACL: the accounts are
made with :mod:`companion.ops.accounts` (a service, gm and viewers per table, a
read-only wall) in a throwaway folder, and only the printed URLs carry them.

>>> DemoBroker.binary() is None or DemoBroker.binary().endswith("mosquitto")
True
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from companion.ops import accounts as acc

#: the built pages (``make web``); the demo serves them when they are there
WEB_DIST = Path(__file__).resolve().parents[2] / "web" / "dist"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DemoBroker:
    """Mosquitto on two free ports with accounts for ``tables``; :meth:`start`, :meth:`stop`."""

    def __init__(self, tables: list[str], pages: Path = WEB_DIST) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="rhuna-demo-broker-"))
        self.port = _free_port()
        self.ws_port = _free_port()
        self.pages = pages if (pages / "BUILT").exists() else None
        self.accounts = acc.Accounts()
        for table in tables:
            self.accounts = acc.add_table(self.accounts, table)
        acc.save(self.dir / "accounts", self.accounts)
        self.proc: subprocess.Popen[bytes] | None = None

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
        shutil.rmtree(self.dir, ignore_errors=True)
