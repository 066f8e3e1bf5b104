"""The Rhuna rules engine: a pure function from (table state, command) to (state, events).

>>> from engine import apply, load_table_text
>>> state = load_table_text(EXAMPLE)  # doctest: +SKIP
>>> state, events = apply(state, {"cmd": "begin_performance", "difficulty": 5})  # doctest: +SKIP

Importing this package registers every command of the vocabulary.

The engine is a core and one package per rule family (the three rule documents):

- the core: :mod:`~engine.state`, :mod:`~engine.vocabulary`, :mod:`~engine.apply`,
  :mod:`~engine.codec`, :mod:`~engine.errors`, :mod:`~engine.events`, :mod:`~engine.rules`
  (the rules data), :mod:`~engine.table` (table files), :mod:`~engine.tokens`,
  :mod:`~engine.immutable`, :mod:`~engine.picking` (which hero, which token, which seed:
  shared by every family that draws from a bag), and the registries of
  :mod:`~engine.narrate` and :mod:`~engine.view`;
- :mod:`engine.performance`: P1–P23, the Performance, the hero sheet and health, odds;
- :mod:`engine.time`: T1–T12, the Time Board, Weather, Rest, temporary tokens;
- :mod:`engine.combat`: C1–C11, the six-tick combat wheel.

The core imports no family. A family imports the core, and another family only
where the rules tie them, in one direction: ``time → performance`` (Fatigue from
Time, Weather and Rest goes through the P13 cascade in
:mod:`engine.performance.health`). Combat imports no other family.
"""

# The rule families register their commands, narrators and view sections in this order.
# isort: off
import engine.performance
import engine.time
import engine.combat
import engine.note
import engine.audit
import engine.legal  # noqa: F401  (the view's `legal`, over every family's commands)

# isort: on
from engine import narrate as _narrate
from engine import table as _table
from engine import view as _view
from engine.apply import apply, check, replay
from engine.errors import CommandRejected, RuleViolation
from engine.events import Event
from engine.state import TableState
from engine.table import load_table, load_table_text
from engine.vocabulary import REGISTRY, Command, json_schema, parse_command
from settings.errors import ConfigError

# every family has registered: from here on the registries refuse additions (engine/registry.py)
for _registry in (REGISTRY, _narrate.NARRATORS, _view.VIEW_SECTIONS, _table.TABLE_SECTIONS):
    _registry.freeze()

__all__ = [
    "REGISTRY",
    "Command",
    "CommandRejected",
    "ConfigError",
    "Event",
    "RuleViolation",
    "TableState",
    "apply",
    "check",
    "json_schema",
    "load_table",
    "load_table_text",
    "parse_command",
    "replay",
]
