"""The tag registry: which physical token each RFID tag is.

Every token has its own tag, so one reader can serve every bag: the UID alone
says whose token it is and what it is. The registry is a small JSON file the
service keeps beside its state (``rhuna-table enroll`` fills it: docs/enroll.md);
tables with no hardware — the demo, the tests — use :meth:`TagRegistry.synthetic`,
which gives every token a stable made-up 7-byte UID.

A reader's :class:`~firmware_bridge.events.TagEvent` carries the canonical
:class:`~firmware_bridge.uid.Uid`, and the registry looks it up as it is: a UID is read from
text only at the edges (the file, a person's spelling), never again on its way from the reader.

>>> reg = TagRegistry({"04A1B2C3D4E5F6": "aria.ember.skill"})
>>> reg.token_id(Uid(bytes.fromhex("04A1B2C3D4E5F6"))), reg.token_id("04a1b2c3d4e5f6")
('aria.ember.skill', 'aria.ember.skill')
>>> reg.uid("aria.ember.skill")
'04A1B2C3D4E5F6'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from firmware_bridge.uid import Uid, UidError, normalise_uid
from settings.atomic import write_atomic
from settings.errors import ConfigError
from settings.textfile import read_text

__all__ = ["TagRegistry", "Uid", "normalise_uid", "open_registry"]


class TagRegistry:
    """UID ↔ token id, both ways, refusing duplicates; keyed on the canonical :class:`Uid`."""

    def __init__(self, mapping: Mapping[str, str] | None = None) -> None:
        self._by_uid: dict[Uid, str] = {}
        self._by_token: dict[str, Uid] = {}
        for uid, token in (mapping or {}).items():
            self.add(uid, token)

    def add(self, uid: str, token: str) -> None:
        """Enrol the tag ``uid`` (text from the file or a reader, checked here: 4, 7 or 10
        bytes) as ``token``."""
        try:
            key = normalise_uid(uid)
        except UidError as e:
            raise ConfigError(f"tag {uid!r}: {e}") from None
        if key in self._by_uid and self._by_uid[key] != token:
            raise ConfigError(f"tag {key} is already enrolled as {self._by_uid[key]}")
        if token in self._by_token and self._by_token[token] != key:
            raise ConfigError(f"{token} already has tag {self._by_token[token]}")
        self._by_uid[key] = token
        self._by_token[token] = key

    def token_id(self, uid: Uid | str) -> str | None:
        """The token id of a tag, or None for a tag nobody enrolled. A :class:`Uid` (a
        reader's event's) is the key as it is; text (a person's) is read as a UID first."""
        if not isinstance(uid, Uid):
            try:
                uid = normalise_uid(uid)
            except UidError:
                return None  # not even a UID: certainly nobody's tag
        return self._by_uid.get(uid)

    def uid(self, token: str) -> Uid | None:
        """The UID of the tag enrolled for a token id, or None for a token with no tag."""
        return self._by_token.get(token)

    def remove(self, token: str) -> Uid | None:
        """Forget ``token``'s tag (re-enrolling it); returns the UID it had, or None."""
        key = self._by_token.pop(token, None)
        if key is not None:
            del self._by_uid[key]
        return key

    def items(self) -> Iterator[tuple[Uid, str]]:
        """(UID, token id) pairs, in the order they were added."""
        return iter(list(self._by_uid.items()))

    def __len__(self) -> int:
        return len(self._by_uid)

    @classmethod
    def synthetic(cls, tokens: Iterable[str]) -> TagRegistry:
        """Stable made-up NTAG-style UIDs (``04`` + 6 bytes of a hash of the token id)."""
        return cls({Uid(b"\x04" + hashlib.sha256(t.encode()).digest()[:6]): t for t in tokens})

    @classmethod
    def load(cls, path: str | Path) -> TagRegistry:
        path = Path(path)
        try:
            data = json.loads(read_text(path))
        except OSError as e:
            raise ConfigError(f"{path}: cannot read the tag registry ({e.strerror})") from None
        except json.JSONDecodeError as e:
            raise ConfigError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
        tags = data.get("tags") if isinstance(data, dict) else None
        if not isinstance(tags, dict):
            raise ConfigError(f'{path}: expected {{"tags": {{"<uid>": "<token id>", …}}}}')
        try:
            return cls(tags)
        except ConfigError as e:
            raise ConfigError(f"{path}: {e}") from None

    def save(self, path: str | Path) -> None:
        """Write atomically and durably: a power cut leaves the old file or the new one,
        and once this returns the new one survives it (the data and the rename are
        fsync'd — ``rhuna-table enroll`` says "saved" after each token)."""
        text = json.dumps({"tags": dict(sorted(self._by_uid.items()))}, indent=1) + "\n"
        write_atomic(path, text)


def open_registry(
    path: Path, *, missing: str | None = None, where: str = "", fix: str
) -> TagRegistry:
    """The registry file at ``path``: the one way the service and ``rhuna-table enroll`` open it.

    A file that is not there yet is an empty registry, or, with ``missing``, a
    :class:`ConfigError` saying so (the running table needs its tags); a file that cannot be
    read is a :class:`ConfigError` naming it, after ``where`` (the config key that names it)
    and before ``fix`` (what to do about it)."""
    if not path.exists():
        if missing is not None:
            raise ConfigError(missing)
        return TagRegistry()
    try:
        return TagRegistry.load(path)
    except ConfigError as e:
        raise ConfigError(f"{where}{e} — {fix}") from None
