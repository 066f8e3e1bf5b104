"""Typed contracts between the engine and everything that reads it.

- :mod:`~engine.contracts.events`: the event catalogue, every event's payload;
- :mod:`~engine.contracts.view`: the table view and each of its sections;
- :mod:`~engine.contracts.schema`: the JSON Schemas generated from both
  (``docs/state.schema.json``, ``docs/events.schema.json``).

Pure typing: importing it registers nothing and imports no rule family.
"""
