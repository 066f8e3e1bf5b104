"""RSS flat under a long soak (issue 17 item 2): the causes the soak found, each pinned down.

The soak (benchmarks/soak.py) sees RSS; these tests hold the mechanisms that made it grow,
measured with tracemalloc in process (docs/performance.md, "The 100,000-command soak").
"""

from __future__ import annotations

import json
import os
import tracemalloc

from companion.command_source import _FdLines


def _lines_file(tmp_path, lines):
    path = tmp_path / "commands.jsonl"
    path.write_bytes(b"".join(lines))
    return os.open(path, os.O_RDONLY)


def test_the_stdin_reader_reads_into_one_buffer_allocated_once(tmp_path):
    # 20,000 command lines (≈ 1 MB: sixteen buffers' worth). Reading into a fresh 64 KiB
    # bytes per os.read, and a bytearray that shrank and grew again, made the reader
    # thread's malloc arena grow ~50 kB per 1,000 commands in the soak.
    line = (json.dumps({"cmd": "adjust_hero", "hero": "cass", "strain": 1}) + "\n").encode()
    fd = _lines_file(tmp_path, [line] * 20_000)
    reader = _FdLines(fd)
    tracemalloc.start()
    try:
        assert reader.readline(16385) == line  # the buffer is allocated here, once
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        n = 1
        while reader.readline(16385):
            n += 1
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
        os.close(fd)
    assert n == 20_000
    assert peak < 4096, f"reading lines allocated {peak} bytes at once (one line is {len(line)})"


def test_the_stdin_reader_cuts_long_lines_and_keeps_every_byte(tmp_path):
    # at most n bytes a line (the rest of a too long line comes in the next reads), across
    # buffer boundaries, and the last line without its newline
    lines = [b"a" * 10 + b"\n", b"b" * 70_000 + b"\n", b"\n", b"c" * 16_385 + b"\n", b"d" * 5]
    fd = _lines_file(tmp_path, lines * 3)
    reader = _FdLines(fd)
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
