"""Element types, one per module; see :mod:`circuitsim.elements.base` for the contract
(with declarations.py and protocols.py)."""
from .registry import element_types, lookup

__all__ = ["element_types", "lookup"]
