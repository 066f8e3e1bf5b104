"""Why a command was refused.

Every refusal names what was wrong (the field), which rule refused it (the rule
id, defined in docs/rules.md) and what the person at the table can do about it. The engine
raises :class:`CommandRejected`; because states are immutable values, a
refused command leaves the caller's state exactly as it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NotRequired, TypedDict


class Refusal(TypedDict):
    """A :class:`RuleViolation` as JSON (:meth:`RuleViolation.to_json`): ``code`` and
    ``message`` always; the rule id, the field and the fix when known. On MQTT in ``…/error``
    and error ``…/reply`` messages, and in the view (a Redraw's refusals)."""

    code: str
    message: str
    rule: NotRequired[str]
    field: NotRequired[str]
    fix: NotRequired[str]


@dataclass(frozen=True, slots=True)
class RuleViolation:
    """A refusal, as data: serialisable and shown verbatim on the panel and MQTT."""

    message: str
    rule: str | None = None
    field: str | None = None
    fix: str | None = None
    code: str = "illegal"

    def to_json(self) -> Refusal:
        out: Refusal = {"code": self.code, "message": self.message}
        if self.rule:
            out["rule"] = self.rule
        if self.field:
            out["field"] = self.field
        if self.fix:
            out["fix"] = self.fix
        return out

    def __str__(self) -> str:
        parts = [self.message]
        if self.rule:
            parts.append(f"[{self.rule}]")
        if self.field:
            parts.append(f"(field: {self.field})")
        text = " ".join(parts)
        if self.fix:
            text += f" — {self.fix}"
        return text


class CommandRejected(Exception):
    """Raised by :func:`engine.apply` for a malformed or illegal command.

    >>> try:
    ...     raise CommandRejected("Difficulty must be 3 to 8", rule="P19", field="difficulty")
    ... except CommandRejected as e:
    ...     print(e.violation.rule)
    P19
    """

    def __init__(
        self,
        message: str,
        *,
        rule: str | None = None,
        field: str | None = None,
        fix: str | None = None,
        code: str = "illegal",
    ) -> None:
        self.violation = RuleViolation(message, rule, field, fix, code)
        super().__init__(str(self.violation))


def malformed(message: str, *, field: str | None = None, fix: str | None = None) -> CommandRejected:
    """A command that does not fit the vocabulary's schema (wrong type, missing field)."""
    return CommandRejected(message, field=field, fix=fix, code="malformed")
