"""The page server: the service serves the web pages (and, when asked, the recaps) itself.

:mod:`companion.pages.server` is the ``[web]`` extension (docs/web.md, "The page server's
bounds"). It sits above ``table/`` and takes only what it uses (its ``[web]`` settings);
nothing below it imports it, and it imports nothing of the service's.
"""
