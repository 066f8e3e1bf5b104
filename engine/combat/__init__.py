"""The six-tick combat wheel (seed 003, rules C1–C11).

Importing this package registers the commands, the table section, the view and
the narrators (from :mod:`engine.combat.hooks`). It imports only the core.
"""

from engine.combat import hooks  # noqa: F401  (registers)
