"""A hung panel is seen (issue 43, item 5): the panel's process stopped in the middle of a
frame (SIGSTOP: as stuck as a Waveshare whose BUSY never clears) is, past the refresh's
deadline, "panel not responding" on the status line (sd_notify STATUS=) and the panel's
banner, while the table goes on committing; the process resumed, the notice goes.

Real parts: the Service in process, its panel in a real child process (the PNG driver).
"""

from __future__ import annotations

import os
import signal

from tests.harness import ARIA, BEGIN, wait_until
from tests.harness.service import InProcess


def test_a_stuck_panel_is_said_in_the_status_line_and_the_table_goes_on(tmp_path):
    table = InProcess(tmp_path)
    svc = table.service
    pid = None
    try:
        worker = svc.worker
        assert worker is not None
        worker.deadline_floor = 0.5  # the PNG panel's refresh time is 0 s: the floor rules
        table.submit(BEGIN)
        table.settled(1)
        assert worker.wait_idle(60)
        pid = worker.pid
        assert pid is not None
        os.kill(pid, signal.SIGSTOP)  # the panel's process stuck mid-frame
        table.submit(ARIA)  # a frame for the stuck panel; the table must not wait for it
        table.settled(2)
        wait_until(lambda: "panel" in svc.alerts, "the panel said not responding")
        assert svc.alerts["panel"].startswith("panel not responding:")
        assert "panel not responding" in svc.status_line()
        assert worker.not_responding is not None and worker.stats.overdue >= 1
        os.kill(pid, signal.SIGCONT)
        pid = None
        wait_until(lambda: "panel" not in svc.alerts, "the panel responding again")
        assert "panel not responding" not in svc.status_line()
        assert worker.stats.errors == 0
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGCONT)
        table.close()
