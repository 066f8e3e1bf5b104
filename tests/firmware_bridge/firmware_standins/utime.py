"""Stand-in for MicroPython's ``utime`` under CPython: real time, MicroPython's wrap-around ticks."""

import time

TICKS_PERIOD = 1 << 30
_T0 = time.monotonic()
_skew = [0]
_held = [None]  # the real milliseconds the clock was held at, or None: it runs


def advance(ms):
    """Move this clock ``ms`` ahead of real time (a slow bus, in the tests)."""
    _skew[0] += ms


def hold_real_time():
    """From now on the clock moves only by :func:`advance`: a test whose figure is a count of
    bus transfers (``machine.SPI_MS`` each) gets that count, however slowly the host runs."""
    _held[0] = _real_ms()


def _real_ms():
    return int((time.monotonic() - _T0) * 1000)


def ticks_ms():
    real = _real_ms() if _held[0] is None else _held[0]
    return (real + _skew[0]) % TICKS_PERIOD


def ticks_add(ticks, delta):
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(a, b):
    return ((a - b + TICKS_PERIOD // 2) % TICKS_PERIOD) - TICKS_PERIOD // 2


def sleep_ms(ms):
    time.sleep(ms / 1000)
