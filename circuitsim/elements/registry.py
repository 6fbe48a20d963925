"""Discovery of element types: every ElementType subclass with a keyword in a module of
this package is registered (adding a component = adding one file)."""
from __future__ import annotations

import importlib
import pkgutil

from .base import ElementType

_REGISTRY: dict[str, type] | None = None


def _discover() -> dict[str, type]:
    found: dict[str, type] = {}
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if info.name in ("base", "registry"):
            continue
        module = importlib.import_module(f"{__package__}.{info.name}")
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, ElementType) and obj.keyword
                    and obj.__module__ == module.__name__):
                found[obj.keyword.lower()] = obj
    return dict(sorted(found.items()))


def element_types() -> dict[str, type]:
    """All registered element types, keyed by lower-case keyword."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = _discover()
    return _REGISTRY


def lookup(keyword: str) -> type | None:
    """The element type for a keyword (case-insensitive), or None."""
    return element_types().get(keyword.lower())
