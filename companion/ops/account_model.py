"""The broker account model shared by ``rhuna-table accounts`` and ``rhuna-table venue``.

One table's Pi broker (``accounts``) and the venue broker (``venue``) name, check and hash
their accounts the same way: a user name is ``<table>.<role>`` (``kitchen.gm``,
``kitchen.bridge``) or a broker-wide name (``wall``, ``director``); table ids and role names
are letters, digits, ``-`` and ``_`` (they become user names and topic levels); passwords
are stored as Mosquitto 2's PBKDF2-SHA512 ``$7$`` hashes, the same string
``mosquitto_passwd`` writes.

>>> user("kitchen", "bridge")
'kitchen.bridge'
>>> check_name("kitchen", "table id")
'kitchen'
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import secrets

from settings.errors import ConfigError

#: the broker-wide read-only account of the convention wall
WALL = "wall"
#: table ids and viewer names the accounts accept: they become user names and topic levels
NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")

# Mosquitto 2.0's password file format, as mosquitto_passwd writes it and the broker reads it
# (mosquitto's common/password_mosq.c: pw__encode_sha512_pbkdf2 writes
# "$%d$%d$%s$%s" = hash type 7 (pw_sha512_pbkdf2), iterations, base64(salt), base64(hash);
# pw__hash_sha512_pbkdf2 is PKCS5_PBKDF2_HMAC(password, salt, iterations, sha512, 64 bytes);
# pw__decode_sha512_pbkdf2 accepts a 12- or 64-byte salt). 2.0's mosquitto_passwd uses a
# 12-byte salt and PW_DEFAULT_ITERATIONS = 101; the passwords here are 192 random bits, so
# the hash's cost is not what protects them.
PBKDF2_ITERATIONS = 101
SALT_BYTES = 12


def password_hash(
    password: str, *, salt: bytes | None = None, iterations: int = PBKDF2_ITERATIONS
) -> str:
    """The ``$7$…`` string Mosquitto 2 stores for ``password`` (a fresh salt unless given).

    >>> password_hash("s3cret", salt=bytes(12))[:24]
    '$7$101$AAAAAAAAAAAAAAAA$'
    """
    salt = os.urandom(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    b64 = base64.b64encode
    return f"$7${iterations}${b64(salt).decode()}${b64(digest).decode()}"


def new_password() -> str:
    """192 random bits in URL-safe characters (no ':' for the password file, nothing to escape),
    never starting with ``-``: a command line would take ``--password -x…`` (ours, or
    ``mosquitto_pub -P``) for an option and refuse it ("expected one argument"). Drawing again
    when the first character is ``-`` (1 in 64) costs 0.02 bits of the 192."""
    while True:
        password = secrets.token_urlsafe(24)
        if not password.startswith("-"):
            return password


def user(table: str, role: str) -> str:
    """The broker user name of a table's account: ``kitchen.gm``, ``kitchen.overlay``…"""
    return f"{table}.{role}"


def check_name(value: str, what: str) -> str:
    if not NAME.match(value):
        raise ConfigError(
            f"{what} {value!r} cannot be an account: use letters, digits, '-' and '_' "
            "(at most 64), since it becomes a user name and a topic level"
        )
    return value
