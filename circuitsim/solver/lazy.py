"""Modules imported on first use: a small run that never needs them does not pay for
their import (scipy.sparse: about 0.2 s, most of a small netlist's start)."""
import importlib


class LazyModule:
    """Stands for the module ``name`` until an attribute is first read."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr):
        module = importlib.import_module(self._name)
        self.__dict__.update(vars(module))
        return getattr(module, attr)


sparse = LazyModule("scipy.sparse")
