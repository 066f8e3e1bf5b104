"""The Time Board (T1–T12): the board, Time draws, setup, Weather, Rest, temporary tokens.

Importing this package registers the family's commands, table section,
narrators and the view's ``time`` section. It imports the core and, where the
rules tie them, :mod:`engine.performance.health`: Fatigue from Time, Weather and
Rest goes through the P13 cascade.
"""

from engine.time import (  # noqa: F401  (registers)
    draws,
    narrate,
    rest,
    setup,
    temporary,
    view,
    weather,
)
