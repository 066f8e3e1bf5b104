"""RSS flat under a long soak (issue 17 item 2): the causes the soak found, each pinned down.

The soak (benchmarks/soak.py) sees RSS; these tests hold the mechanisms that made it grow,
measured with tracemalloc in process (docs/performance.md, "The 100,000-command soak").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

from companion.table.fd_lines import FdLines
from tests.harness import EXAMPLE_TABLE

REPO = Path(__file__).resolve().parents[3]


def _lines_file(tmp_path, lines):
    path = tmp_path / "commands.jsonl"
    path.write_bytes(b"".join(lines))
    return os.open(path, os.O_RDONLY)


def _peak_reading(path: str) -> tuple[int, int]:
    """Lines read from ``path`` after the first, and the most bytes allocated at once meanwhile."""
    fd = os.open(path, os.O_RDONLY)
    reader = FdLines(fd)
    tracemalloc.start()
    try:
        reader.readline(16385)  # the buffer is allocated here, once
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        n = 1
        while reader.readline(16385):
            n += 1
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        os.close(fd)
    return n, peak


def test_the_stdin_reader_reads_into_one_buffer_allocated_once(tmp_path):
    # 20,000 command lines (≈ 1 MB: sixteen buffers' worth). Reading into a fresh 64 KiB
    # bytes per os.read, and a bytearray that shrank and grew again, made the reader
    # thread's malloc arena grow ~50 kB per 1,000 commands in the soak.
    line = (json.dumps({"cmd": "adjust_hero", "hero": "cass", "strain": 1}) + "\n").encode()
    path = tmp_path / "commands.jsonl"
    path.write_bytes(line * 20_000)
    # in a process of its own: tracemalloc's peak counts every thread's allocations, and a
    # pytest-xdist worker's execnet threads allocate while it reads (5,631 bytes seen)
    code = (
        "import sys; from tests.companion.service.test_flat_memory import _peak_reading; "
        "print(*_peak_reading(sys.argv[1]))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    n, peak = map(int, run.stdout.split())
    assert n == 20_000
    assert peak < 4096, f"reading lines allocated {peak} bytes at once (one line is {len(line)})"


def test_the_stdin_reader_cuts_long_lines_and_keeps_every_byte(tmp_path):
    # at most n bytes a line (the rest of a too long line comes in the next reads), across
    # buffer boundaries, and the last line without its newline
    lines = [b"a" * 10 + b"\n", b"b" * 70_000 + b"\n", b"\n", b"c" * 16_385 + b"\n", b"d" * 5]
    fd = _lines_file(tmp_path, lines * 3)
    reader = FdLines(fd)
    got = []
    try:
        while piece := reader.readline(16_385):
            got.append(piece)
    finally:
        os.close(fd)
    assert all(len(p) <= 16_385 for p in got)
    assert b"".join(got) == b"".join(lines * 3)
    assert got[:2] == [b"a" * 10 + b"\n", b"b" * 16_385]
    assert got[-1] == b"d" * 5 and reader.readline(16_385) == b""


def test_the_views_the_panel_and_mqtt_compute_leave_no_reference_cycles():
    # a recursive closure in the odds (combinatorics.hands' walk, _fast's node) made each
    # view leave a cycle holding that call's lists; they piled up until a full collection
    # (25 % more long-lived objects) and set the high-water mark of Python's object arenas
    import gc

    from companion.mqtt.messages import iter_state_messages
    from companion.mqtt.topics import Topics
    from companion.table.loop import TableLoop
    from companion.table.panel_output import LazyView
    from display.render import Frame, Renderer
    from engine import load_table
    from engine.view import table_view
    from tags.registry import TagRegistry
    from tests.harness.service import session

    state = load_table(EXAMPLE_TABLE)
    loop = TableLoop(state, TagRegistry())
    render = Renderer("2.13", "bwr")
    topics = Topics("rhuna", state.table_id)
    commands = session(state, 300, seed=99)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for command in commands:
            outcome = loop.process(command, "stdin")
            render(Frame(LazyView(outcome.state)))
            list(iter_state_messages(table_view(outcome.state), topics))
        found = gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.garbage.clear()
        gc.set_debug(0)
        gc.enable()
    assert loop.processed == len(commands) > 300
    assert found == 0, f"{found} objects in reference cycles ({', '.join(kinds)})"
