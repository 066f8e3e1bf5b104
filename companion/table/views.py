"""Moved to :mod:`companion.views.cache` (a room below the table and the MQTT bridge).

Only a compatibility re-export for the importers not yet repointed (companion/mqtt/bridge.py,
companion/mqtt/publisher.py, companion/service.py): import from :mod:`companion.views.cache`.
"""

from companion.views.cache import VIEWS, Answered, Views, turn_view

__all__ = ["VIEWS", "Answered", "Views", "turn_view"]
