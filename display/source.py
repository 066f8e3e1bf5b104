"""Turn what a file holds into a view: a view JSON as is, a full state JSON through ``table_view``.

``rhuna-table preview`` accepts either, because a bug report usually carries
the state (``replay --json``) while an overlay developer has the view off MQTT.
Either way the costs of the open Performance come with it: they are part of the
state, and the view's ``costs`` section.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from settings.errors import ConfigError


def is_state(data: Mapping[str, Any]) -> bool:
    """A full ``TableState.to_json()`` (it carries the rules and every token)."""
    return "tokens" in data and "rules" in data and "bags" in data


def is_view(data: Mapping[str, Any]) -> bool:
    """A ``table_view`` (heroes and the Performance, no rules)."""
    return "heroes" in data and "rules" not in data


def load_view(data: Any, source: str = "<json>") -> dict[str, Any]:
    """The view from a view or a full state; :class:`ConfigError` if neither."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source}: expected a JSON object (a table view or a full state)")
    if is_state(data):
        return _from_state(data, source)
    if is_view(data):
        return dict(data)
    raise ConfigError(
        f"{source}: neither a table view (needs 'heroes') nor a full state (needs 'rules', 'tokens',"
        " 'bags'); write one with `rhuna-table replay TABLE SESSION --json`"
    )


def _from_state(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    import engine  # noqa: F401  (registers the commands and view sections)
    from engine.state import TableState
    from engine.view import table_view

    try:
        state = TableState.from_json(dict(data))
    except (TypeError, ValueError, KeyError) as e:
        raise ConfigError(f"{source}: not a valid table state ({type(e).__name__}: {e})") from None
    return dict(table_view(state))
