"""The running table: the one loop that changes state, its journal, and what feeds and reads it.

:mod:`~companion.table.loop` (one queue, the only code that changes state),
:mod:`~companion.table.store` (the SQLite journal; its pieces
:mod:`~companion.table.statedir`, :mod:`~companion.table.journal_file`, :mod:`~companion.table.wal`,
:mod:`~companion.table.replay`, :mod:`~companion.table.snapshots`; its format
:mod:`~companion.table.journal`), :mod:`~companion.table.inputs`
(the inputs' envelope), :mod:`~companion.table.command_source` (commands from a
stream, read by :mod:`~companion.table.fd_lines`), :mod:`~companion.table.ponder` (the likely next draws, applied ahead),
:mod:`~companion.table.panel_output` (the panel as a subscriber, its view from
:mod:`companion.views`) and :mod:`~companion.table.sdnotify` (systemd's notify socket).

Nothing here imports the MQTT side, the record, the ops tools, the CLI or the
composition root (``companion/service.py``): they are built on top of it. Below it only
:mod:`companion.views` (the view of each state and its answers), which the bridge reads too.
"""
