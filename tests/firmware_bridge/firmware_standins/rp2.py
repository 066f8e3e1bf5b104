"""Stand-in for MicroPython's ``rp2`` module: only ``bootsel_button()`` (1 while BOOTSEL is held)."""

held = [False]


def bootsel_button():
    return 1 if held[0] else 0
