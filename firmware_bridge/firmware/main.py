"""Boot file of the token hub (copy to the board as ``main.py``): Ctrl-C off, then the hub.

The host's frames contain 0x03 (every command with an empty payload does:
HELLO_REQUEST is ``03 41 01 03 d5 30 00``), and MicroPython turns a received
0x03 into KeyboardInterrupt while ``main.py`` runs, until
``micropython.kbd_intr(-1)``. So that call comes before anything else, and
this file stays small: the rp2 port turns Ctrl-C on only after compiling
``main.py`` (``shared/runtime/pyexec.c``), and the firmware proper is
compiled on import, after Ctrl-C is off. A 0x03 caught in the instant before
the call, or any exception later, restarts the board: an unattended hub at
the REPL answers nobody and has no watchdog. ``hubmain.boot()`` returns only
for maintenance, leaving the REPL to ``mpremote``.
"""

import micropython

micropython.kbd_intr(-1)

import machine

try:
    import hubmain

    hubmain.boot()
except BaseException as e:  # KeyboardInterrupt included: never sit at the REPL
    try:
        f = open("restart.txt", "w")
        f.write(("%s %s" % (type(e).__name__, e))[:32])
        f.close()
    except BaseException:
        pass
    machine.reset()
