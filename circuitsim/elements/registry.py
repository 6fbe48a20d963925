"""Discovery of element types: every ElementType subclass with a keyword in a module of
this package is registered (adding a component = adding one file). Two classes that
declare the same keyword (case-insensitive) are an error, not a silent replacement."""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType

from .base import ElementType

_REGISTRY: dict[str, type] | None = None


def collect(modules: Iterable[ModuleType]) -> dict[str, type]:
    """The element types defined in ``modules``, keyed by lower-case keyword: every
    ElementType subclass with a keyword whose ``__module__`` is that module (not those
    it imports). RuntimeError, naming both classes and their modules, when two classes
    declare the same keyword."""
    found: dict[str, type] = {}
    for module in modules:
        for obj in vars(module).values():
            if not (isinstance(obj, type) and issubclass(obj, ElementType) and obj.keyword
                    and obj.__module__ == module.__name__):
                continue
            key = obj.keyword.lower()
            other = found.get(key)
            if other is not None and other is not obj:
                raise RuntimeError(
                    f"element keyword '{obj.keyword}' is declared twice: by "
                    f"{other.__qualname__} in {other.__module__} and by {obj.__qualname__} "
                    f"in {obj.__module__}")
            found[key] = obj
    return dict(sorted(found.items()))


def _modules():
    """The modules of this package, imported (base and registry excepted)."""
    package = importlib.import_module(__package__)
    for info in pkgutil.iter_modules(package.__path__):
        if info.name not in ("base", "registry"):
            yield importlib.import_module(f"{__package__}.{info.name}")


def element_types() -> dict[str, type]:
    """All registered element types, keyed by lower-case keyword."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = collect(_modules())
    return _REGISTRY


def lookup(keyword: str) -> type | None:
    """The element type for a keyword (case-insensitive), or None."""
    return element_types().get(keyword.lower())
