"""Command messages in: an MQTT payload → one command of the vocabulary, or why not.

Two ways to send, as Zigbee2MQTT users expect:

* ``<root>/command`` with the whole command: ``{"cmd": "draw", "hero": "aria", …}``;
* ``<root>/command/<name>`` with its fields only: ``{"hero": "aria", …}`` (or nothing).

Either may carry ``"transaction"`` (or ``"id"``), which comes back in the reply.
Only the shape is checked here; the engine judges the command itself, on the
table loop's thread.

>>> parse_request("", b'{"cmd": "undo", "transaction": 7}')
Request(command={'cmd': 'undo'}, transaction=7)
>>> parse_request("draw", b'{"hero": "aria", "token": "aria.weight.1", "id": "a1"}')
Request(command={'cmd': 'draw', 'hero': 'aria', 'token': 'aria.weight.1'}, transaction='a1')
>>> parse_request("", b'{"cmd": "undo"').violation.code
'malformed'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from companion.table import inputs
from engine.errors import RuleViolation

#: request ids echoed in the reply; ``transaction`` wins when both are given
TRANSACTION_KEYS = ("transaction", "id")

_EXAMPLE = '{"cmd": "undo", "transaction": 1}'


@dataclass(frozen=True, slots=True)
class Request:
    """A command to hand to the table loop, and the id its reply must echo."""

    command: dict[str, Any]
    transaction: Any = None


@dataclass(frozen=True, slots=True)
class BadRequest:
    """A payload that is no command at all: answered at once, never sent to the loop."""

    violation: RuleViolation
    transaction: Any = None


def parse_request(name: str, payload: bytes) -> Request | BadRequest:
    """``name`` is ``''`` for ``…/command`` or the ``<name>`` of ``…/command/<name>``.

    Never raises: too big, not UTF-8, not JSON, nested too deep, a lone surrogate or any
    other input the limits refuse (:mod:`companion.table.inputs`) is a ``malformed`` BadRequest.
    """
    if not payload.strip():
        if name:
            return Request({"cmd": name})
        return _bad("the payload is empty", f"send a command such as {_EXAMPLE}")
    obj = inputs.load(payload)
    if isinstance(obj, inputs.Malformed):
        return BadRequest(obj.violation)
    if not isinstance(obj, dict):
        problem = inputs.check(obj)
        if problem is not None:
            return BadRequest(problem.violation)
        fix = "send the fields as a JSON object, or nothing" if name else f"send {_EXAMPLE}"
        return _bad(f"expected a JSON object, got {type(obj).__name__}", fix)
    transaction = None
    for key in reversed(TRANSACTION_KEYS):
        if key in obj:
            transaction = obj.pop(key)
    bad_id = inputs.check(transaction)
    if bad_id is not None:  # not echoed: it could not be published back
        return BadRequest(replace(bad_id.violation, field="transaction"))
    problem = inputs.check(obj) or inputs.check(name)
    if problem is not None:
        return BadRequest(problem.violation, transaction)
    if name:
        if "cmd" in obj and obj["cmd"] != name:
            return BadRequest(
                RuleViolation(
                    f"the topic says {name!r} but the payload says {obj['cmd']!r}",
                    field="cmd",
                    fix=f"leave cmd out of …/command/{name}, or send to …/command",
                    code="malformed",
                ),
                transaction,
            )
        obj = {"cmd": name, **{k: v for k, v in obj.items() if k != "cmd"}}
    return Request(obj, transaction)


def _bad(message: str, fix: str) -> BadRequest:
    return BadRequest(RuleViolation(message, fix=fix, code="malformed"))
