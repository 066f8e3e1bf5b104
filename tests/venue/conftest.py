"""The convention's brokers: real Mosquittos bridged to a venue (``tests/venue/rig.py``)."""
