"""The table's view, one per state, shared by the outputs that show it, and its answers.

:mod:`~companion.views.cache` (``VIEWS``: the view of each of the last few states, built once
in the turn and kept for the bridge and the panel) and :mod:`~companion.views.answers` (the
answers too big for a turn, computed in a child process off it).

A room below both the table (:mod:`companion.table`, whose panel output reads a view) and the
MQTT bridge (:mod:`companion.mqtt`, which publishes it): the bridge takes the view from here,
not back from the table that told it. Nothing here imports another room of ``companion/``.
"""
