"""Bridges to the tools around circuitsim: FMU export for co-simulation (``fmu``)."""
