"""The Performance (P1–P23): declaration, draws, Redraw, Favor, resolution, the hero sheet, odds.

Importing this package registers the family's commands, narrators and view
sections (``performance`` and ``odds``, in that order). It imports only the core.

- :mod:`~engine.performance.commands`: declare, draw, Redraw, Call Favor, resolve, Reset.
- :mod:`~engine.performance.health`: the Fatigue → Strain → Wound cascade (P13–P15).
- :mod:`~engine.performance.sheet`: hero sheets, Training, the Moment, adjustments.
- :mod:`~engine.performance.odds` and :mod:`~engine.performance.combinatorics`: exact odds.
- :mod:`~engine.performance.narrate` and :mod:`~engine.performance.view`: for people and screens.
"""

# The view's sections appear in import order: the Performance, then its odds.
# isort: off
from engine.performance import commands, narrate, sheet  # noqa: F401  (registers)
from engine.performance import view  # noqa: F401
from engine.performance import odds  # noqa: F401
# isort: on
