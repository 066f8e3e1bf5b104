"""The panel draws text as text (issue 45 item 9): a name an older journal still holds with an
ESC or a U+202E is drawn as its escape (``\\x1b``, ``\\u202e``), as ``rhuna-table history`` and
the pages show it — never a missing-glyph box, nor a character that turns the text around it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from display.panels import PANELS
from display.render import draw
from tests.harness import views as dv
from tests.harness.canvas import assert_texts_fit

HOSTILE = "Ar\u202eia\x1b]0;pwned\x07"
#: what the panel draws for it: each unsafe character as its escape, the rest in its order
ESCAPED = "Ar\\u202eia\\x1b]0;pwned\\x07"
#: a screen that writes names in capitals capitalises the name, then escapes what it draws
ESCAPED_CAPITALS = "AR\\u202eIA\\x1b]0;PWNED\\x07"


def _named(view: dict[str, Any], name: str) -> dict[str, Any]:
    """``view`` with the hero Aria called ``name`` wherever the view names her."""
    return json.loads(json.dumps(view).replace("Aria", json.dumps(name)[1:-1]))


@pytest.mark.parametrize("panel", tuple(PANELS))
@pytest.mark.parametrize("build", [dv.performance_mid, dv.between_time], ids=["mid", "between"])
def test_a_name_with_a_control_character_is_drawn_as_its_escape(panel: str, build: Any) -> None:
    canvas = draw(_named(build(), HOSTILE), panel, "bw")
    drawn = [t.shown for t in canvas.texts]
    assert not [t for t in drawn if any(c in t for c in "\u202e\x1b\x07")], drawn
    # the name, as the screen writes it (in capitals or not), with each escape written out
    # and the text after it in its order, wherever the panel draws it
    named = [t.full for t in canvas.texts if "Ar" in t.full or "AR" in t.full]
    assert named, drawn
    assert all(ESCAPED in t or ESCAPED_CAPITALS in t for t in named), named
    assert_texts_fit(canvas)


def test_the_name_is_drawn_as_its_escapes_read() -> None:
    """The pixels of the name drawn with its escapes are those of the same text typed out:
    nothing dropped, no missing-glyph box, nothing turned around."""
    hostile = draw(_named(dv.between_time(), HOSTILE), "7.5", "bw")
    typed = draw(_named(dv.between_time(), ESCAPED), "7.5", "bw")
    assert [t.shown for t in hostile.texts] == [t.shown for t in typed.texts]
    assert hostile.image.tobytes() == typed.image.tobytes()
