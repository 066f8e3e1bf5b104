"""A venue on loopback: N table Mosquittos, each with the bridge file ``rhuna-table venue``
writes, bridged to one venue Mosquitto with the venue config it writes (docs/convention.md).

Every broker is a real Mosquitto on a free port with its own config and data folder (the
tests' :class:`tests.harness.broker.Broker` for the tables). One table's uplink can go
through a :class:`Cut`: a TCP relay that can drop every byte both ways (a pulled cable:
nothing is closed, keepalives find it) and later pass them again.
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import shutil
import signal
import socket
import subprocess
import threading
import time
from dataclasses import replace
from pathlib import Path

from companion.ops import venue as V
from tests.harness import WAIT
from tests.harness.broker import Broker, free_port, mosquitto_binary

#: the fds a venue broker needs per table: its bridge's socket, with room to spare
FDS_PER_TABLE = 2


def raise_nofile(tables: int) -> tuple[int, int]:
    """Raise this process's RLIMIT_NOFILE (inherited by the brokers it starts) so the venue
    Mosquitto can hold every bridge (mosquitto #1505: 1,024 by default); (old soft, new soft)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 256 + FDS_PER_TABLE * tables * 2))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    return soft, want


class Cut:
    """A relay on a free port to ``target``; ``drop()`` blackholes it, ``restore()`` passes."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.dropping = threading.Event()
        self.closing = threading.Event()
        self.server = socket.create_server(("127.0.0.1", self.port))
        self.socks: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closing.is_set():
            try:
                a, _ = self.server.accept()
            except OSError:
                return
            try:
                b = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                a.close()
                continue
            for s in (a, b):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.socks += [a, b]
            threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        peer = {a: b, b: a}
        try:
            while not self.closing.is_set():
                ready, _, _ = select.select([a, b], [], [], 0.2)
                for s in ready:
                    data = s.recv(65536)
                    if not data:
                        return
                    if not self.dropping.is_set():
                        peer[s].sendall(data)
        except OSError:
            return
        finally:
            a.close()
            b.close()

    def drop(self) -> None:
        self.dropping.set()

    def restore(self) -> None:
        self.dropping.clear()

    def close(self) -> None:
        self.closing.set()
        self.server.close()
        for s in self.socks:
            with contextlib.suppress(OSError):
                s.close()


class VenueBroker:
    """The venue's Mosquitto, run from the files ``rhuna-table venue`` wrote, ports moved to
    127.0.0.1 and persistence into its own folder."""

    def __init__(self, folder: Path, venue: V.Venue) -> None:
        self.folder = folder
        self.venue = venue
        V.write(venue, folder)
        conf = folder / "venue" / "mosquitto.conf"
        text = conf.read_text()
        text += f"log_dest file {folder}/venue/mosquitto.log\nlog_type error\nlog_type warning\nlog_type notice\n"
        if os.getuid() == 0:
            text += "user root\n"
        conf.write_text(text)
        self.conf = conf
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> VenueBroker:
        self.proc = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                log = self.folder / "venue" / "mosquitto.log"
                raise RuntimeError(f"venue mosquitto exited: {log.read_text()[-2000:]}")
            try:
                socket.create_connection(("127.0.0.1", self.venue.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("the venue mosquitto did not listen")

    def stop(self, *, kill: bool = False) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                self.proc.wait(WAIT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


class Rig:
    """N tables (``t001``…) bridged to one venue; ``cut`` names the table behind a :class:`Cut`."""

    def __init__(
        self,
        folder: Path,
        tables: int,
        *,
        keepalive: int = 5,
        cut: str | None = None,
        pages: bool = False,
    ) -> None:
        """``pages``: the venue's websockets listener serves the built pages and the roster
        (``[venue] http_dir``), as an organiser sets it up: :meth:`page_url` opens one."""
        self.folder = folder
        self.ids = [f"t{i + 1:03d}" for i in range(tables)]
        raise_nofile(tables)
        port, ws = free_port(), free_port()
        data = {
            "venue": {
                "host": "127.0.0.1",
                "port": port,
                "websockets_port": ws,
                "bind": "127.0.0.1",
                "keepalive": keepalive,
                "persistence_location": f"{folder}/venue-data/",
            },
            "wall": {"password": "wall-pw"},
            "director": {"password": "director-pw"},
            "table": [{"id": t, "name": f"Table {t}", "password": f"{t}-pw"} for t in self.ids],
        }
        (folder / "venue-data").mkdir(parents=True, exist_ok=True)
        www = folder / "www"
        if pages:
            data["venue"]["http_dir"] = str(www)
        self.venue = V.parse(data, "rig-venue.toml")
        self.broker = VenueBroker(folder, self.venue)
        if pages:
            from tests.harness.web import built_pages

            www.mkdir(exist_ok=True)
            for page in built_pages().glob("*.html"):  # each page is one file (web/build.mjs)
                shutil.copy(page, www / page.name)
            shutil.copy(folder / "venue" / "tables.json", www / "tables.json")
        self.cut: Cut | None = None
        self.cut_id = cut
        self.tables: dict[str, Broker] = {}

    def page_url(self, file: str, login: str = "wall", **params: str) -> str:
        """The page ``file`` served by the venue broker, logged in (the fragment) as ``login``."""
        from tests.harness.web import address

        pw = {"wall": self.venue.wall, "director": self.venue.director}[login]
        query = {"roster": "tables.json", **params, "username": login, "password": pw}
        return address(f"http://127.0.0.1:{self.venue.websockets_port}/{file}", query)

    def start(self) -> Rig:
        self.broker.start()
        if self.cut_id is not None:
            self.cut = Cut(self.venue.port)
        for t in self.venue.tables:
            via = self.cut.port if self.cut is not None and t.id == self.cut_id else None
            venue = self.venue if via is None else replace(self.venue, port=via)
            bridge = V.bridge_text(venue, t)
            self.tables[t.id] = Broker(self.folder / "tables" / t.id, extra=bridge).start()
        return self

    def stop(self) -> None:
        for b in self.tables.values():
            b.stop()
        if self.cut is not None:
            self.cut.close()
        self.broker.stop()
