"""Discovery of element types: every ElementType subclass with a keyword in a module of
this package is registered (adding a component = adding one file). Two classes that
declare the same keyword (case-insensitive) are an error, not a silent replacement.

:func:`lookup` imports only the module that declares the keyword: the text of the module
of the keyword's name (``body.py``), or else of every module, is searched for
``keyword = "..."``, so that a run imports the element modules it uses rather than all of
them (40-90 ms, numpy.polynomial among them).
Where the text does not tell (a keyword in no module's text or in two, a module that
does not define it), every module is imported and :func:`element_types` decides, as
without the search; ``tests/elements/test_contract.py`` checks that the search finds
exactly the registered keywords, each in its own module. Each keyword is resolved once
(a netlist looks one up per element line)."""
from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from .base import ElementType

_REGISTRY: dict[str, type] | None = None
_DECLARED: dict[str, list] | None = None
_FOUND: dict[str, type | None] = {}       # lower-case keyword: its type, or None
_KEYWORD = re.compile(r'^[ \t]+keyword\s*=\s*"([^"\n]+)"', re.MULTILINE)
_NOT_ELEMENTS = ("base", "registry")


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
        if info.name not in _NOT_ELEMENTS:
            yield importlib.import_module(f"{__package__}.{info.name}")


def element_types() -> dict[str, type]:
    """All registered element types, keyed by lower-case keyword."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = collect(_modules())
    return _REGISTRY


def lookup(keyword: str) -> type | None:
    """The element type for a keyword (case-insensitive), or None."""
    key = keyword.lower()
    if key not in _FOUND:
        _FOUND[key] = _resolved(key)
    return _FOUND[key]


def _resolved(key: str) -> type | None:
    """lookup()'s answer for a lower-case keyword, found as the module docstring says."""
    if _REGISTRY is None:
        if key.isidentifier() and key in _keywords_of(key):     # body in body.py
            modules = [key]
        else:
            declared = _declared()
            modules = declared.get(key, []) if declared is not None else None
            if modules == [] and declared:
                return None              # in no module's text: not an element keyword
        if modules is not None and len(modules) == 1:
            found = collect([importlib.import_module(f"{__package__}.{modules[0]}")])
            if key in found:
                return found[key]
    return element_types().get(key)


def _keywords_of(module: str) -> set:
    """The lower-case keywords the text of this package's module ``module`` declares
    (none if there is no such module or it cannot be read)."""
    if module in _NOT_ELEMENTS or module.startswith("_"):
        return set()
    try:
        text = (Path(__file__).parent / f"{module}.py").read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return set()
    return {keyword.lower() for keyword in _KEYWORD.findall(text)}


def _declared() -> dict[str, list] | None:
    """{lower-case keyword: the names of the modules whose text declares it}, read from
    the package's files once; None where they cannot be listed (an archive)."""
    global _DECLARED
    if _DECLARED is None:
        declared: dict[str, list] = {}
        try:
            paths = sorted(Path(__file__).parent.glob("*.py"))
        except OSError:
            return None
        for path in paths:
            for keyword in _keywords_of(path.stem):
                declared.setdefault(keyword, []).append(path.stem)
        _DECLARED = declared
    return _DECLARED
