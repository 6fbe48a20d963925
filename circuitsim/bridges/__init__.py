"""Bridges to the tools around circuitsim.

From other model formats to the netlist language: a bridge reads a model written for
another tool and returns netlist text, which is read, checked and run as any netlist is;
``urdf_to_netlist`` reads a URDF robot description, ``mjcf.mjcf_to_netlist`` a MuJoCo
model compiled by MuJoCo (docs/urdf.md). From a netlist to
other tools: ``fmu.export_fmu`` writes an FMI 2.0 co-simulation FMU (docs/fmu.md).
"""
from .urdf import urdf_text_to_netlist, urdf_to_netlist

__all__ = ["urdf_to_netlist", "urdf_text_to_netlist"]
