"""``rhuna-table history`` and ``export`` on a night played through the real service.

The night (tests/harness/record.py) runs on the service with its emulated token
hub on a real pty: tokens laid on the Draw Board, commands from a remote and
from MQTT, a Redraw (P11), an Undo, Time draws (T3), the example fight (C1–C11).
The exported odds are checked against the engine's own odds view at the state
just before each draw, replayed independently here from the raw journal rows.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import re
import shutil
import sqlite3
import threading
import time
from fractions import Fraction
from pathlib import Path

import pytest

from companion.cli import main
from companion.record.history import history
from companion.record.journal import open_journal
from companion.record.night import gather
from companion.table.loop import Outcome
from companion.table.store import Store
from engine import apply, load_table, load_table_text
from engine.events import Event
from engine.narrate import describe
from engine.performance.odds import odds_view
from tests.harness import ROOT, WAIT, wait_until
from tests.harness.record import Night, setup_table, start


@pytest.fixture(scope="module")
def exported(night: Night, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export")
    assert main(["export", str(night.state_dir), "--to", str(out)]) == 0
    return out


def rows(night: Night) -> list[tuple[int, float, str, dict, list]]:
    db = sqlite3.connect(f"{(night.state_dir / 'journal.sqlite').as_uri()}?mode=ro", uri=True)
    try:
        return [
            (seq, at, source, json.loads(c), json.loads(e))
            for seq, at, source, c, e in db.execute("SELECT * FROM journal ORDER BY seq")
        ]
    finally:
        db.close()


def states_before(night: Night) -> dict[int, object]:
    """seq → the table just before that journal row, replayed here with engine.apply."""
    state = load_table(night.table)
    out = {}
    for seq, _, _, command, _ in rows(night):
        out[seq] = state
        state, _ = apply(state, command)
    return out


def view_odds(group: dict) -> tuple[Fraction, Fraction]:
    """(as drawn, best play) of one group of the view's odds section."""

    def f(x: dict) -> Fraction:
        return Fraction(x["num"], x["den"])

    return f(group["as_drawn"]), f(group["best_play"])


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def odds(row: dict[str, str], column: str) -> Fraction:
    """An odds from its numerator and denominator columns (``column``: without the suffix)."""
    return Fraction(int(row[f"{column}_numerator"]), int(row[f"{column}_denominator"]))


# --- history -----------------------------------------------------------------------------


def test_history_narrates_every_command_with_time_source_and_events(night, capsys) -> None:
    assert main(["history", str(night.state_dir)]) == 0
    out = capsys.readouterr().out
    journal = rows(night)
    heads = [line for line in out.splitlines() if line.startswith("#")]
    assert [int(h.split()[0][1:]) for h in heads] == [r[0] for r in journal]
    assert any(
        " reader:draw-board " in h and "draw aria token=aria.potential.lore.1" in h for h in heads
    )
    assert any(" mqtt:" in h and "draw aria seed=2" in h for h in heads)
    assert any(" worldkeeper " in h and "start_session" in h for h in heads)
    # every event in the engine's own words, said against the state after its command
    state = load_table(night.table)
    for _, _, _, command, events in journal:
        state, _ = apply(state, command)
        for e in events:  # an Undo also says what it took back (the test below)
            if e["type"] != "undone":
                assert describe(state, Event.from_json(e)) in out


def test_history_last_n_prints_only_the_newest(night, capsys) -> None:
    assert main(["history", str(night.state_dir), "--last", "3", "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    last = rows(night)[-3:]
    assert [x["seq"] for x in lines] == [r[0] for r in last]
    assert lines[-1]["command"] == "reset" and lines[-1]["events"]


def test_history_stopped_prints_no_further_row(night) -> None:
    """Ctrl-C in a long night's history (the CLI sets ``stop`` on SIGINT: companion.cli.stopping)
    ends it at the next row: a stop already set prints none, without one every row."""
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        stopped = threading.Event()
        stopped.set()
        assert history(journal, io.StringIO(), stop=stopped) == 0
        assert history(journal, io.StringIO()) == len(rows(night)) > 0


def test_history_follows_a_running_service_without_blocking_it(tmp_path) -> None:
    """WAL: a reader beside the writer. The service keeps acknowledging while history reads."""
    running = start(setup_table(tmp_path))
    try:
        running.command({"cmd": "begin_performance", "difficulty": 4})
        out = io.StringIO()
        stop = threading.Event()
        state_dir = running.service.config.state_dir
        with open_journal(state_dir / "journal.sqlite") as journal:
            follower = threading.Thread(
                target=history,
                args=(journal, out),
                kwargs={"follow": True, "stop": stop, "poll": 0.05},
                daemon=True,
            )
            follower.start()
            for hero in (
                "aria",
                "bren",
            ):  # acknowledged beside the reader (how soon: benchmarks/record.py)
                running.command(
                    {
                        "cmd": "declare",
                        "hero": hero,
                        "shade": "control",
                        "capability": "faith" if hero == "bren" else "skill",
                        "action": "target",
                    }
                )
            wait_until(lambda: "#3" in out.getvalue(), "history to follow to #3")
            stop.set()
            follower.join(5)
        text = out.getvalue()
        assert "#1" in text and "#2" in text and "#3" in text
        assert "Bren declares Control · faith" in text
    finally:
        running.close()


def test_history_follows_into_the_next_session(tmp_path) -> None:
    """`run --new-session` archives the journal under the follower: it prints the rows it
    had not yet printed, then follows the new session's journal."""
    config = setup_table(tmp_path)
    running = start(config)
    out = io.StringIO()
    stop = threading.Event()
    state_dir = running.service.config.state_dir
    try:
        running.command({"cmd": "begin_performance", "difficulty": 4})
        journal = open_journal(state_dir / "journal.sqlite")
        follower = threading.Thread(
            target=history,
            args=(journal, out),
            kwargs={"follow": True, "stop": stop, "poll": 0.05},
            daemon=True,
        )
        follower.start()
        running.command({"cmd": "adjust_hero", "hero": "aria", "favor": 1})
    finally:
        running.close()
    running = start(config, new_session=True)
    try:
        running.command({"cmd": "adjust_hero", "hero": "bren", "favor": 1})
        wait_until(lambda: "Bren now has" in out.getvalue(), lambda: out.getvalue())
    finally:
        stop.set()
        follower.join(WAIT)
        journal.close()
        running.close()
    assert not follower.is_alive()  # stopped at its next poll, not left following
    text = out.getvalue()
    assert text.index("Aria now has 3 Favor") < text.index("a new session begins")
    assert text.index("a new session begins") < text.index("Bren now has 2 Favor")


# --- export --------------------------------------------------------------------------------


def test_events_jsonl_is_every_journal_row_with_seq_time_and_source(night, exported) -> None:
    got = [json.loads(x) for x in (exported / "events.jsonl").read_text("utf-8").splitlines()]
    want = rows(night)
    assert len(got) == len(want)
    for g, (seq, at, source, command, events) in zip(got, want, strict=True):
        assert (g["seq"], g["at"], g["source"], g["command"], g["events"]) == (
            seq,
            at,
            source,
            command,
            events,
        )
        assert g["time"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def test_draws_csv_odds_equal_the_engines_just_before_each_draw_p19(night, exported) -> None:
    draws = read_csv(exported / "draws.csv")
    before = states_before(night)
    laid = [
        (seq, e)
        for seq, _, _, _, events in rows(night)
        for e in events
        if e["type"] in ("token_drawn", "token_replaced", "favor_called")
    ]
    assert [(int(r["seq"]), r["token"]) for r in draws] == [(s, e["token"]) for s, e in laid]
    kinds = {r["kind"] for r in draws}
    assert {"draw", "redraw"} <= kinds  # P11: Aria's Redraw is on record
    sources = {r["source"] for r in draws}
    assert {"reader:draw-board", "mqtt:1", "worldkeeper"} <= sources
    for row in draws:
        view = odds_view(before[int(row["seq"])])
        group = next(g for g in view["groups"] if row["hero"] in g["heroes"])
        as_drawn, best_play = view_odds(group)
        assert odds(row, "as_drawn_before") == as_drawn, row
        assert odds(row, "best_play_before") == best_play, row
        assert float(row["as_drawn_before_percent"]) == pytest.approx(
            float(as_drawn) * 100, abs=0.005
        )
    undone = [r for r in draws if r["undone"] == "true"]
    assert [(r["hero"], r["token"]) for r in undone] == [("bren", "bren.ember.faith")]


def test_performances_csv_has_each_resolution_and_its_cost_p19(night, exported) -> None:
    perfs = read_csv(exported / "performances.csv")
    resolved = [
        e
        for _, _, _, _, events in rows(night)
        for e in events
        if e["type"] == "performance_resolved"
    ]
    got = [(r["heroes"], int(r["total"]), r["outcome"]) for r in perfs if r["total"]]
    want = [
        ("+".join(e["heroes"]), e["total"], "success" if e["success"] else "failure")
        for e in resolved
    ]
    assert got == want
    draws = read_csv(exported / "draws.csv")
    for r in perfs:
        first = next(
            d for d in draws if d["performance"] == r["performance"] and d["kind"] == "draw"
        )
        for part in ("numerator", "denominator", "percent"):
            assert r[f"best_play_before_first_draw_{part}"] == first[f"best_play_before_{part}"]
            assert r[f"as_drawn_before_first_draw_{part}"] == first[f"as_drawn_before_{part}"]


def test_export_opens_the_journal_read_only_and_never_changes_it(night, tmp_path) -> None:
    journal = night.state_dir / "journal.sqlite"

    def digest() -> list[str]:
        return [
            hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(night.state_dir.glob("journal.sqlite*"))
            if p.name != "journal.sqlite-shm"  # SQLite's shared-memory index, not the data
        ]

    before, mtime = digest(), journal.stat().st_mtime_ns
    assert (
        main(["export", str(night.state_dir), "--to", str(tmp_path / "a"), "--format", "md"]) == 0
    )
    assert digest() == before and journal.stat().st_mtime_ns == mtime
    with open_journal(journal) as j, pytest.raises(sqlite3.OperationalError, match="readonly"):
        j.db.execute("DELETE FROM journal")


def test_a_markdown_recap_tells_each_performance_and_the_luck(night, tmp_path) -> None:
    assert main(["export", str(night.state_dir), "--to", str(tmp_path), "--format", "md"]) == 0
    text = (tmp_path / "recap.md").read_text("utf-8")
    assert "Performance 1 (Difficulty 5): Aria 5 vs 5: SUCCESS" in text
    assert "| Aria | 1 |" in text and "## Luck against the odds" in text
    assert "Fight 1:" in text and "Time draws" in text
    assert not (tmp_path / "recap.html").exists()


# --- luck against the odds, by hand -------------------------------------------------------

#: one hero, no Redraw, no Favor: best play = as drawn, and the odds can be counted by hand
DANA = """
[table]
id = "luck"
[capabilities]
pathways = ["skill", "lore", "wild"]
[[heroes]]
id = "dana"
pathways = { skill = "control", lore = "versatility", wild = "impulse" }
training = { lore = "trained" }
"""


def hand_odds(bag: list[int], draws: int, difficulty: int) -> Fraction:
    """P(sum of ``draws`` tokens drawn without replacement ≥ difficulty), by enumeration."""
    hands = list(itertools.combinations(range(len(bag)), draws))
    good = sum(1 for h in hands if sum(bag[i] for i in h) >= difficulty)
    return Fraction(good, len(hands))


def test_luck_equals_a_hand_computation_on_a_small_session(tmp_path) -> None:
    """Dana (Trained in lore: 3 draws, P6) declares Control·lore three times. Her bag (P12,
    P16, P17): the Control Ember 2, the Versatility Ember 1, six Potentials 1V, the Impulse
    Ember 0 (I-P1) and three Weights 0 (WEIGHT OFF) — twelve tokens."""
    table = tmp_path / "luck.toml"
    table.write_text(DANA)
    bag = [2, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0]
    declare = {"cmd": "declare", "hero": "dana", "shade": "control", "capability": "lore"}
    declare["action"] = "target"
    plays = [
        (3, ["dana.ember.skill", "dana.potential.lore.1", "dana.weight.0"]),  # 3 ≥ 3
        (4, ["dana.potential.skill.1", "dana.weight.1", "dana.ember.wild"]),  # 1 < 4
        (4, ["dana.ember.skill", "dana.ember.lore", "dana.potential.wild.2"]),  # 4 ≥ 4
    ]
    state = load_table_text(DANA)
    ticks = itertools.count(1_800_000_000)
    with Store.open(tmp_path / "state", clock=lambda: float(next(ticks))) as store:
        store.restore(state, table)
        for difficulty, tokens in plays:
            commands = [{"cmd": "begin_performance", "difficulty": difficulty}, declare]
            commands += [{"cmd": "draw", "hero": "dana", "token": t} for t in tokens]
            for cmd in [*commands, {"cmd": "resolve"}, {"cmd": "reset"}]:
                state, events = apply(state, cmd)
                store.append(Outcome("script", state, cmd, tuple(events)))
    expected = sum(hand_odds(bag, 3, d) for d, _ in plays)
    with open_journal(tmp_path / "state" / "journal.sqlite") as journal:
        luck = gather(journal).luck["dana"]
    assert (luck.checks, luck.actual) == (3, 2)
    assert luck.expected == luck.expected_as_drawn == expected
    assert [p for p, _ in luck.points] == [hand_odds(bag, 3, d) for d, _ in plays]
    assert (
        main(["export", str(tmp_path / "state"), "--to", str(tmp_path / "out"), "--format", "md"])
        == 0
    )
    assert f"| Dana | 3 | {float(expected):.2f} | {float(expected):.2f} | 2 |" in (
        tmp_path / "out" / "recap.md"
    ).read_text("utf-8")


# --- bad input: one clear line ------------------------------------------------------------


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    return err


def test_an_unknown_session_id_is_one_line_listing_the_known_ones(night, tmp_path, capsys) -> None:
    code = main(
        ["export", "20200101T000000Z", "--state-dir", str(night.state_dir), "--to", str(tmp_path)]
    )
    err = one_line(capsys)
    assert code == 2 and "unknown session id" in err and "current" in err
    assert not list(tmp_path.iterdir())


def test_a_corrupt_archive_is_one_line(night, tmp_path, capsys) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    junk = archive / "journal-20261130T200000Z.sqlite"
    junk.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 16)
    code = main(["history", "20261130T200000Z", "--state-dir", str(tmp_path)])
    err = one_line(capsys)
    assert code == 2 and str(junk) in err and "damaged" in err
    # a real journal with its pages overwritten half-way
    broken = archive / "journal-20261130T210000Z.sqlite"
    shutil.copy(night.state_dir / "journal.sqlite", broken)
    data = bytearray(broken.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4096] = b"\xff" * 4096
    broken.write_bytes(bytes(data))
    code = main(["export", str(broken), "--to", str(tmp_path / "out")])
    err = one_line(capsys)
    assert code == 2 and str(broken) in err


def test_a_journal_from_another_table_is_one_line(night, tmp_path, capsys) -> None:
    other = ROOT / "examples" / "fight.toml"
    code = main(["export", str(night.state_dir), "--to", str(tmp_path), "--table", str(other)])
    err = one_line(capsys)
    assert code == 2 and "from another table" in err and "--table" in err


# --- spreadsheet-safe CSV (issue 32 item 7) ----------------------------------------------

#: a cell a spreadsheet runs as a formula (OWASP "CSV Injection")
FORMULA = ("=", "+", "-", "@", "\t", "\r")
NUMBER = re.compile(r"-?\d+(\.\d+)?")
#: what LibreOffice and Excel turn into a date or a time: 5/11, 12/25, 1-2, 2026-12-01, 18:30
DATE_LIKE = re.compile(r"\s*\d{1,4}\s*[/.:-]\s*\d{1,2}(\s*[/.:-]\s*\d{1,4})?\s*")
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def assert_spreadsheet_safe(path: Path) -> None:
    """Every cell of a CSV the project wrote is a plain number, the ISO ``time``, or text a
    spreadsheet keeps as text: none starts a formula, none reads as a date or a time."""
    with path.open(encoding="utf-8", newline="") as f:
        table = list(csv.reader(f))
    header, body = table[0], table[1:]
    assert body, f"{path}: no rows to check"
    for n, row in enumerate(body, 2):
        for column, cell in zip(header, row, strict=True):
            where = f"{path.name}:{n} {column}={cell!r}"
            if cell == "" or cell.startswith("'") or NUMBER.fullmatch(cell):
                continue
            if column == "time":
                assert ISO_TIME.fullmatch(cell), where
                continue
            assert not cell.startswith(FORMULA), f"{where}: starts a formula"
            assert not DATE_LIKE.fullmatch(cell), f"{where}: reads as a date or time"


def test_every_csv_of_the_export_is_spreadsheet_safe(night, exported) -> None:
    """16 of the example night's 60 odds cells read as dates as one ``a/b`` cell (issue 32):
    each odds is now three numeric columns, and every cell of every CSV is checked."""
    written = sorted(p.name for p in exported.glob("*.csv"))
    assert written == ["draws.csv", "performances.csv"]  # every CSV the project writes
    for name in written:
        assert_spreadsheet_safe(exported / name)
    draws = read_csv(exported / "draws.csv")
    assert {"best_play_before", "as_drawn_before"}.isdisjoint(draws[0])
    for row in draws:
        if row["best_play_before_denominator"]:
            p = odds(row, "best_play_before")
            assert float(row["best_play_before_percent"]) == pytest.approx(
                float(p) * 100, abs=0.005
            )


def test_hostile_text_in_a_csv_is_kept_as_text_owasp(tmp_path) -> None:
    """A hero named like a formula and a source that starts one (a table file and a journal
    are anyone's to write): each cell starts with ``'``, so a spreadsheet shows the text and
    runs nothing. A Weight token's -1 stays the number -1."""
    hostile = '=HYPERLINK("http://evil.example/","click")'
    text = (ROOT / "examples" / "table.toml").read_text("utf-8")
    text = text.replace('name = "Aria"', "name = '" + hostile + "'", 1)
    table = tmp_path / "table.toml"
    table.write_text(text, "utf-8")
    state = load_table_text(text)
    commands = [
        ({"cmd": "begin_performance", "difficulty": 5, "weight": "mass"}, "@SUM(1+1)"),
        (
            {
                "cmd": "declare",
                "hero": "aria",
                "shade": "control",
                "capability": "skill",
                "action": "target",
            },
            "-2+3",
        ),
        ({"cmd": "draw", "hero": "aria", "token": "aria.weight.0"}, "\tcmd"),
        ({"cmd": "draw", "hero": "aria", "token": "aria.ember.skill"}, "5/11"),
        ({"cmd": "draw", "hero": "aria", "token": "aria.potential.lore.1"}, "12-25"),
        ({"cmd": "draw", "hero": "aria", "token": "aria.weight.1"}, "18:30"),
        ({"cmd": "resolve"}, "+1"),
    ]
    ticks = itertools.count(1_800_000_000)
    with Store.open(tmp_path / "state", clock=lambda: float(next(ticks))) as store:
        store.restore(state, table)
        for cmd, source in commands:
            state, events = apply(state, cmd)
            store.append(Outcome(source, state, cmd, tuple(events)))
    out = tmp_path / "out"
    assert main(["export", str(tmp_path / "state"), "--to", str(out)]) == 0
    for name in ("draws.csv", "performances.csv"):
        assert_spreadsheet_safe(out / name)
    draws = read_csv(out / "draws.csv")
    assert [r["source"] for r in draws] == ["'\tcmd", "'5/11", "'12-25", "'18:30"]
    assert draws[0]["token_name"].startswith("'" + hostile), draws[0]
    assert draws[0]["value"] == "-1"  # a number, not text


def test_an_export_never_replaces_last_weeks_silently(night, tmp_path, capsys) -> None:
    """--to a folder with files in it is refused, listing them, and nothing is written; with
    --force the export's files are replaced (others left); a file as --to is refused."""
    week = tmp_path / "last-week"
    assert main(["export", str(night.state_dir), "--to", str(week)]) == 0
    (week / "notes.txt").write_text("ours\n", "utf-8")
    before = {p.name: p.read_bytes() for p in week.iterdir()}
    capsys.readouterr()
    assert main(["export", str(night.state_dir), "--to", str(week)]) == 2
    err = one_line(capsys)
    assert (
        f"--to {week}: {week} is not empty: draws.csv, events.jsonl, notes.txt,"
        " performances.csv, recap-worldkeeper.html and 1 more; an export from " in err
    ), err
    assert "nothing written" in err and "--force" in err
    assert {p.name: p.read_bytes() for p in week.iterdir()} == before
    assert main(["export", str(night.state_dir), "--to", str(week), "--force"]) == 0
    assert (week / "notes.txt").read_text("utf-8") == "ours\n"
    capsys.readouterr()
    # --force --format md leaves no old recap.html behind without a word (issue 41 item 13)
    assert (
        main(["export", str(night.state_dir), "--to", str(week), "--force", "--format", "md"]) == 0
    )
    said = capsys.readouterr().out
    assert not (week / "recap.html").exists() and not (week / "recap-worldkeeper.html").exists()
    assert f"removed {week / 'recap.html'} (the earlier export's recap" in said, said
    assert (week / "recap.md").is_file() and (week / "recap-worldkeeper.md").is_file()
    a_file = week / "notes.txt"
    assert main(["export", str(night.state_dir), "--to", str(a_file), "--force"]) == 2
    err = one_line(capsys)
    assert f"{a_file} is a file, not a folder" in err and "--force" not in err, err


# --- replayable records, history as prose (issue 32 item 8) ------------------------------


def _state_after_replay(table: Path, session: Path, capsys) -> dict:
    capsys.readouterr()
    assert main(["replay", str(table), str(session), "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_replay_takes_events_jsonl_and_history_json_as_they_are(night, exported, tmp_path, capsys):
    """The night's export and its ``history --json`` replay, unedited, to the table the
    journal ends at (Undo, Redraw, Time draws and the fight included)."""
    with open_journal(night.state_dir / "journal.sqlite") as journal:
        want = journal.final_state().without_history().to_json()
    want = json.loads(json.dumps(want))  # as JSON reads it back
    assert _state_after_replay(night.table, exported / "events.jsonl", capsys) == want
    assert main(["history", str(night.state_dir), "--json"]) == 0
    history_json = tmp_path / "history.jsonl"
    history_json.write_text(capsys.readouterr().out, "utf-8")
    assert _state_after_replay(night.table, history_json, capsys) == want


def test_a_command_s_text_is_the_command_again_for_every_journal_row(night) -> None:
    from companion.record.narrate import command_text, parse_command_text

    for _, _, _, command, _ in rows(night):
        kept = {k: v for k, v in command.items() if k not in ("id", "source")}
        assert parse_command_text(command_text(command)) == kept, command


def test_history_reads_as_prose_and_an_undo_says_what_it_took_back(night, capsys) -> None:
    """No Python literal (``exert=True``, ``['…']``, ``None``) in any line; Bren's Undo names
    the draw it took back; the sources are the export's own names, row by row."""
    assert main(["history", str(night.state_dir)]) == 0
    text = capsys.readouterr().out
    python = re.compile(r"=(True|False|None)\b|\['|\{'|': ")
    assert not [line for line in text.splitlines() if python.search(line)], text
    assert "declare bren shade=impulse capability=steel action=target exert=false" in text
    undo = next(r for r in rows(night) if r[3]["cmd"] == "undo")
    taken = [r for r in rows(night) if r[0] < undo[0] and r[3]["cmd"] == "draw"][-1]
    assert taken[3]["hero"] == "bren"
    said = f"Undone #{taken[0]} draw bren seed={taken[3]['seed']} (" in text
    assert said, text
    # the retained …/history a page reads after a restart says it too (narrate.recent)
    from companion.record.journal import open_journal
    from companion.record.narrate import recent

    with open_journal(night.state_dir / "journal.sqlite") as journal:
        entries = recent(journal, journal.last_state(night.table), journal.last_seq())
    [undone] = [e for e in entries if e["command"] == "undo"]
    assert undone["events"][0].startswith(
        f"Undone #{taken[0]} draw bren seed={taken[3]['seed']} ("
    ), undone
    assert main(["history", str(night.state_dir), "--json"]) == 0
    printed = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [e["source"] for e in printed] == [source for _, _, source, _, _ in rows(night)]
