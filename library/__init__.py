# The component library (.lib files in the netlist language), installed as circuitsim.library.
