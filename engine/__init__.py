"""The Rhuna rules engine: a pure function from (table state, command) to (state, events).

>>> from engine import apply, load_table_text
>>> state = load_table_text(EXAMPLE)  # doctest: +SKIP
>>> state, events = apply(state, {"cmd": "begin_performance", "difficulty": 5})  # doctest: +SKIP

Importing this package registers every command of the vocabulary.
"""

from engine import (  # noqa: F401  (registers commands)  # noqa: F401  (Time, Weather, Rest, temporary tokens: T1–T12)
    odds,  # the view's odds section
    performance,
    rest,
    sheet,
    temporary,
    time_draws,
    time_narrate,
    time_setup,
    time_view,
    weather,
)
from engine.apply import apply, replay
from engine.combat import hooks  # noqa: F401  (registers combat: commands, table, view, narrators)
from engine.errors import CommandRejected, ConfigError, RuleViolation
from engine.events import Event
from engine.state import TableState
from engine.table import load_table, load_table_text
from engine.vocabulary import REGISTRY, Command, json_schema, parse_command

__all__ = [
    "REGISTRY",
    "Command",
    "CommandRejected",
    "ConfigError",
    "Event",
    "RuleViolation",
    "TableState",
    "apply",
    "json_schema",
    "load_table",
    "load_table_text",
    "parse_command",
    "replay",
]
