"""The screens: Performance, between Performances (Time Board and heroes), combat, error banner.

Each screen is a function ``draw(canvas, box, view, …)`` that fills the box it is
given; :mod:`display.render` chooses which one the moment calls for.
"""
