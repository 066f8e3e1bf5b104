"""The short soak (make test; ``make soak`` runs 100,000): the real service takes a few
thousand commands on standard input as fast as it answers; after warm-up its threads and
file descriptors do not grow and its RSS stays within 5 MB; every line is answered.
The state afterwards is the journal replayed."""

from __future__ import annotations

from benchmarks import soak
from tests.harness.service import assert_state_is_the_journal_replayed


def test_a_short_soak_keeps_memory_threads_and_descriptors_flat(tmp_path):
    result = soak.soak(2500, folder=tmp_path)
    assert soak.verdict(result) == [], result
    assert result["answers"]["ack"] == 2500
    seq, _ = assert_state_is_the_journal_replayed(tmp_path)
    assert seq == 2500
