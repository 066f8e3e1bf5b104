"""benchmarks/latency.py still runs end to end: a few samples of each distribution.

`make bench`'s latency rows and their floor (issue 17 item 3) come from it, and nothing else
in `make test` runs it: a change to the service, the journal or the hub emulator that breaks
it would otherwise be found only by the next person who measures. Its figures are not
judged here (a test asserts no wall time); what is checked is that every distribution was
sampled and that the floor is made of this run's own raw and commit figures.
"""

from __future__ import annotations

from benchmarks import latency


def test_latency_measures_every_distribution_and_the_floor_from_the_same_run():
    result = latency.measure(4)
    for key in ("raw", "command_event", "tag_state", "commit"):
        assert result[key]["n"] >= 4, key
        assert 0 < result[key]["p50_ms"] <= result[key]["p99_ms"], key
    raw, commit, floor = result["raw"], result["commit"], result["floor"]
    assert floor["p50_ms"] == raw["p50_ms"] + commit["p50_ms"]
    assert floor["commit_p99_ratio"] == commit["p99_ms"] / raw["p99_ms"]
    for key in ("command_event", "tag_state"):
        assert result[key]["p99_ratio"] == result[key]["p99_ms"] / raw["p99_ms"]
