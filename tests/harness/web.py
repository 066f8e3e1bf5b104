"""The web pages' test rig: a Mosquitto with a websockets listener, the real service, Chromium.

- :class:`WebBroker` is the MQTT tests' :class:`~tests.harness.broker.Broker` with a
  ``protocol websockets`` listener beside the plain one, serving ``web/dist`` with
  ``http_dir`` (as on the Pi, docs/web-serving.md). Mosquitto 2.0 binds that listener on
  every interface whatever address it is given, so it always runs with a password file and
  an ACL: ``rhuna`` (the service) may publish, ``viewer`` (the pages) may only read.
- :class:`ServedTable` is the service as ``rhuna-table run`` builds it from an emulated
  config (journal, loop, emulated token hub on a pty, MQTT bridge), run on a thread so a
  test can lay tokens on its emulated hub.
- :class:`AccountsBroker` is a Mosquitto with the accounts ``rhuna-table accounts`` generates
  (passwd + ACL; gm.html logs in with them) and a websockets listener serving ``web/dist``;
  :data:`PHONE` is the viewport of the phone the WorldKeeper's remote runs on.
- :func:`launch_chromium` is Debian's Chromium driven by Playwright's Python package
  (``executable_path``; no browser is ever downloaded): its headless shell for the suite,
  ``/usr/bin/chromium`` where a figure or a picture is made.

In CI a missing browser, broker, Playwright or built pages fail; elsewhere they skip.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from companion.config import load_config
from companion.mqtt import MqttBridge
from companion.ops import accounts as A
from companion.service import Service
from engine.view import table_view
from tests.harness import ROOT, missing_real_part, wait_until
from tests.harness.broker import WAIT, Broker, free_port
from tests.harness.service import PNG_PANEL, write_config

DIST = ROOT / "web" / "dist"
#: a phone's viewport: the WorldKeeper's remote (gm.html) is used on one
PHONE = {"width": 390, "height": 844}
#: the full browser, a streamer's and a WorldKeeper's: benchmarks and the README's pictures
CHROMIUM = Path("/usr/bin/chromium")
#: the suite's browser: Debian's ``chromium-headless-shell``, the same Chromium source and
#: version built without the desktop browser around Blink (what Playwright itself runs for
#: headless). The suite's pages cost a third less CPU in it (tests/web: 309+73 CPU-s and 458 s
#: on three workers in full Chromium, 210+49 and 306 s in it); test_web_headless_shell holds
#: the two to the same pixels
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
#: screenshots and logs the browser tests leave behind (ignored by git)
ARTEFACTS = ROOT / "test-artefacts" / "web"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SERVICE_USER, SERVICE_PASSWORD = "rhuna", "service-secret"
VIEWER_USER, VIEWER_PASSWORD = "viewer", "viewer-secret"


#: what a page URL carries in its fragment, as `rhuna-table accounts urls` prints it
FRAGMENT = ("broker", "username", "user", "password")


def address(base: str, params: dict[str, Any], *, old_form: bool = False) -> str:
    """``base`` with ``params``: the login and the broker in the fragment (``#…``, never sent
    to a server), the rest in the query; ``old_form``: all in the query, as before issue 29."""
    if old_form:
        return f"{base}?{urlencode(params)}"
    query = {k: v for k, v in params.items() if k not in FRAGMENT}
    fragment = {k: v for k, v in params.items() if k in FRAGMENT}
    return (
        base
        + (f"?{urlencode(query)}" if query else "")
        + (f"#{urlencode(fragment)}" if fragment else "")
    )


def built_pages() -> Path:
    """``web/dist``, built by ``make web``."""
    if not (DIST / "BUILT").exists():
        missing_real_part("the built web pages (run `make web`)")
    return DIST


def mosquitto_passwd() -> str:
    found = shutil.which("mosquitto_passwd") or (
        "/usr/bin/mosquitto_passwd" if os.access("/usr/bin/mosquitto_passwd", os.X_OK) else None
    )
    if found is None:
        missing_real_part("mosquitto_passwd (Debian package mosquitto)")
    assert found is not None
    return found


def write_accounts(folder: Path) -> tuple[Path, Path]:
    """A password file and ACL: the service reads and writes ``rhuna/#``, the viewer reads."""
    folder.mkdir(parents=True, exist_ok=True)
    passwords, acl = folder / "passwords", folder / "acl"
    passwords.write_text("")
    for user, password in ((SERVICE_USER, SERVICE_PASSWORD), (VIEWER_USER, VIEWER_PASSWORD)):
        subprocess.run(
            [mosquitto_passwd(), "-b", str(passwords), user, password],
            check=True,
            capture_output=True,
        )
    acl.write_text(
        f"user {SERVICE_USER}\ntopic readwrite rhuna/#\n\nuser {VIEWER_USER}\ntopic read rhuna/#\n"
    )
    return passwords, acl


class WebBroker(Broker):
    """Mosquitto with a plain listener and a websockets one that serves the built pages."""

    def __init__(self, workdir: Path, *, ws_port: int | None = None, extra: str = "") -> None:
        """``extra``: more lines for its config (a bridge to a venue: benchmarks/glass.py)."""
        passwords, acl = write_accounts(workdir / "accounts")
        self.ws_port = ws_port or free_port()
        super().__init__(
            workdir,
            extra=(
                f"password_file {passwords}\nacl_file {acl}\n"
                # the plain listener comes first: its line is where Broker puts it
                f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n"
                f"http_dir {built_pages()}\nset_tcp_nodelay true\n{extra}"
            ),
        )

    def url(self, page: str, *, old_form: bool = False, **params: Any) -> str:
        """A page's URL on this broker, logged in as the viewer (in the fragment)."""
        query = {"username": VIEWER_USER, "password": VIEWER_PASSWORD, **params}
        return address(f"http://127.0.0.1:{self.ws_port}/{page}", query, old_form=old_form)


@contextmanager
def running_web_broker(workdir: Path) -> Iterator[WebBroker]:
    broker = WebBroker(workdir)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


class AccountsBroker(Broker):
    """Mosquitto with the generated accounts, and a websockets listener serving web/dist."""

    def __init__(self, workdir: Path, tables: tuple[str, ...] = ("example",)) -> None:
        self.folder = workdir / "mqtt"
        self.accounts = A.Accounts()
        for table in tables:
            self.accounts = A.add_table(self.accounts, table)
        A.save(self.folder, self.accounts)
        self.ws_port = free_port()
        super().__init__(
            workdir,
            extra=(
                f"password_file {self.folder / A.PASSWD_FILE}\nacl_file {self.folder / A.ACL_FILE}\n"
                f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n"
                f"http_dir {built_pages()}\nset_tcp_nodelay true\n"
            ),
        )

    def login(self, role: str, table: str = "example") -> tuple[str, str]:
        t = self.accounts.tables[table]
        password = {"service": t.service, "gm": t.gm}.get(role) or t.viewers[role]
        return A.user(table, role), password

    def url(
        self, role: str = "gm", login_table: str = "example", old_form: bool = False, **params: Any
    ) -> str:
        user, password = self.login(role, login_table)
        query = {
            "broker": f"ws://127.0.0.1:{self.ws_port}/",
            "table": "example",
            "username": user,
            "password": password,
            **params,
        }
        return address(f"http://127.0.0.1:{self.ws_port}/gm.html", query, old_form=old_form)


class ServedTable:
    """The real service on an emulated config, publishing on ``broker``; lay tokens on its hub."""

    def __init__(
        self,
        folder: Path,
        broker: Broker,
        table_id: str | None = None,
        table_file: Path | None = None,
        login: tuple[str, str] = (SERVICE_USER, SERVICE_PASSWORD),
        mqtt_extra: str = "",
        serve_pages: bool = False,
        display: str = PNG_PANEL,
        pages: Path | None = None,
    ) -> None:
        #: ``display``: another ``[display]`` section (a Waveshare on tests.harness.epaper's
        #: stand-in); ``serve_pages``: the service serves web/dist itself (``[web]``, as on the Pi),
        #: or ``pages``, a folder of the caller's (never write into the checkout's web/dist:
        #: another worker copies it meanwhile)
        self.web_port = free_port() if serve_pages else None
        self.broker = broker
        extra = (
            f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
            f'username = "{login[0]}"\npassword = "{login[1]}"\n'
            "reconnect_min_delay = 1\nreconnect_max_delay = 1\n"
            + (f'table_id = "{table_id}"\n' if table_id else "")
            + mqtt_extra
        )
        if self.web_port is not None:
            extra += f'\n[web]\ndir = "{pages or built_pages()}"\nport = {self.web_port}\nhost = "127.0.0.1"\n'
        config = write_config(folder, extra, display=display)
        if table_file is not None:  # another table file than the example's (a fight's)
            shutil.copy(table_file, folder / "table.toml")
        self.config = load_config(config)
        self.service = Service(self.config)
        self.stop_flag = threading.Event()
        self.thread = threading.Thread(target=self.service.run, args=(self.stop_flag,), daemon=True)
        self.thread.start()
        wait_until(lambda: self.service.extensions and self.service.readers, "the service to start")
        [self.bridge] = [e for e in self.service.extensions if isinstance(e, MqttBridge)]
        assert self.bridge.wait_ready(WAIT), "the service's MQTT bridge did not connect"
        assert self.service.readers[0].wait_online(WAIT), "the emulated hub did not come up"
        self.hub = self.service.emulators["draw-board"]
        if self.web_port is not None:
            port = self.web_port

            def serving() -> bool:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    return True
                except OSError:
                    return False

            wait_until(serving, "the service to serve the pages ([web])")
        self.slot = 0  # the next free Draw Board slot

    def page_url(self, page: str, *, old_form: bool = False, **params: Any) -> str:
        """A page's URL on the service's own page server (``serve_pages``), logged in as the
        viewer, with the broker's WebSocket URL as ``rhuna-table accounts urls`` prints it."""
        assert self.web_port is not None, "this table does not serve the pages"
        ws = getattr(self.broker, "ws_port", None)
        query = {
            "broker": f"ws://127.0.0.1:{ws}/",
            "username": VIEWER_USER,
            "password": VIEWER_PASSWORD,
            **params,
        }
        return address(f"http://127.0.0.1:{self.web_port}/{page}", query, old_form=old_form)

    def command(self, cmd: dict[str, Any]) -> Any:
        """Submit a command as the table's own input would; wait until it is committed."""
        done = threading.Event()
        result: list[Any] = []

        def seen(outcome: Any) -> None:
            if outcome.command is cmd:
                result.append(outcome)
                done.set()

        owner = object()
        self.service.loop.subscribe(owner, seen)
        try:
            self.service.loop.submit(cmd, "test")
            assert done.wait(WAIT), f"the service did not take {cmd}"
        finally:
            self.service.loop.unsubscribe(owner)
        assert result[0].error is None, result[0].error
        return result[0]

    def lay(self, token: str) -> None:
        """Lay ``token`` on the next free Draw Board slot (0–3) of the emulated hub, as a player
        would; with all four taken, the board is cleared first."""
        if self.slot == 4:
            self.clear_board()
        self.hub.lay(self.slot, self.service.registry.uid(token))
        self.slot += 1

    def clear_board(self, timeout: float = WAIT) -> None:
        """Take every token off the Draw Board and wait until the reader has seen each go (a
        token laid again before that would still be "present", and draw nothing)."""
        laid = set(range(self.slot))
        gone: set[int] = set()
        done = threading.Event()

        def seen(outcome: Any) -> None:
            tag = outcome.tag
            if tag is not None and not tag.present and tag.channel in laid:
                gone.add(tag.channel)
                if gone == laid:
                    done.set()

        owner = object()
        self.service.loop.subscribe(owner, seen)
        try:
            for slot in range(4):
                self.hub.lift(slot)
            if laid:
                assert done.wait(timeout), f"the reader did not see slots {laid - gone} emptied"
        finally:
            self.service.loop.unsubscribe(owner)
        self.slot = 0

    def close(self) -> None:
        self.stop_flag.set()
        self.thread.join(WAIT)


@contextmanager
def served_table(
    folder: Path,
    broker: Broker,
    table_id: str | None = None,
    table_file: Path | None = None,
    login: tuple[str, str] = (SERVICE_USER, SERVICE_PASSWORD),
    mqtt_extra: str = "",
    serve_pages: bool = False,
    display: str = PNG_PANEL,
) -> Iterator[ServedTable]:
    table = ServedTable(
        folder, broker, table_id, table_file, login, mqtt_extra, serve_pages, display
    )
    try:
        yield table
    finally:
        table.close()


def launch_chromium(playwright: Any, executable: Path = HEADLESS_SHELL) -> Any:
    """Debian's Chromium under Playwright, headless, with nothing phoning home: the suite's
    :data:`HEADLESS_SHELL`, or ``executable`` (:data:`CHROMIUM`, the full browser). Without
    the shell (a system whose archive lacks the package; scripts/bootstrap says so) the
    suite runs in the full browser, only slower; in CI the shell must be there."""
    if executable == HEADLESS_SHELL and not executable.exists():
        if os.environ.get("CI") == "true":
            missing_real_part("Chromium's headless shell (Debian package chromium-headless-shell)")
        executable = CHROMIUM
    if not executable.exists():
        package = "chromium" if executable == CHROMIUM else executable.name
        missing_real_part(f"Chromium (Debian package {package})")
    from playwright.sync_api import expect

    # expect()'s own default wait is 5 s, half the harness's WAIT: on a loaded machine a page
    # paints later, and an assertion that would hold gives up first
    expect.set_options(timeout=WAIT * 1000)
    return playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_FLAGS)


@contextmanager
def playwright_chromium(executable: Path = HEADLESS_SHELL) -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing_real_part("Playwright (pip package playwright, in the test extras)")
    with sync_playwright() as p:
        browser = launch_chromium(p, executable)
        try:
            yield browser
        finally:
            browser.close()


def scroll_to(locator: Any) -> None:
    """Playwright's ``scroll_into_view_if_needed``, found again when the page rebuilt the element
    between finding and scrolling it. That one call does not retry as a click does: it throws
    "Element is not attached to the DOM", and a gm panel is rebuilt whenever a newer state
    changes what it shows (CI saw it once, a Full Rest prompt's card). Retried only on that,
    until a generous deadline."""
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + WAIT
    while True:
        try:
            locator.scroll_into_view_if_needed(timeout=WAIT * 1000)
            return
        except PlaywrightError as e:
            if "not attached" not in str(e) or time.monotonic() > deadline:
                raise


def painted(page: Any, more: int = 1) -> None:
    """``more`` paints of the page begun after this call (its own count, ``rhuna.paints``,
    web/src/app.ts; an idle page repaints every second). One is enough to see what the store
    holds now: a paint runs whole between two looks, on the page's one thread, and reads the
    newest snapshot; a second would cost a second of the one-second repaint each time."""
    n = page.evaluate("window.rhuna.paints")
    page.wait_for_function("n => window.rhuna.paints >= n", arg=n + more, timeout=WAIT * 1000)


def quiet(page: Any) -> None:
    """No animation running (a token arriving, an outcome landing, a meter swinging)."""
    page.wait_for_function("document.getAnimations().length === 0", timeout=WAIT * 1000)


def settle(page: Any) -> None:
    """What the store holds now is on the page, and nothing on it still moves: a paint begun
    after this call (:func:`painted`), then no animation running (:func:`quiet`)."""
    painted(page)
    quiet(page)


def screenshot(page: Any, name: str) -> Path:
    """Save a screenshot of ``page`` as a test artefact; returns its path."""
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTEFACTS / f"{name}.png"
    quiet(page)  # a token arriving or an outcome landing is animated: picture it settled
    page.screenshot(path=str(path))
    return path


#: axe-core, the npm devDependency in web/ (`make web` installs it)
AXE = ROOT / "web" / "node_modules" / "axe-core" / "axe.min.js"


def axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.2 AA violations on ``page`` (injected from web/node_modules): each
    rule's id and its first three nodes."""
    if not AXE.exists():
        missing_real_part("axe-core (npm devDependency in web/: make web)")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        """() => axe.run(document, {runOnly: {type: 'tag', values:
             ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}})"""
    )
    return [
        {"id": v["id"], "nodes": [n["html"][:120] for n in v["nodes"][:3]]}
        for v in result["violations"]
    ]


def publish_retained(broker: WebBroker, messages: dict[str, str]) -> None:
    """Publish each topic's payload retained, as the service's user (QoS 1, each acknowledged):
    a test's hand-made tables beside the served one."""
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.username_pw_set(SERVICE_USER, SERVICE_PASSWORD)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    for topic, body in messages.items():
        client.publish(topic, body, qos=1, retain=True).wait_for_publish(WAIT)
    client.disconnect()
    client.loop_stop()


def finish_draws(table: ServedTable, seed: int = 7) -> None:
    """Every declared hero draws what is left (seeded draws), so the Performance may resolve."""
    for _ in range(12):
        view = json.loads(json.dumps(table_view(table.service.loop.state)))
        left = [c for c in view["performance"]["contributions"] if c["draws_left"] > 0]
        if not left:
            return
        table.command({"cmd": "draw", "hero": left[0]["hero"], "seed": seed})
