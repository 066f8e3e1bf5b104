"""Stand-in for MicroPython's ``utime`` under CPython: real time, MicroPython's wrap-around ticks."""

import time

TICKS_PERIOD = 1 << 30
_T0 = time.monotonic()


def ticks_ms():
    return int((time.monotonic() - _T0) * 1000) % TICKS_PERIOD


def ticks_add(ticks, delta):
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(a, b):
    return ((a - b + TICKS_PERIOD // 2) % TICKS_PERIOD) - TICKS_PERIOD // 2


def sleep_ms(ms):
    time.sleep(ms / 1000)
