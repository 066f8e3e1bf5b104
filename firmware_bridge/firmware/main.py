"""Boot file of the token hub (copy to the board as ``main.py``): Ctrl-C off, maintenance, the hub.

The host's frames contain 0x03 (every command with an empty payload does:
HELLO_REQUEST is ``03 41 01 03 d5 30 00``), and MicroPython turns a received
0x03 into KeyboardInterrupt while ``main.py`` runs, until
``micropython.kbd_intr(-1)``. So that call comes before anything else, and
this file stays small: the rp2 port turns Ctrl-C on only after compiling
``main.py`` (``shared/runtime/pyexec.c``), and the firmware proper is
compiled on import, after Ctrl-C is off.

Maintenance is decided here, before ``hubmain`` is imported, so a broken
update of the firmware still lets ``mpremote`` in. The board stops at the
REPL (Ctrl-C on, no watchdog: none was started) when

* the host's MAINTENANCE command left ``maintenance.flag``, or BOOTSEL is held;
* ``hubmain`` does not import (a SyntaxError, a missing file): restarting
  would only fail again, with Ctrl-C off, for ever;
* the firmware crashed ``MAX_CRASHES`` times in a row before the hub got going. A boot is
  counted before ``hubmain`` starts, so a watchdog reset while booting (no exception, nothing
  written after it) counts too: a boot loop stops at the REPL, not never (issue 44, D14).
  So does a power cut in that first second; ``hubmain`` clears the count once going.

Any other exception, or a 0x03 caught in the instant before ``kbd_intr``,
restarts the board: an unattended hub at the REPL answers nobody.
"""

import micropython

micropython.kbd_intr(-1)

import machine
import os

MAX_CRASHES = 3
PORT = "/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_<serial, lowercase hex>-if00"
HELP = """rhuna hub: %s.
No watchdog, Ctrl-C on: mpremote works. Copy the firmware again (docs/hardware.md, 4):
  mpremote connect %s cp hubmain.py :hubmain.py   (and the other files)
then start the hub: mpremote connect %s reset"""


def _take(path):
    try:
        f = open(path)
        text = f.read()
        f.close()
        os.remove(path)
        return text
    except OSError:
        return None


def _write(path, text):
    try:
        f = open(path, "w")
        f.write(text)
        f.close()
    except OSError:
        pass


def _bootsel():
    try:
        import rp2

        return bool(rp2.bootsel_button())
    except Exception:  # not an RP2040, or an rp2 without bootsel_button
        return False


def _stop(why):
    """Stay at the REPL for mpremote; the reset after the update is not a watchdog's."""
    _write("restart.txt", "deliberate")
    micropython.kbd_intr(3)
    print(HELP % (why, PORT, PORT))


def _crashes():
    try:
        return int(_take("crashes.txt") or 0)
    except ValueError:
        return 0


_COUNTED = [False]  # this boot is in crashes.txt already


def _main():
    crashes = _crashes()
    if _take("maintenance.flag") is not None:
        return _stop("maintenance mode")
    if _bootsel():
        return _stop("maintenance mode (BOOTSEL held)")
    if crashes >= MAX_CRASHES:
        return _stop("maintenance mode after %d crashes in a row (see restart.txt)" % crashes)
    # counted now, not only on an exception: a watchdog reset while booting leaves no trace
    # but this; hubmain clears it once going
    _write("crashes.txt", str(crashes + 1))
    _COUNTED[0] = True
    try:
        import hubmain
    except KeyboardInterrupt:
        raise
    except Exception as e:  # SyntaxError, ImportError, MemoryError: the update is broken
        _take("crashes.txt")
        return _stop("hubmain.py does not import (%s: %s)" % (type(e).__name__, e))
    hubmain.boot()


try:
    _main()
except BaseException as e:  # KeyboardInterrupt included: never sit at the REPL
    _write("restart.txt", ("%s %s" % (type(e).__name__, e))[:32])
    if not _COUNTED[0]:
        _write("crashes.txt", str(_crashes() + 1))
    machine.reset()
