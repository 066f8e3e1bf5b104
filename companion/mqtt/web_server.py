"""``[web]``: the service serves the web pages (and the recaps beside them) over plain HTTP.

Why the service and not only Mosquitto's ``http_dir``: Mosquitto 2.0 serves its websockets
listener once per pass of its main loop, and a quiet broker passes every 100 ms; a page from
``http_dir`` costs three passes before its first byte of HTML is parsed (docs/web.md, "How fast
a page paints", measured by benchmarks/web.py). From here a page arrives in a few ms and opens
its WebSocket to the broker at once. Mosquitto's ``http_dir`` still serves the same folder on
its websockets port, so a page opened while the service is down still loads and says so.

Only files under ``dir``: GET and HEAD, no directory listings, no writes. Nothing it serves is
secret (the pages take the broker login from their URL), like ``http_dir``.

>>> PageServer(Path("web/dist"), "127.0.0.1", 0).root.name
'dist'
"""

from __future__ import annotations

import logging
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from companion.service import Service
    from companion.table.loop import TableLoop

log = logging.getLogger("rhuna.web")


#: the pages' own types, with their charset (the rest: the standard library's guess)
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
}


class _Pages(SimpleHTTPRequestHandler):
    """The folder's files, keep-alive, revalidated on every load (a new install shows at once)."""

    protocol_version = "HTTP/1.1"

    def guess_type(self, path: Any) -> str:
        return _TYPES.get(Path(str(path)).suffix.lower()) or super().guess_type(path)

    def list_directory(self, path: Any) -> None:
        self.send_error(404, "Not Found")
        return None

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-cache")
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("web: %s %s", self.address_string(), format % args)


class PageServer:
    """An extension (companion/service.py): serves ``root`` on ``host``:``port`` from a thread."""

    def __init__(self, root: Path, host: str, port: int) -> None:
        self.root = root
        self.host = host
        self.port = port
        self.server: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    def start(self, loop: TableLoop | None = None) -> None:
        if not self.root.is_dir():
            log.warning(
                "[web] dir %s is not a folder (yet): the pages are not served until it is — "
                "build them (make web) or install them (systemd/install.sh)",
                self.root,
            )
        handler = partial(_Pages, directory=str(self.root))
        try:
            server = ThreadingHTTPServer((self.host, self.port), handler)
        except OSError as e:
            log.error(
                "[web] cannot serve the pages on %s:%d (%s) — choose another web.port, or stop"
                " what holds it; the table runs on without them",
                self.host or "*",
                self.port,
                e.strerror or e,
            )
            return
        server.daemon_threads = True
        self.server = server
        self.port = int(server.server_address[1])
        self.thread = threading.Thread(target=server.serve_forever, name="rhuna-web", daemon=True)
        self.thread.start()
        log.info("[web] serving %s on http://%s:%d/", self.root, self.host or "*", self.port)

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        if self.thread is not None:
            self.thread.join(5)
            self.thread = None


def page_server(service: Service) -> PageServer | None:
    """The page server ``[web]`` asks for: none unless ``dir`` is set."""
    config = service.config
    if config.web_dir is None:
        return None
    return PageServer(config.web_dir, config.web_host, config.web_port)
