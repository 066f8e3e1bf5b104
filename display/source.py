"""Turn what a file holds into a view: a view JSON as is, a full state JSON through ``table_view``.

``rhuna-table preview`` accepts either, because a bug report usually carries
the state (``replay --json``) while an overlay developer has the view off MQTT.
A full state with its Undo history also yields the costs of a resolved
Performance: resolving the pre-resolve state again gives the very events the
table saw (the engine is pure), without storing anything extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from display.costs import HeroCost, costs_from_events
from engine.errors import ConfigError


def is_state(data: Mapping[str, Any]) -> bool:
    """A full ``TableState.to_json()`` (it carries the rules and every token)."""
    return "tokens" in data and "rules" in data and "bags" in data


def is_view(data: Mapping[str, Any]) -> bool:
    """A ``table_view`` (heroes and the Performance, no rules)."""
    return "heroes" in data and "rules" not in data


def load_view(
    data: Any, source: str = "<json>"
) -> tuple[dict[str, Any], dict[str, HeroCost] | None]:
    """(view, costs or None) from a view or a full state; :class:`ConfigError` if neither."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a JSON object (a table view or a full state)")
    if is_state(data):
        return _from_state(data, source)
    if is_view(data):
        return dict(data), None
    raise ConfigError(
        f"{source}: neither a table view (needs 'heroes') nor a full state (needs 'rules', 'tokens',"
        " 'bags'); write one with `rhuna-table replay TABLE SESSION --json`"
    )


def _from_state(
    data: Mapping[str, Any], source: str
) -> tuple[dict[str, Any], dict[str, HeroCost] | None]:
    import engine  # noqa: F401  (registers the commands and view sections)
    from engine import apply
    from engine.state import TableState
    from engine.view import table_view

    try:
        state = TableState.from_json(dict(data))
    except (TypeError, ValueError, KeyError) as e:
        raise ConfigError(f"{source}: not a valid table state ({type(e).__name__}: {e})") from None
    view = table_view(state)
    return view, _resolve_costs(state, apply)


def _resolve_costs(state: Any, apply: Any) -> dict[str, HeroCost] | None:
    """Replay ``resolve`` on the state just before it, when the history still has it."""
    perf = state.performance
    if perf is None or not perf.resolved:
        return None
    for earlier in reversed(state.history):
        p = earlier.performance
        if p is not None and p.number == perf.number and not p.resolved:
            try:
                _, events = apply(earlier, {"cmd": "resolve"})
            except Exception:  # a history that no longer resolves: show no costs rather than fail
                return None
            return costs_from_events(events)
    return None
