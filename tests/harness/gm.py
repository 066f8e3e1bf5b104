"""gm.html's rig and helpers, shared by the remote's test modules (tests/web/test_web_gm*.py,
test_web_intersect_total.py): Mosquitto with the accounts' ACL, the real service logged in as
the service, Chromium on a phone-size screen logged in as the WorldKeeper. The ``rig`` fixture
itself is in tests/web/conftest.py; a test module imports nothing of another."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.broker import WAIT
from tests.harness.web import PHONE, AccountsBroker, screenshot, served_table


@contextlib.contextmanager
def gm_rig(tmp_path: Path, browser: Any) -> Iterator[tuple[Any, Any, AccountsBroker]]:
    """(gm.html's page once the whole table has arrived, the served table, the broker)."""
    broker = AccountsBroker(tmp_path / "broker")
    broker.start()
    try:
        with served_table(tmp_path / "svc", broker, login=broker.login("service")) as table:
            context = browser.new_context(
                viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True
            )
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(broker.url())
            page.wait_for_selector("#status[data-state='live']", timeout=2 * WAIT * 1000)
            # the whole table (…/state: bags, roster, Undo depth) has arrived
            page.wait_for_function(
                "() => window.rhuna.store.snapshot.tables.get('example')?.sections.state",
                timeout=2 * WAIT * 1000,
            )
            yield page, table, broker
            context.close()
            assert errors == [], errors
    finally:
        broker.stop()


def state(table: Any) -> Any:
    return table.service.loop.state


def replied(page: Any, key: str, expect: str = "ok") -> Any:
    """Wait for the reply in outlet ``key`` and return it; it must be ``expect``."""
    out = page.locator(f"output.reply[data-for='{key}']")
    try:
        page.wait_for_function(
            "k => { const o = document.querySelector(`output.reply[data-for='${k}']`);"
            " return o && !['pending', 'idle'].includes(o.dataset.state); }",
            arg=key,
            timeout=2 * WAIT * 1000,
        )
    except Exception:
        shot = screenshot(page, f"gm-timeout-{key}")
        found = page.eval_on_selector_all(
            "output.reply", "els => els.map(e => [e.dataset.for, e.dataset.state, e.textContent])"
        )
        pytest.fail(f"no reply in outlet {key!r} (outlets: {found}; screenshot {shot})")
    got = out.get_attribute("data-state")
    assert got == expect, out.inner_text()
    return out


def tab(page: Any, name: str) -> None:
    page.click(f"nav.tabs button[data-tab='{name}']")
