"""The engine's import-time registries: commands, narrators, view sections, table-file sections.

Each rule family fills them when ``import engine`` imports it, in the order
:mod:`engine` lists the families (that order is the view's key order and the
order the table file's sections load in). A name registered twice is refused at
import, naming both; once ``import engine`` has finished every registry is
frozen, so nothing added later (a plugin, a test) changes what the engine does
behind the table's back.

>>> r = Registry("view section")
>>> r.add("odds", 1)
>>> r.add("odds", 2)
Traceback (most recent call last):
...
engine.registry.RegistryError: view section 'odds' is registered twice (1, then 2)
>>> r.freeze()
>>> r.add("time", 3)
Traceback (most recent call last):
...
engine.registry.RegistryError: view section 'time' registered after `import engine` finished: register it in a module that a rule family imports
>>> list(r)
['odds']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Generic, TypeVar

V = TypeVar("V")


class RegistryError(RuntimeError):
    """A registration the engine refuses: a duplicate name, or one after the freeze."""


def _name_of(value: object) -> str:
    module = getattr(value, "__module__", None)
    name = getattr(value, "__qualname__", None)
    return f"{module}.{name}" if module and name else repr(value)


class Registry(Mapping[str, V], Generic[V]):
    """Names in registration order; each once; closed by :meth:`freeze`."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._items: dict[str, V] = {}
        self._frozen = False

    def add(self, name: str, value: V) -> None:
        if self._frozen:
            raise RegistryError(
                f"{self.what} {name!r} registered after `import engine` finished: register it"
                " in a module that a rule family imports"
            )
        if name in self._items:
            raise RegistryError(
                f"{self.what} {name!r} is registered twice"
                f" ({_name_of(self._items[name])}, then {_name_of(value)})"
            )
        self._items[name] = value

    def decorator(self, name: str) -> Callable[[V], V]:
        """``@registry.decorator(name)``: add the function below under ``name``, unchanged."""

        def register(fn: V) -> V:
            self.add(name, fn)
            return fn

        return register

    def freeze(self) -> None:
        self._frozen = True

    @property
    def frozen(self) -> bool:
        return self._frozen

    def __getitem__(self, name: str) -> V:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {list(self._items)})"
