"""The run-time mathematics shared by the netlist front-end, the elements and the
assembly: expression trees (:mod:`.expressions`), time functions of sources and drives
(:mod:`.timefunctions`) and reserved node names (:mod:`.names`).

It sits below all of them and imports nothing from them (only ``circuitsim.errors``).
"""
