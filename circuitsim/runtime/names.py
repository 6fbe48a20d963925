"""Reserved node names shared by the netlist front-end and the assembly."""

GROUND = "0"    # the reference node: potential 0, never an unknown
