"""Files that are not UTF-8 give one line naming the file (and line) and the fix, never a traceback.

Through the real command line (``companion.cli.main``): a UTF-16 session, a
Latin-1 comment in a config or a table file, a registry with a stray byte, a
binary file given to ``preview``. A UTF-8 byte-order mark is accepted.
"""

from __future__ import annotations

import codecs
import json
import shutil
from pathlib import Path

import pytest

from companion.cli import main
from tests.harness import ROOT
from tests.harness.service import write_config

TABLE = ROOT / "examples" / "table.toml"
SESSION = ROOT / "examples" / "session.jsonl"
FIX = "save the file as UTF-8"


def _one_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_a_utf16_session_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = tmp_path / "session.jsonl"
    session.write_bytes(SESSION.read_text("utf-8").encode("utf-16"))
    assert main(["replay", str(TABLE), str(session)]) == 2
    line = _one_error(capsys)
    assert line == f"rhuna-table: {session}: saved as UTF-16, not UTF-8 — {FIX}"


def test_a_latin1_comment_in_a_table_file_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    lines = TABLE.read_text("utf-8").splitlines(keepends=True)
    lines.insert(2, "# la f\u00e9e du caf\u00e9\n")
    table.write_bytes("".join(lines).encode("latin-1", errors="replace"))
    assert main(["replay", str(table), str(SESSION)]) == 2
    line = _one_error(capsys)
    assert line.startswith(f"rhuna-table: {table}:3: byte 0xE9 is not UTF-8")
    assert line.endswith(FIX)


def test_a_latin1_comment_in_the_config_names_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path)
    text = config.read_text("utf-8")
    config.write_bytes(("# r\u00e9glages\n" + text).encode("latin-1"))
    assert main(["check-config", str(config)]) == 2
    line = _one_error(capsys)
    assert line.startswith(f"{config}:1: byte 0xE9 is not UTF-8") and line.endswith(FIX)
    assert main(["run", "--config", str(config)]) == 2
    assert _one_error(capsys).endswith(FIX)


def test_a_registry_with_a_stray_byte_names_the_registry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    registry = tmp_path / "tags.json"
    registry.write_bytes(b'{"tags": {\n"04A1B2C3D4E5F6": "aria.ember.skill\xff"}}\n')
    config = write_config(tmp_path)
    text = config.read_text("utf-8").replace(
        "[registry]\nsynthetic = true\n", f'[registry]\nfile = "{registry}"\n'
    )
    config.write_text(text, "utf-8")
    assert main(["check-config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{registry}:2: byte 0xFF is not UTF-8" in err and FIX in err


def test_a_binary_file_given_to_preview_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    picture = tmp_path / "frame.png"
    shutil.copy(ROOT / "tests" / "display" / "golden" / "banner-2.13-bw.png", picture)
    assert main(["preview", str(picture), "-o", str(tmp_path / "out.png")]) == 2
    line = _one_error(capsys)
    assert (
        line
        == f"rhuna-table: {picture}: not a text file (binary data) — give a text file saved as UTF-8"
    )
    assert not (tmp_path / "out.png").exists()


def test_a_utf8_bom_is_accepted_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bom = codecs.BOM_UTF8
    table = tmp_path / "table.toml"
    table.write_bytes(bom + TABLE.read_bytes())
    session = tmp_path / "session.jsonl"
    session.write_bytes(bom + SESSION.read_bytes())
    assert main(["replay", str(table), str(session)]) == 0
    config = write_config(tmp_path / "svc")
    config.write_bytes(bom + config.read_bytes())
    assert main(["check-config", str(config)]) == 0
    view = tmp_path / "view.json"
    view.write_bytes(bom + json.dumps({"table": "t", "heroes": {}, "performance": None}).encode())
    assert main(["preview", str(view), "-o", str(tmp_path / "v.png")]) == 0
    assert "Traceback" not in capsys.readouterr().err
