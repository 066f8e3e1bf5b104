"""Reading a text file people wrote: UTF-8 (a BOM is fine), or one line saying what to do.

A table, a session, a config or a registry saved by a Windows editor may be
UTF-16 or Latin-1; a binary file may be given by mistake. Each is one
:class:`~settings.errors.ConfigError` naming the file (and the line where there is
one), saying what is wrong and to save it as UTF-8 — never a traceback.

>>> decode("café".encode("utf-8-sig"), "t.toml")
'café'
>>> decode(b'name = "Ar\\xefa"\\n', "t.toml")
Traceback (most recent call last):
    ...
settings.errors.ConfigError: t.toml:1: byte 0xEF is not UTF-8 (Latin-1 or Windows text?) — save the file as UTF-8
"""

from __future__ import annotations

import codecs
from pathlib import Path

from settings.errors import ConfigError

SAVE = "save the file as UTF-8"


def decode(data: bytes, source: str) -> str:
    """``data`` as text; :class:`ConfigError` naming ``source`` if it is not UTF-8 text."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or (
        len(data) >= 4 and data[1:4:2] == b"\0\0" and data[0:4:2] != b"\0\0"
    ):
        raise ConfigError(f"{source}: saved as UTF-16, not UTF-8 — {SAVE}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        if b"\0" in data[:4096]:
            raise ConfigError(
                f"{source}: not a text file (binary data) — give a text file saved as UTF-8"
            ) from None
        line = data[: e.start].count(b"\n") + 1
        byte = data[e.start]
        raise ConfigError(
            f"{source}:{line}: byte 0x{byte:02X} is not UTF-8 (Latin-1 or Windows text?) — {SAVE}"
        ) from None
    if "\0" in text:
        raise ConfigError(
            f"{source}: not a text file (binary data) — give a text file saved as UTF-8"
        )
    return text


#: the most a file people wrote may hold (a table, a config, a registry, a session): read no
#: further, so ``rules_file = "/dev/zero"`` or a log given by mistake is one clear error
MAX_BYTES = 16 * 1024 * 1024


def read_text(path: str | Path, limit: int = MAX_BYTES) -> str:
    """Read ``path`` as UTF-8 text (see :func:`decode`), at most ``limit`` bytes (a
    :class:`ConfigError` beyond); OSError is left to the caller."""
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(
            f"{path}: more than {limit // (1024 * 1024)} MiB — not a file this reads (a device"
            " such as /dev/zero, or a log given by mistake?); give the text file meant here"
        )
    return decode(data, str(path))
