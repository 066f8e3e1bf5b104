"""axe-core's WCAG 2.2 AA rules in every theme and state, as one matrix (issue 42 item 10):
each public page and the remote (overlay.html, table.html, tables.html, gm.html) × each theme
the pages have (stream, dark, light, contrast) × each state a table is seen in on air:

- ``outcome``: a Performance resolved, a FAILURE banner up (its dark text on the light
  theme's red was 2.98:1);
- ``offline``: the same table, the broker gone: every page greys what it last had (the
  overlay's dimming took 52 texts under 4.5:1);
- ``stale``: the same table, its service gone quiet (no ``…/info`` for 31 s: the page's own
  clock, moved on by Playwright, not waited for);
- ``fight``: the example fight, its round and who acts, the combat wheel;
- ``heroes12``: twelve heroes, each declared in one Performance and drawing.

Each cell is one test, ``<page>-<theme>-<state>`` (``table-light-stale``), with its screenshot
in test-artefacts/web/axe-<cell>.png and its violations in axe-<cell>.json. The states are the
engine's own views (``companion.mqtt.messages.state_messages``, as the service publishes
them) published retained on a real Mosquitto, one broker a state (the wall shows every table
of its broker: one state each), started once for the module and shared by its 16 cells; one
Chromium for the whole matrix, and one page a state and page, put in each theme in turn
(:class:`Matrix`); an ``offline`` page's broker is stopped once the page is live and started
again after its four themes. Debian's Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import engine
from companion.mqtt.messages import state_messages
from companion.mqtt.topics import Topics
from engine.view import table_view
from tests.harness import ARIA, BEGIN, ROOT, missing_real_part
from tests.harness.broker import WAIT
from tests.harness.record import fight_commands
from tests.harness.web import (
    ARTEFACTS,
    PHONE,
    SERVICE_PASSWORD,
    SERVICE_USER,
    WebBroker,
    axe,
    built_pages,
    painted,
    playwright_chromium,
    publish_retained,
    quiet,
)

try:
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion
    from playwright.sync_api import expect
except ImportError:  # a developer's machine without the test extras; in CI a failure
    missing_real_part("Playwright and paho-mqtt (the test extras)")

MS = WAIT * 1000
EXAMPLES = ROOT / "examples"
PAGES = {
    "overlay": (1280, 720),
    "table": (1280, 800),
    "tables": (1920, 1080),
    "gm": (PHONE["width"], PHONE["height"]),
}
THEMES = ("stream", "dark", "light", "contrast")
STATES = ("outcome", "offline", "stale", "fight", "heroes12")
CELLS = [(p, t, s) for s in STATES for p in PAGES for t in THEMES]
#: web/src/model.ts: INFO_LATE_MS, and a second more: the page's clock moved on this far
QUIET_MS = 32_000

#: nine more heroes for a table of twelve, each with a Training to declare
NAMES = ["dara", "eli", "fen", "gale", "hale", "ivo", "jun", "kai", "lio"]
PATHWAYS = [("skill", "lore", "wild"), ("steel", "faith", "wild"), ("shadow", "lore", "skill")]


def twelve_heroes() -> str:
    """The example table with nine heroes more (twelve)."""
    table = (EXAMPLES / "table.toml").read_text("utf-8")
    more = []
    for n, hero in enumerate(NAMES):
        a, b, c = PATHWAYS[n % 3]
        more.append(
            f'[[heroes]]\nid = "{hero}"\nname = "{hero.capitalize()}"\n'
            f'pathways = {{ {a} = "control", {b} = "versatility", {c} = "impulse" }}\n'
            f'training = {{ {a} = "adept", {b} = "trained" }}\nfavor = 1\n'
        )
    cut = table.index("# The 23-token Favor Bag")
    return table[:cut] + "\n".join(more) + "\n" + table[cut:]


def drawn_out(state: Any, seed: int) -> Any:
    """Every declared hero draws what is left (seeded)."""
    for _ in range(40):
        left = [c for c in table_view(state)["performance"]["contributions"] if c["draws_left"] > 0]
        if not left:
            break
        state, _ = engine.apply(state, {"cmd": "draw", "hero": left[0]["hero"], "seed": seed})
    return state


def the_state(name: str, folder: Path) -> Any:
    """The engine's state a table is in for ``name``."""
    if name == "fight":
        state = engine.load_table(EXAMPLES / "fight.toml")
        for command in fight_commands()[:4]:
            state, _ = engine.apply(state, command)
        assert state.combat is not None and state.combat.fight is not None, "no fight started"
        return state
    if name == "heroes12":
        path = folder / "twelve.toml"
        path.write_text(twelve_heroes(), "utf-8")
        state = engine.load_table(path)
        state, _ = engine.apply(state, dict(BEGIN))
        for n, hero in enumerate(["aria", "bren", "cass", *NAMES]):
            capability = "skill" if hero == "aria" else PATHWAYS[(n - 3) % 3][0]
            if hero in ("bren", "cass"):
                capability = {"bren": "steel", "cass": "shadow"}[hero]
            declare = {"cmd": "declare", "hero": hero, "shade": "control",
                       "capability": capability, "action": "target"}  # fmt: skip
            state, _ = engine.apply(state, declare)
        for n, hero in enumerate(["aria", "bren", "cass", *NAMES]):
            state, _ = engine.apply(state, {"cmd": "draw", "hero": hero, "seed": 11 + n % 3})
        return state
    # outcome, offline, stale: Aria's 3 vs 5 (seed 1), a FAILURE banner
    state = engine.load_table(EXAMPLES / "table.toml")
    for command in (BEGIN, ARIA):
        state, _ = engine.apply(state, dict(command))
    state, events = engine.apply(drawn_out(state, seed=1), {"cmd": "resolve"})
    [done] = [e for e in events if e.type == "performance_resolved"]
    assert done.data["success"] is False
    return state


def info(now: datetime) -> str:
    stamp = now.isoformat(timespec="milliseconds")
    return json.dumps({"instance": "axe-1", "host": "pi", "pid": 1, "started": stamp,
                       "version": "axe", "now": stamp, "name": "The example table"})  # fmt: skip


def retained(name: str, folder: Path) -> dict[str, str]:
    """What the service publishes retained for the state ``name``, as table ``example``."""
    view = json.loads(json.dumps(table_view(the_state(name, folder))))
    out = state_messages(view, Topics("rhuna", "example"))
    out["rhuna/example/info"] = info(datetime.now(UTC))
    out["rhuna/example/status"] = "online"
    return out


def say_info(broker: WebBroker) -> None:
    """One live (not retained) ``…/info``, as the service's heartbeat says it."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2)
    client.username_pw_set(SERVICE_USER, SERVICE_PASSWORD)
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    body = info(datetime.now(UTC))
    client.publish("rhuna/example/info", body, qos=1).wait_for_publish(WAIT)
    client.disconnect()
    client.loop_stop()


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, WebBroker]]:
    """One broker a state, each holding the table ``example`` in it, for the whole module."""
    started: dict[str, WebBroker] = {}
    try:
        for name in STATES:
            folder = tmp_path_factory.mktemp(f"axe-{name}")
            broker = WebBroker(folder / "broker")
            broker.start()
            started[name] = broker
            publish_retained(broker, retained(name, folder))
        yield started
    finally:
        for broker in started.values():
            broker.stop()


#: the table's retained state has come whole (its ``…/status`` is the last retained topic)
HEARD = "() => window.rhuna?.store.snapshot.tables.get('example')?.status === 'online'"
#: a paint after now
PAINTS = "window.rhuna.paints"


def ready(page: Any, name: str) -> None:
    """The page has the table and shows it (gm.html: loaded, not "Loading table …")."""
    page.wait_for_function(HEARD, timeout=MS)
    if name == "gm":
        expect(page.locator("[data-loading]")).to_have_count(0, timeout=MS)
    if name == "tables":
        expect(page.locator(".table-card[data-table='example']")).to_be_visible(timeout=MS)
    painted(page)


class Matrix:
    """The page of the cell being checked, opened once for its state and page and kept for
    its four themes (the cells run state by state, page by page): a theme is the root's
    ``data-theme``, which is all the URL's ``theme=`` sets (web/src/app.ts, ``boot``), so the
    page is put in each theme as its URL would, without loading it four times over."""

    def __init__(self, browser: Any, brokers: dict[str, WebBroker]) -> None:
        self.browser = browser
        self.brokers = brokers
        self.key: tuple[str, str] | None = None
        self.page: Any = None

    def page_for(self, state: str, page_name: str) -> Any:
        if self.key != (state, page_name) or self.page is None:
            self.close()
            self.key = (state, page_name)  # before opening: `close` restarts its broker
            self.page = self.open(state, page_name)
        return self.page

    def open(self, state: str, page_name: str) -> Any:
        broker = self.brokers[state]
        width, height = PAGES[page_name]
        touch = {"is_mobile": True, "has_touch": True} if page_name == "gm" else {}
        context = self.browser.new_context(viewport={"width": width, "height": height}, **touch)
        try:
            return self._opened(context.new_page(), broker, state, page_name)
        except BaseException:
            context.close()  # not left open behind a cell that failed
            raise

    def _opened(self, page: Any, broker: WebBroker, state: str, page_name: str) -> Any:
        if state == "stale":
            page.clock.install()  # the page's Date and timers, moved on below (no sleeping)
        page.goto(broker.url(f"{page_name}.html", table="example", theme=THEMES[0]))
        ready(page, page_name)
        if state == "offline":
            broker.stop()  # the broker gone: the page greys what it last had (started again
            # once the page's four themes are done: `close`)
            expect(page.locator("#status")).to_have_attribute("data-state", "offline", timeout=MS)
            painted(page)
        if state == "stale":
            say_info(broker)  # heard live, then nothing: 31 s on, the page says stale
            page.wait_for_function(
                "() => window.rhuna.store.snapshot.tables.get('example')?.infoAt !== null",
                timeout=MS,
            )
            page.clock.fast_forward(QUIET_MS)
            if page_name != "tables":
                expect(page.locator("body")).to_have_attribute("data-live", "stale", timeout=MS)
            painted(page)
        return page

    def close(self) -> None:
        if self.page is not None:
            self.page.context.close()
        offline = self.brokers["offline"]
        if self.key is not None and self.key[0] == "offline" and not offline.running:
            offline.start()  # stopped by `open` (once its page was live), or not
        self.page = None
        self.key = None


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """The matrix's one Chromium (its pages outlive a cell: not the ``browser`` fixture, whose
    contexts are closed after each test)."""
    built_pages()
    with playwright_chromium() as b:
        yield b


@pytest.fixture(scope="module")
def matrix(chromium: Any, brokers: dict[str, WebBroker]) -> Iterator[Matrix]:
    m = Matrix(chromium, brokers)
    try:
        yield m
    finally:
        m.close()


@pytest.mark.parametrize(
    ("page_name", "theme", "state"), CELLS, ids=[f"{p}-{t}-{s}" for p, t, s in CELLS]
)
def test_axe_finds_no_wcag22_aa_violation(matrix, page_name, theme, state):
    page = matrix.page_for(state, page_name)
    page.evaluate("t => { document.documentElement.dataset.theme = t; }", theme)
    assert page.evaluate("document.documentElement.dataset.theme") == theme
    quiet(page)
    cell = f"{page_name}-{theme}-{state}"
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / f"axe-{cell}.png"))
    found = axe(page)
    (ARTEFACTS / f"axe-{cell}.json").write_text(json.dumps(found, indent=1))
    assert found == [], json.dumps(found, indent=1)
