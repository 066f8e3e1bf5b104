"""The one UID codec and its value: :class:`Uid`, text ↔ bytes, and which lengths are valid.

Every place that reads or writes a UID uses this module: the readers and their
emulators (``firmware_bridge``), the tag registry and enrolment (``tags``).
A UID of ISO/IEC 14443-3 type A has 4, 7 or 10 bytes (cascade levels 1–3); the
lengths are the wire protocol's (:data:`firmware_bridge.protocol.UID_LENGTHS`,
the file the hub firmware shares), so the hub, the host and the registry agree.

Text forms accepted: hex digits, upper or lower case, with an optional ``0x``
and ``:``, ``-``, ``.`` or spaces between them. Anything else is refused,
never skipped: ``04:A1:ZZ:B2:C3`` is an error, not ``04A1B2C3``.

A UID travels as a :class:`Uid`, its canonical value: made once from the bytes where a
reader turns a frame into a :class:`~firmware_bridge.events.TagEvent`, and used as it is by
the tag registry (its key), never formatted and parsed again on the way. Text is read only at
the edges (a person's, the enrolment file's), by :func:`parse_uid` / :func:`normalise_uid`.

>>> format_uid(parse_uid("04:a1:b2:c3"))
'04A1B2C3'
>>> normalise_uid(" 0x04A1B2C3D4E5F6 ")
'04A1B2C3D4E5F6'
>>> try:
...     parse_uid("04:A1:ZZ:B2:C3")
... except UidError as e:
...     print(e)
'04:A1:ZZ:B2:C3' is not a hex UID: 'Z' is not a hex digit (write it like 04A1B2C3 or 04:A1:B2:C3)

This module imports nothing but ``protocol`` (no serial port, no threads), which
is why ``tags/`` imports it: the UID is a fact of the RFID side, born in
``firmware_bridge`` (the lowest room both may import: ``firmware_bridge`` imports only
``settings``, ``tags`` imports ``firmware_bridge``), and the registry must read it exactly as
the readers write it.
"""

from __future__ import annotations

from collections.abc import Collection

from firmware_bridge.protocol import READS_POORLY_PREFIX, UID_LENGTHS

__all__ = [
    "UID_LENGTHS",
    "Uid",
    "UidError",
    "check_uid",
    "format_uid",
    "normalise_uid",
    "parse_uid",
]

_SEPARATORS = frozenset(":-. \t")
_HEX = frozenset("0123456789abcdefABCDEF")


class UidError(ValueError):
    """A UID that is not one: the message quotes it and says what a UID looks like."""


class Uid(str):
    """A tag's UID, canonical: the upper-case hex of its bytes, without separators.

    Made from the bytes a reader parsed (``Uid(raw)``), never from text: text is read by
    :func:`normalise_uid`, which refuses what is not a UID. So a ``Uid`` needs no reading
    again: the registry keys on it as it is. It *is* its text (a ``str``: equal to it, hashed
    as it, shown, logged and written to JSON as it), so the edges need no formatting.

    >>> uid = Uid(b"\\x04\\xa1\\xb2\\xc3")
    >>> uid, uid == "04A1B2C3", uid.raw
    ('04A1B2C3', True, b'\\x04\\xa1\\xb2\\xc3')
    >>> Uid("04A1B2C3")
    Traceback (most recent call last):
    TypeError: a Uid is made from a UID's bytes; read text with normalise_uid
    """

    __slots__ = ()

    def __new__(cls, raw: bytes | bytearray | memoryview) -> Uid:
        if isinstance(raw, str):
            raise TypeError("a Uid is made from a UID's bytes; read text with normalise_uid")
        return super().__new__(cls, bytes(raw).hex().upper())

    @property
    def raw(self) -> bytes:
        """The UID's bytes."""
        return bytes.fromhex(self)

    def __getnewargs__(self) -> tuple[bytes]:  # type: ignore[override]  # pickle and copy
        return (self.raw,)


def _lengths_text(lengths: Collection[int]) -> str:
    ordered = sorted(lengths)
    if len(ordered) == 1:
        return str(ordered[0])
    return ", ".join(str(n) for n in ordered[:-1]) + f" or {ordered[-1]}"


def check_uid(uid: bytes, lengths: Collection[int] | None = UID_LENGTHS) -> bytes:
    """``uid`` as bytes, if its length is one of ``lengths`` (None: any non-empty length)."""
    raw = bytes(uid)
    if not raw or (lengths is not None and len(raw) not in lengths):
        allowed = "at least 1" if lengths is None else _lengths_text(lengths)
        raise UidError(
            f"UID {raw.hex().upper() or '(empty)'} has {len(raw)} bytes; a UID has {allowed} bytes"
        )
    return raw


def parse_uid(text: str | bytes, lengths: Collection[int] | None = UID_LENGTHS) -> bytes:
    """The bytes of a UID written as text (bytes are only length-checked).

    ``lengths`` are the valid byte counts (4, 7, 10 by default); ``None`` takes
    any, for line readers of 125 kHz tags whose IDs are 5 bytes.
    """
    if isinstance(text, bytes | bytearray):
        return check_uid(text, lengths)
    body = text.strip()
    if body[:2] in ("0x", "0X"):
        body = body[2:]
    digits = []
    for ch in body:
        if ch in _HEX:
            digits.append(ch)
        elif ch not in _SEPARATORS:
            raise UidError(
                f"{text!r} is not a hex UID: {ch!r} is not a hex digit"
                " (write it like 04A1B2C3 or 04:A1:B2:C3)"
            )
    if not digits or len(digits) % 2:
        raise UidError(
            f"{text!r} is not a hex UID: {len(digits)} hex digits, a UID has two per byte"
            " (write it like 04A1B2C3 or 04:A1:B2:C3)"
        )
    return check_uid(bytes.fromhex("".join(digits)), lengths)


def format_uid(uid: bytes) -> Uid:
    """The canonical form of a UID's bytes, a :class:`Uid`: upper-case hex, no separators."""
    return Uid(uid)


def normalise_uid(text: str | bytes, lengths: Collection[int] | None = UID_LENGTHS) -> Uid:
    """:func:`parse_uid` then :func:`format_uid`: text read at an edge, as the :class:`Uid`
    the registry keys on."""
    return Uid(parse_uid(text, lengths))


def reads_poorly_uid(text: str) -> bytes | None:
    """The UID in the hub's ``reads_poorly`` error text (protocol.reads_poorly_text), or None
    when the text does not hold one (the host's side: the hub only writes it).

    >>> reads_poorly_uid("reads poorly: 04A1B2C3").hex()
    '04a1b2c3'
    >>> reads_poorly_uid("reads poorly") is None
    True
    """
    if not text.startswith(READS_POORLY_PREFIX):
        return None
    try:
        return parse_uid(text[len(READS_POORLY_PREFIX) :])
    except UidError:
        return None
