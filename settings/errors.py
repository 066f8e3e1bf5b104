"""The one error of a file people wrote: a config, a table, a rules file, a registry."""

from __future__ import annotations


class ConfigError(Exception):
    """A table or rules file that cannot be used; the message names file, key and fix."""
