"""The import paths of 0.2, which 0.3 moved into packages; they work until 0.4.

``import troedler.views`` and ``from troedler.state import GameState`` still
work: each old module is an alias whose names are looked up in the modules
that hold them now, with a :class:`DeprecationWarning` naming the new place.
Type checkers see only the new paths.
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings
from typing import Any

__all__ = ["MOVED", "install"]

MOVED: dict[str, tuple[str, ...]] = {
    "troedler.actions": ("troedler.core.actions", "troedler.core.forming", "troedler.core.chance"),
    "troedler.board": ("troedler.core.board",),
    "troedler.cards": ("troedler.core.cards",),
    "troedler.chance": ("troedler.core.shuffle",),
    "troedler.datafile": ("troedler.core.datafile",),
    "troedler.errors": ("troedler.core.errors",),
    "troedler.explicit": ("troedler.core.chance", "troedler.core.setting_up"),
    "troedler.goods": ("troedler.core.goods",),
    "troedler.invariants": ("troedler.core.invariants",),
    "troedler.legal": ("troedler.core.legal",),
    "troedler.limits": ("troedler.core.limits",),
    "troedler.moves": ("troedler.core.moves",),
    "troedler.pile": ("troedler.core.pile",),
    "troedler.rulebook": ("troedler.core.rulebook",),
    "troedler.rules": ("troedler.core.rulebook",),
    "troedler.scoring": ("troedler.core.scoring",),
    "troedler.setup": ("troedler.core.setting_up", "troedler.core.chance"),
    "troedler.state": ("troedler.core.state",),
    "troedler.views": ("troedler.seat",),
    "troedler.notation": ("troedler.io.notation",),
    "troedler.position": ("troedler.io.position_text",),
    "troedler.records": ("troedler.io.records",),
    "troedler.serialization": ("troedler.io.state_json",),
    "troedler.adapters.actions": ("troedler.encoding.action_ids",),
    "troedler.adapters.tensors": ("troedler.encoding.tensors",),
    "troedler.adapters.neural": ("troedler.bots.neural",),
}
"""Each old module, and the modules its names are found in now, in the order
they are looked in."""

RENAMED: dict[tuple[str, str], tuple[str, str]] = {
    ("troedler.actions", "discards_required"): ("troedler.core.rulebook", "discards_owed"),
    ("troedler.views", "seen_stacks"): ("troedler.seat.observation", "seen_stacks"),
}
"""Names that moved under another name or to a module of their own: the old
module and name, and the new ones."""


class _Moved(types.ModuleType):
    """An old module: each name read from it is read from its new place."""

    def __getattr__(self, name: str) -> Any:
        if name == "__all__":  # for ``from troedler.views import *``
            places = [importlib.import_module(place) for place in MOVED[self.__name__]]
            return [name for module in places for name in getattr(module, "__all__", ())]
        if name.startswith("__"):
            raise AttributeError(name)
        place, new = RENAMED.get((self.__name__, name), ("", ""))
        if place:
            warnings.warn(
                f"{self.__name__}.{name} is now {place}.{new}", DeprecationWarning, stacklevel=2
            )
            return getattr(importlib.import_module(place), new)
        for place in MOVED[self.__name__]:
            module = importlib.import_module(place)
            if hasattr(module, name):
                warnings.warn(
                    f"{self.__name__} moved: import {name} from {place}, or from troedler",
                    DeprecationWarning,
                    stacklevel=2,
                )
                return getattr(module, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")


def install() -> None:
    """Make each old path importable, unless something already stands there."""
    for old, places in MOVED.items():
        sys.modules.setdefault(old, _Moved(old, f"Moved in 0.3: see {', '.join(places)}."))
