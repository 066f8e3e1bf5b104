"""The token hub's MicroPython firmware (``main.py``, ``hubmain.py``, ``hubcore.py``, ``mfrc522.py``).

On the hub these files sit flat on the board's filesystem beside a copy of
``firmware_bridge/protocol.py`` (see ``docs/readers.md``). This package file
only lets the host import the hardware-free parts: the device emulator runs
``hubcore`` with virtual readers, and the tests run all three under CPython
with a stand-in for ``machine``/``utime``.
"""
