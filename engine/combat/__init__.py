"""The six-tick combat wheel (seed 003, rules C1–C11).

Kept light on purpose: :mod:`engine.state` imports :mod:`engine.combat.state`,
so this package must not import anything that imports :mod:`engine.state`.
The commands, table section, view and narrators register from
:mod:`engine.combat.hooks`, which :mod:`engine` imports.
"""
