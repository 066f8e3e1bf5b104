"""Stand-in for MicroPython's ``utime`` under CPython: real time, MicroPython's wrap-around ticks."""

import time

TICKS_PERIOD = 1 << 30
_T0 = time.monotonic()
_skew = [0]


def advance(ms):
    """Move this clock ``ms`` ahead of real time (a slow bus, in the tests)."""
    _skew[0] += ms


def ticks_ms():
    return (int((time.monotonic() - _T0) * 1000) + _skew[0]) % TICKS_PERIOD


def ticks_add(ticks, delta):
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(a, b):
    return ((a - b + TICKS_PERIOD // 2) % TICKS_PERIOD) - TICKS_PERIOD // 2


def sleep_ms(ms):
    time.sleep(ms / 1000)
