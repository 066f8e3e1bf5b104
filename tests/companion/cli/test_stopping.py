"""companion/cli/stopping.py: Ctrl-C sets the stop event whatever the main thread holds.

A Python signal handler runs on the main thread between two of its bytecodes. The handler
used to call ``stop.set()``, which takes the event's lock; when the signal came while the
main thread was inside ``stop.wait(…)`` holding that very lock (a plain Lock), the thread
waited on itself for ever: ``history --follow`` hung after Ctrl-C, in one futex wait, in a
fresh-clone ``make test-loaded`` (issue 39). Here the main thread holds the lock on purpose
while the signal comes, in a child process (a hang is a timeout, not a stuck suite).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.harness import ROOT
from tests.harness.broker import WAIT

HOLDS_THE_LOCK = textwrap.dedent(
    """
    import os, signal, threading
    from companion.cli.stopping import stop_on_signals

    stop = threading.Event()
    with stop_on_signals(stop) as got:
        with stop._cond:  # where Event.wait holds it: the handler runs in here
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # bytecodes: the pending handler runs among them
                pass
        print("set" if stop.wait(60) else "never set", got, flush=True)
    """
)


def test_ctrl_c_while_the_main_thread_holds_the_stop_event_s_lock_stops_it():
    run = subprocess.run(
        [sys.executable, "-c", HOLDS_THE_LOCK],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "set [2]"


def test_the_relay_ends_with_its_context_and_leaves_no_thread():
    """``relayed`` closes its pipe and joins its thread: nothing outlives the command."""
    import threading

    from companion.cli.stopping import relayed

    def relays() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "rhuna-signal-relay"]

    event = threading.Event()
    assert relays() == []
    with relayed(event) as fire:
        assert len(relays()) == 1
        fire()
        assert event.wait(WAIT)
    assert relays() == []
