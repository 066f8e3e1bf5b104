"""Plug combat into the engine: commands, the table section, the view and the narrators.

Imported once by :mod:`engine.combat`; each import registers through the engine's own hooks.
"""

from engine.combat import afflictions, commands, joining, narrate, roster, view

__all__ = ["afflictions", "commands", "joining", "narrate", "roster", "view"]
