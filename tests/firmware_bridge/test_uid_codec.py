"""One UID codec for the readers, the emulators, the registry and enrolment (issue 18, item 6a).

Before it, four parsers disagreed: the registry's ``normalise_uid`` dropped any
non-hex character, so ``04:A1:ZZ:B2:C3`` became ``04A1B2C3`` (somebody else's
tag), while the readers' ``parse_uid`` refused it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from firmware_bridge.emulator import HubEmulator, PN532Emulator
from firmware_bridge.line_reader import LineFormat
from firmware_bridge.uid import UID_LENGTHS, UidError, format_uid, normalise_uid, parse_uid
from settings.errors import ConfigError
from tags.enroll import Enrolment, Verdict
from tags.registry import TagRegistry
from tests.harness import ROOT

GOOD = {
    "04A1B2C3": "04A1B2C3",
    "04:a1:b2:c3": "04A1B2C3",
    "0x04A1B2C3D4E5F6": "04A1B2C3D4E5F6",
    " 04-A1-B2-C3-D4-E5-F6 ": "04A1B2C3D4E5F6",
    "01 02 03 04 05 06 07 08 09 0a": "0102030405060708090A",
}
BAD = ["04:A1:ZZ:B2:C3", "04A1B2C", "04A1", "", "0x", "04A1B2C3D4", "g4a1b2c3", "04A1B2C3_"]


@pytest.mark.parametrize(("text", "canonical"), GOOD.items())
def test_every_spelling_of_a_uid_reads_as_one(text, canonical):
    assert format_uid(parse_uid(text)) == canonical == normalise_uid(text)
    assert TagRegistry({text: "aria.ember.skill"}).uid("aria.ember.skill") == canonical


@pytest.mark.parametrize("text", BAD)
def test_what_is_not_a_uid_is_refused_everywhere_alike(text):
    with pytest.raises(UidError):
        parse_uid(text)
    with pytest.raises(ConfigError, match=repr(text).replace("(", r"\(")):
        TagRegistry({text: "aria.ember.skill"})
    assert TagRegistry({"04A1B2C3": "x"}).token_id(text) is None
    with pytest.raises(ValueError), HubEmulator(channels=1) as hub:
        hub.lay(0, text)
    with pytest.raises(ValueError):
        PN532Emulator().lay(text)


def test_the_issues_example_is_an_error_naming_the_character():
    with pytest.raises(UidError, match="'Z' is not a hex digit"):
        parse_uid("04:A1:ZZ:B2:C3")
    with pytest.raises(ConfigError, match="not a hex UID"):
        TagRegistry({"04:A1:ZZ:B2:C3": "aria.ember.skill"})


def test_lengths_are_the_wire_protocols_and_line_readers_may_widen_them():
    assert UID_LENGTHS == (4, 7, 10)
    with pytest.raises(UidError, match="has 5 bytes; a UID has 4, 7 or 10 bytes"):
        parse_uid("0A00123456")
    assert parse_uid("0A00123456", lengths=None) == bytes.fromhex("0A00123456")  # EM4100, 125 kHz
    assert LineFormat("hex").parse("0A00123456\r\n") == bytes.fromhex("0A00123456")
    with pytest.raises(ValueError, match="not a hex digit"):
        LineFormat("hex").parse("04A1ZZB2")
    assert parse_uid(b"\x04\xa1\xb2\xc3") == b"\x04\xa1\xb2\xc3"
    with pytest.raises(UidError):
        parse_uid(b"\x04\xa1")


@pytest.mark.parametrize("text", BAD)
def test_enrolment_calls_what_the_codec_refuses_invalid_and_enrols_nothing(text):
    walk = Enrolment(["aria.ember.skill"], TagRegistry(), {})
    assert walk.scan(text).verdict is Verdict.INVALID
    assert len(walk.registry) == 0
    assert walk.scan("04:a1:b2:c3").verdict is not Verdict.INVALID
    assert walk.registry.uid("aria.ember.skill") == "04A1B2C3"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_one_codec_and_the_layering_it_keeps():
    """hardware/ reaches into firmware_bridge/ only for the codec, which needs only the protocol."""
    assert _imports(ROOT / "firmware_bridge" / "uid.py") <= {
        "__future__",
        "collections.abc",
        "firmware_bridge.protocol",
    }
    for path in (ROOT / "hardware").glob("*.py"):
        sideways = {n for n in _imports(path) if n.split(".")[0] == "firmware_bridge"}
        assert sideways <= {"firmware_bridge.uid"}, (path.name, sideways)
    for package in ("firmware_bridge", "hardware"):
        for path in (ROOT / package).rglob("*.py"):
            upward = {n for n in _imports(path) if n.split(".")[0] in ("companion", "display")}
            assert not upward, (str(path), upward)
    parsers = []
    for package in ("firmware_bridge", "hardware", "companion"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and node.name in (
                    "parse_uid",
                    "format_uid",
                    "normalise_uid",
                    "_uid",
                ):
                    parsers.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert sorted(parsers) == [
        "firmware_bridge/uid.py:format_uid",
        "firmware_bridge/uid.py:normalise_uid",
        "firmware_bridge/uid.py:parse_uid",
    ]


#: hex conversions near a UID that are not one: (file, call) — a PN532's firmware version
NOT_UIDS = {("firmware_bridge/pn532.py", "fw.hex()")}


def _hand_made_uid_text() -> list[str]:
    """Hex text ↔ bytes done by hand (``bytes.fromhex``, ``.hex()``, ``.upper()``,
    ``.replace(":", …)``, ``int(…, 16)``) in a function that handles UIDs."""
    found = []
    for package in ("firmware_bridge", "hardware", "companion", "display"):
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = str(path.relative_to(ROOT))
            # the codec itself; the hub's MicroPython firmware sends bytes and cannot import it
            if rel == "firmware_bridge/uid.py" or rel.startswith("firmware_bridge/firmware/"):
                continue
            for fn in ast.walk(ast.parse(path.read_text())):
                if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                if "uid" not in ast.unparse(fn).lower():
                    continue
                for node in ast.walk(fn):
                    if not isinstance(node, ast.Call):
                        continue
                    name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
                    text = ast.unparse(node)
                    by_hand = name in ("fromhex", "hex", "hexdigest", "upper", "unhexlify")
                    by_hand |= name == "replace" and text.startswith(("replace(':'", "replace('-'"))
                    by_hand |= name == "int" and len(node.args) == 2
                    if by_hand and (rel, text) not in NOT_UIDS:
                        found.append(f"{rel}:{node.lineno}: {text[:80]}")
    return sorted(set(found))


def test_no_uid_is_spelt_or_read_by_hand():
    """Every UID goes through the codec: a hex conversion written by hand beside a UID (the
    tag event's bytes, the synthetic registry, a log line) is a fifth parser in waiting."""
    assert _hand_made_uid_text() == []
