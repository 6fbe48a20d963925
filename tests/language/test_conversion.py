"""The units a parameter's value is tried in, and the elements' scalar ports as the
expansion keeps them for the checks (netlist/conversion.py, netlist/expansion.py)."""
import circuitsim
from circuitsim.elements import lookup
from circuitsim.netlist.conversion import _candidate_units
from circuitsim.netlist.topology import scalar_ports


def units_of(dom, allowed):
    r = next(p for p in lookup("R").params if p.name == "R")
    return list(_candidate_units(r, dom, allowed, {}))


def test_a_fixed_domain_tries_its_unit_alone():
    assert units_of("translational", {"translational"}) == ["s/kg"]


def test_an_open_domain_tries_its_default_then_the_others_allowed():
    assert units_of("electrical", None) == ["Ohm", "s/kg", "rad/N/m/s", "Pa*s/m^3", "K/W"]
    assert units_of("electrical", {"electrical", "hydraulic"}) == ["Ohm"]
    assert units_of(None, {"hydraulic", "rotational"}) == ["rad/N/m/s", "Pa*s/m^3"]
    assert units_of(None, set()) == [None]


def test_a_value_that_fits_only_another_domain_is_read_in_it():
    net = circuitsim.parse("R R1 a 0 R=2s/kg\nI I1 0 a I=1\n.tran 1m\n", "<units>")
    element = net.circuit().elements[0]
    assert element.params["R"] == 2.0


def test_each_element_keeps_its_scalar_ports_in_port_order():
    from circuitsim.netlist import expansion, overrides, scopes
    net = circuitsim.parse("body B1 m=1 J=(1, 1, 1)\nspherical J1 0 B1 at=(0, 0, 0)\n"
                           "R R1 a 0 R=1\nI I1 0 a I=1\n.tran 1m\n", "<ports>")
    top = net._definitions.top
    scope = scopes.global_scope(top, overrides.split([], scopes.param_names(top)).params)
    pending = expansion.expand(net._definitions, scope, {}, {})
    assert [len(el.scalar) for el in pending] == [6, 0, 2, 2]  # a body's 6, frames none
    for el in pending:
        assert el.scalar == scalar_ports(el)
        assert [n for _, n in el.scalar] == [n for p, n in zip(el.type.ports, el.nodes)
                                            if not p.frame]


def test_a_thermal_resistance_unit_or_kilo_on_an_open_domain():
    """R=2K/W fits only the thermal domain and is read in it; R=1K is 1 kOhm (electrical
    first, K a prefix there, as in SPICE)."""
    net = circuitsim.parse("R R1 a 0 R=2K/W\nI I1 0 a I=1 domain=thermal\n.tran 1m\n", "<u>")
    assert net.circuit().elements[0].params["R"] == 2.0
    net = circuitsim.parse("R R1 a 0 R=1K\nI I1 0 a I=1\n.tran 1m\n", "<u>")
    assert net.circuit().elements[0].params["R"] == 1000.0
