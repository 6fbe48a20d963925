"""Pausing Python's cyclic garbage collector while large acyclic structures are built.

Parsing and elaborating a netlist create a dozen long-lived objects per element and no
reference cycles; the collector would only re-scan the growing heap, which doubled the
set-up time of a 1e4-element circuit and made it superlinear.
"""
import gc
from contextlib import contextmanager


@contextmanager
def gc_paused():
    """Disable the cyclic collector inside the block; restore its previous state."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
