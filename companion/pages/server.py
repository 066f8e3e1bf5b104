"""``[web]``: the service serves the web pages (and, when asked, the recaps) over plain HTTP.

Why the service and not only Mosquitto's ``http_dir``: Mosquitto 2.0 serves its websockets
listener once per pass of its main loop, and a quiet broker passes every 100 ms; a page from
``http_dir`` costs three passes before its first byte of HTML is parsed (docs/web.md, "How fast
a page paints", measured by benchmarks/web.py). From here a page arrives in a few ms and opens
its WebSocket to the broker at once. Mosquitto's ``http_dir`` still serves the same folder on
its websockets port, so a page opened while the service is down still loads and says so.

Only files under ``dir`` (their real path: a symlink out of it is a 404, as ``http_dir``
refuses one): GET and HEAD, no directory listings, no writes. Nothing it serves is secret (the
pages take the broker login from their URL's fragment, which a browser never sends:
docs/web.md).

Bounded, because it listens on every interface with no login (issue 29; docs/web.md,
"The page server's bounds"):

- one thread and one asyncio loop for every connection (not a thread each);
- a request head (request line and headers) of at most :data:`HEAD_LIMIT` bytes, else 431;
- at most ``max_connections`` at once: past it, the connection waiting longest for its
  request head is closed to make room (a slow or half-open client cannot keep a browser out),
  and one warning says the cap was reached (one per episode, not one per connection);
- a request head must arrive within ``timeout`` seconds of the connection (or of the last
  response, kept alive), however slowly it trickles in, and an answer must be taken within
  as long (a client that never reads cannot hold a connection);
- a NUL or undecodable path is a 400; every response has ``Cache-Control: no-store``,
  ``Referrer-Policy: no-referrer`` and ``X-Content-Type-Options: nosniff``;
- the log has the method, the path without its query and the status, at debug: never a query.

Recaps (``/recaps/…``, the ``[record] recaps`` folder) only with ``[web] recaps = true``.

**The first state inlined** (issue 42 item 7): a page (``*.html``) is served with the table's
public retained topics as the MQTT bridge last published them, in a JSON block
(``<script id="rhuna-first" type="application/json">``, :func:`inline_first_state`), so
it paints the table at once, before its WebSocket to the broker is open; the broker's
retained copies then take over. Only what every login of the table may read (the bridge's
``first_state``: never a worldkeeper topic), since this server sees no login. Whoever can
reach the port can read that much without a login; ``[web] first_state = false`` serves the
pages as built instead, and each page then paints once its own login is in at the broker.

>>> PageServer(Path("web/dist"), "127.0.0.1", 0).root.name
'dist'
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import mimetypes
import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Protocol
from urllib.parse import unquote_to_bytes

if TYPE_CHECKING:
    from companion.table.loop import TableLoop

log = logging.getLogger("rhuna.web")

#: the request line and every header together, bytes (nginx's large_client_header_buffers
#: allow 4 × 8 KiB; a browser's GET of a page is under 1 KiB)
HEAD_LIMIT = 16 * 1024
DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_TIMEOUT = 10.0
#: after an error reply, the rest of what the client sends is read (and dropped) for this
#: long or this many bytes before closing, so the reply is not lost to a TCP reset
LINGER_S, LINGER_BYTES = 1.0, 1 << 20

#: the pages' own types, with their charset (the rest: the standard library's guess)
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
    ".csv": "text/csv; charset=utf-8",
    ".svg": "image/svg+xml",
}
_REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    408: "Request Timeout",
    431: "Request Header Fields Too Large",
    501: "Not Implemented",
    503: "Service Unavailable",
    505: "HTTP Version Not Supported",
}
#: on every response
SAFE_HEADERS = (
    b"Cache-Control: no-store\r\n"
    b"Referrer-Policy: no-referrer\r\n"
    b"X-Content-Type-Options: nosniff\r\n"
)


def content_type(path: str) -> str:
    suffix = os.path.splitext(path)[1].lower()
    return _TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"


class BadRequest(Exception):
    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    """(method, path without its query, version, headers lower-cased) of a request head.

    >>> parse_head(b"GET /a%20b.html?password=x HTTP/1.1\\r\\nHost: h\\r\\n\\r\\n")[:3]
    ('GET', '/a b.html', 'HTTP/1.1')
    >>> try:
    ...     parse_head(b"GET /%00 HTTP/1.1\\r\\n\\r\\n")
    ... except BadRequest as e:
    ...     e.status
    400
    """
    try:
        text = head.decode("latin-1")
        line, *rest = text.split("\r\n")
        method, target, version = line.split(" ")
    except ValueError:
        raise BadRequest(400) from None
    if not version.startswith("HTTP/1."):
        raise BadRequest(505 if version.startswith("HTTP/") else 400)
    raw = target.split("?", 1)[0].split("#", 1)[0]
    if not raw.startswith("/"):
        raise BadRequest(400)
    try:
        path = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(400) from None
    if "\x00" in path:
        raise BadRequest(400)
    headers: dict[str, str] = {}
    for h in rest:
        if not h:
            continue
        name, sep, value = h.partition(":")
        if not sep or not name or name != name.strip():
            raise BadRequest(400)
        headers[name.lower()] = value.strip()
    return method, path, version, headers


def resolve(root: str, path: str) -> str | None:
    """The real path of the file ``path`` names under ``root`` (a real path), or None when it
    is not a regular file inside ``root`` once every symlink is followed.

    >>> resolve("/usr/lib", "/../share/doc") is None  # outside, though it exists
    True
    """
    full = os.path.realpath(os.path.join(root, path.lstrip("/")))
    if full != root and not full.startswith(root + os.sep):
        return None
    return full if os.path.isfile(full) else None


class _Conn:
    __slots__ = ("since", "task", "waiting", "writer")

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self.task: asyncio.Task[None] | None = None
        #: waiting for a request head (may be closed to make room); since when
        self.waiting = True
        self.since = time.monotonic()


class PageServer:
    """An extension (companion/service.py, ``[web]``): serves ``root`` on ``host``:``port`` from a thread,
    and ``/recaps/…`` from ``recaps`` when given."""

    def __init__(
        self,
        root: Path,
        host: str,
        port: int,
        *,
        recaps: Path | None = None,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        timeout: float = DEFAULT_TIMEOUT,
        first_state: bool = True,
    ) -> None:
        self.root = root
        #: ``[web] first_state``: off, :meth:`take_first_state` is ignored (pages come as built)
        self.first_state = first_state
        self.host = host
        self.port = port
        self.recaps = recaps
        self.max_connections = max_connections
        self.timeout = timeout
        self.server: asyncio.Server | None = None
        self.thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._conns: dict[_Conn, None] = {}  # in order of arrival
        self._capped = False  # the cap was reached and not yet left (one warning per episode)
        self.closed_at_cap = 0
        self.refused_at_cap = 0
        #: the public retained topics to inline in a page (topic → payload), or None: the
        #: bridge's ``first_state`` (companion.service wires it; any thread may call it)
        self.inline: Callable[[], Mapping[str, str]] | None = None

    def take_first_state(self, source: Callable[[], Mapping[str, str]]) -> None:
        """Inline ``source()`` (public retained topics only) in every page served, unless
        ``[web] first_state = false`` turned it off: then a page learns the table only from
        the broker, through its own login."""
        if self.first_state:
            self.inline = source

    # --- the thread ----------------------------------------------------------------------

    def start(self, loop: TableLoop | None = None) -> None:
        if not self.root.is_dir():
            log.warning(
                "[web] dir %s is not a folder (yet): the pages are not served until it is — "
                "build them (make web) or install them (systemd/install.sh)",
                self.root,
            )
        aloop = asyncio.new_event_loop()
        try:
            self.server = aloop.run_until_complete(
                asyncio.start_server(
                    self._serve, self.host or None, self.port, limit=HEAD_LIMIT, backlog=128
                )
            )
        except OSError as e:
            aloop.close()
            log.error(
                "[web] cannot serve the pages on %s:%d (%s) — choose another web.port, or stop"
                " what holds it; the table runs on without them",
                self.host or "*",
                self.port,
                e.strerror or e,
            )
            return
        self._loop = aloop
        self.port = int(self.server.sockets[0].getsockname()[1])
        self.thread = threading.Thread(target=aloop.run_forever, name="rhuna-web", daemon=True)
        self.thread.start()
        log.info(
            "[web] serving %s on http://%s:%d/ (%d connections at most%s)",
            self.root,
            self.host or "*",
            self.port,
            self.max_connections,
            ", recaps under /recaps/" if self.recaps is not None else "",
        )

    def stop(self) -> None:
        aloop, server = self._loop, self.server
        if aloop is not None and server is not None and self.thread is not None:

            async def close() -> None:
                server.close()
                for c in list(self._conns):
                    c.writer.transport.abort()
                    if c.task is not None:
                        c.task.cancel()
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(server.wait_closed(), 2)

            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(close(), aloop).result(5)
            aloop.call_soon_threadsafe(aloop.stop)
            self.thread.join(5)
            if not self.thread.is_alive():
                aloop.close()
        self.server = None
        self.thread = None
        self._loop = None

    # --- connections ---------------------------------------------------------------------

    def _admit(self, conn: _Conn) -> bool:
        """Room for ``conn``: past the cap, close the one waiting longest for its head."""
        if len(self._conns) >= self.max_connections:
            if not self._capped:
                self._capped = True
                log.warning(
                    "[web] %d connections at once, the cap (web.max_connections): the one"
                    " waiting longest for its request is closed for each new one (a slow or"
                    " hostile client; this is said once until they drop below %d)",
                    self.max_connections,
                    self.max_connections // 2,
                )
            oldest = min((c for c in self._conns if c.waiting), key=_since, default=None)
            if oldest is None:  # every one busy sending a page: this one waits no turn
                self.refused_at_cap += 1
                return False
            self.closed_at_cap += 1
            self._drop(oldest)
        self._conns[conn] = None
        return True

    def _drop(self, conn: _Conn) -> None:
        self._conns.pop(conn, None)
        conn.writer.transport.abort()
        if conn.task is not None and conn.task is not asyncio.current_task():
            conn.task.cancel()
        if self._capped and len(self._conns) <= self.max_connections // 2:
            self._capped = False
            log.info(
                "[web] back to %d connections: %d were closed to make room, %d refused",
                len(self._conns),
                self.closed_at_cap,
                self.refused_at_cap,
            )

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = _Conn(writer)
        conn.task = asyncio.current_task()
        if not self._admit(conn):
            with contextlib.suppress(Exception):
                writer.write(self._head(503, b"text/plain", 0, close=True))
            writer.transport.abort()
            return
        try:
            while await self._one(conn, reader, writer):
                pass
        except (ConnectionError, asyncio.CancelledError, TimeoutError, OSError):
            pass
        except Exception:  # a bug here must not end the server
            log.exception("[web] a request failed")
        finally:
            self._drop(conn)

    async def _one(
        self, conn: _Conn, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """One request; True to keep the connection for another."""
        conn.waiting, conn.since = True, time.monotonic()
        try:
            async with asyncio.timeout(self.timeout):
                head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.LimitOverrunError:
            await self._error(writer, reader, 431)
            return False
        except (asyncio.IncompleteReadError, TimeoutError):
            return False  # closed mid-head, or too slow (closed without a word, like nginx)
        conn.waiting = False
        try:
            method, path, version, headers = parse_head(head[:-4])
        except BadRequest as e:
            await self._error(writer, reader, e.status)
            return False
        keep = (
            headers.get("connection", "").lower() != "close"
            if version == "HTTP/1.1"
            else headers.get("connection", "").lower() == "keep-alive"
        )
        if method not in ("GET", "HEAD"):
            log.debug("web: %s %s 501", method[:16], path[:200])
            await self._error(writer, reader, 501)
            return False
        if "content-length" in headers or "transfer-encoding" in headers:
            await self._error(writer, reader, 400)  # a GET with a body: not ours to read
            return False
        file = self._file(path)
        if file is None:
            log.debug("web: %s %s 404", method, path[:200])
            body = b"Not Found\n"
            writer.write(self._head(404, b"text/plain; charset=utf-8", len(body), close=not keep))
            if method == "GET":
                writer.write(body)
        else:
            try:
                data: bytes | None = _read(file)  # the page cache's: microseconds
            except OSError:
                data = None
            if data is None:
                body = b"Not Found\n"
                writer.write(self._head(404, b"text/plain; charset=utf-8", len(body), not keep))
                if method == "GET":
                    writer.write(body)
            else:
                log.debug("web: %s %s 200", method, path[:200])
                if (
                    file.endswith(".html")
                    and self.inline is not None
                    and not (path == "/recaps" or path.startswith("/recaps/"))
                ):
                    data = inline_first_state(data, self.inline())
                ctype = content_type(file).encode("latin-1")
                writer.write(self._head(200, ctype, len(data), close=not keep))
                if method == "GET":
                    writer.write(data)
        async with asyncio.timeout(self.timeout):  # a client that never reads holds no slot
            await writer.drain()
        return keep

    def _file(self, path: str) -> str | None:
        if path == "/recaps" or path.startswith("/recaps/"):
            if self.recaps is None:
                return None
            return resolve(os.path.realpath(self.recaps), path[len("/recaps") :])
        return resolve(os.path.realpath(self.root), path)

    @staticmethod
    def _head(status: int, ctype: bytes, length: int, close: bool) -> bytes:
        return (
            f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n".encode()
            + b"Content-Type: "
            + ctype
            + f"\r\nContent-Length: {length}\r\n".encode()
            + SAFE_HEADERS
            + (b"Connection: close\r\n" if close else b"")
            + b"\r\n"
        )

    async def _error(
        self, writer: asyncio.StreamWriter, reader: asyncio.StreamReader, status: int
    ) -> None:
        """Answer ``status`` and close, reading what the client still sends for a moment so
        the answer is not lost to a TCP reset (a lingering close, like nginx's)."""
        body = f"{status} {_REASONS.get(status, 'Error')}\n".encode()
        writer.write(self._head(status, b"text/plain; charset=utf-8", len(body), close=True))
        writer.write(body)
        with contextlib.suppress(Exception):
            await writer.drain()
            if writer.can_write_eof():
                writer.write_eof()
            got = 0
            async with asyncio.timeout(LINGER_S):
                while got < LINGER_BYTES:
                    chunk = await reader.read(65536)
                    if not chunk:
                        break
                    got += len(chunk)


#: where the first state goes: just before the page's ``</head>`` (after the preconnect script
#: and the style, before the page's own script, which reads it as it boots)
_HEAD_END = b"</head>"


def inline_first_state(page: bytes, topics: Mapping[str, str]) -> bytes:
    """``page`` with ``topics`` (topic → payload text) in a JSON block before its ``</head>``:
    no script runs from it, and ``<`` is escaped so no payload can close the block.

    >>> print(inline_first_state(b"<head></head>", {"rhuna/t/state": "</script>"}).decode())
    <head><script id="rhuna-first" type="application/json">{"rhuna/t/state": "\\u003c/script>"}</script></head>
    >>> inline_first_state(b"<head></head>", {})  # nothing published yet: the page as it is
    b'<head></head>'
    """
    at = page.find(_HEAD_END)
    if not topics or at < 0:
        return page
    text = json.dumps(dict(topics), ensure_ascii=True).replace("<", "\\u003c")
    block = f'<script id="rhuna-first" type="application/json">{text}</script>'.encode("ascii")
    return page[:at] + block + page[at:]


def _since(conn: _Conn) -> float:
    return conn.since


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


class WebSettings(Protocol):
    """What the page server reads of the checked config: ``[web]``, and ``[record] recaps``."""

    @property
    def web_dir(self) -> Path | None: ...
    @property
    def web_host(self) -> str: ...
    @property
    def web_port(self) -> int: ...
    @property
    def web_recaps(self) -> bool: ...
    @property
    def recaps_dir(self) -> Path | None: ...
    @property
    def web_max_connections(self) -> int: ...
    @property
    def web_timeout(self) -> float: ...
    @property
    def web_first_state(self) -> bool: ...


class WebHost(Protocol):
    """What the ``[web]`` factory is handed (companion.service.Collaborators): the config."""

    @property
    def config(self) -> WebSettings: ...


def page_server(host: WebHost) -> PageServer | None:
    """The page server ``[web]`` asks for: none unless ``dir`` is set."""
    config = host.config
    if config.web_dir is None:
        return None
    return PageServer(
        config.web_dir,
        config.web_host,
        config.web_port,
        recaps=config.recaps_dir if config.web_recaps else None,
        max_connections=config.web_max_connections,
        timeout=config.web_timeout,
        first_state=config.web_first_state,
    )
