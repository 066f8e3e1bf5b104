"""Stand-in for MicroPython's ``micropython`` module under CPython."""

kbd_intr_char = 3


def const(x):
    return x


def kbd_intr(c):
    global kbd_intr_char
    kbd_intr_char = c
