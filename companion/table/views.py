"""Moved to :mod:`companion.views.cache` (a room below the table and the MQTT bridge).

Only a compatibility re-export for the one importer not yet repointed (companion/service.py):
import from :mod:`companion.views.cache`; this module goes once nothing names it.
"""

from companion.views.cache import VIEWS, Answered, Views, turn_view

__all__ = ["VIEWS", "Answered", "Views", "turn_view"]
