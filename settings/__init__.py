"""The config side, below everything else: the one error a file people wrote can raise,
the one config checker, reading text files and writing files durably.

Every room declares its ``rhuna.toml`` section with :mod:`settings.checker` and raises
:class:`~settings.errors.ConfigError`; the engine reads table and rules files with
:mod:`settings.textfile`; :mod:`settings.atomic` writes a file whole or not at all.
Every part's health check yields a :class:`settings.checks.Check` and reads the Pi through
:class:`settings.machine.Machine` (which board, its config.txt: :mod:`settings.board`).
:mod:`settings.latest` is the one latest-wins worker thread, and :mod:`settings.trace` the
one trace of where a turn's time goes (off unless ``RHUNA_TURN_TRACE`` is set), which the
table's turn and the view's cache below it both write.
This package imports nothing else of the project's: every other room may import it.
"""

from settings.errors import ConfigError

__all__ = ["ConfigError"]
