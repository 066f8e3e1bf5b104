"""The fork server is started so that a Ctrl-C in its first instant is no traceback
(display/forkserver_signals.py): a terminal's Ctrl-C reaches the whole process group, the fork
server's new interpreter included, and one that came 0.1 s after a start on a loaded machine
printed a KeyboardInterrupt traceback and left the panel reading "unexpected EOF"."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.harness import ROOT, WAIT

#: a process group of its own that starts the fork server, then at once sends the whole
#: group a Ctrl-C (the script itself ignores it, as the service's handler takes it), then
#: has a child run through the same server
_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from display.forkserver_signals import fork_server
    from display.process import PRELOAD

    signal.signal(signal.SIGINT, lambda *_: None)
    ctx = fork_server(PRELOAD)
    os.killpg(0, signal.SIGINT)
    child = ctx.Process(target=print, args=("the child ran",))
    child.start()
    child.join(60)
    sys.exit(child.exitcode)
    """
)


def test_a_ctrl_c_as_the_fork_server_starts_is_no_traceback_and_it_serves_on() -> None:
    for attempt in range(3):
        done = subprocess.run(
            [sys.executable, "-c", _SCRIPT],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=6 * WAIT,
            start_new_session=True,
        )
        assert "KeyboardInterrupt" not in done.stderr, (attempt, done.stderr)
        assert done.returncode == 0, (attempt, done.stderr)
        assert "the child ran" in done.stdout, (attempt, done.stdout, done.stderr)
