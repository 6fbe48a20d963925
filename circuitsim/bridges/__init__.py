"""Bridges from other model formats to the netlist language.

A bridge reads a model written for another tool and returns netlist text: what it
writes is read, checked and run as any netlist is. Of the layers below it uses only the
errors and the rule a rigid body's inertia obeys (elements/body.py). ``urdf_to_netlist``
reads a URDF robot description (docs/urdf.md).
"""
from .urdf import urdf_text_to_netlist, urdf_to_netlist

__all__ = ["urdf_to_netlist", "urdf_text_to_netlist"]
