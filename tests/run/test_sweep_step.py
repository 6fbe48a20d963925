"""``Netlist.sweep(step={name: values})`` sweeps a parameter as a ``.step`` line in the
netlist would: the same cases, the same values (numbers in SI or texts with units), the
same errors for bad values, on one process or several."""
import numpy as np
import pytest

import circuitsim
from circuitsim import NetlistError

# a mass on a spring and a damper, released moving: cases of a few milliseconds each
MSD = """.title Mass-spring-damper
.param k=100 b=2 m=1kg
mass M v m={m} v0=1
spring K v 0 k={k}
damper D v 0 b={b}
.tran 0.05 0.01
"""


def net(extra: str = ""):
    return circuitsim.parse(MSD + extra, "msd.cir")


def error_of(call) -> NetlistError:
    with pytest.raises(NetlistError) as info:
        call()
    return info.value


def test_a_step_argument_gives_the_cases_of_the_same_step_line():
    from_line = net(".step k 100 2k 400N/m\n").sweep()
    from_argument = net().sweep(step={"k": [100, "2k", "400N/m"]})
    assert list(from_argument) == ["k=100.0", "k=2k", "k=400N/m"]
    for line_case, argument_case in zip(from_line.values(), from_argument.values()):
        assert np.array_equal(line_case.data, argument_case.data)
        assert line_case.parameters == argument_case.parameters
    assert [res.parameters["k"] for res in from_argument.values()] == [100.0, 2000.0, 400.0]


def test_a_case_of_the_step_argument_is_the_run_with_that_setting():
    swept = net().sweep(step={"b": [0.5, "3"]})
    alone = net().simulate(set={"b": "3"})
    assert np.array_equal(swept["b=3"].data, alone.data)
    assert swept["b=0.5"].parameters == {"b": 0.5}


def test_the_argument_replaces_the_netlists_line_for_its_parameter_and_adds_others():
    cases = net(".step k 100 200 400\n.step b 1 2\n").cases(step={"k": ["1k"], "m": [1, 2]})
    assert [name for name, _ in cases] == ["k=1k_b=1_m=1.0", "k=1k_b=1_m=2.0",
                                           "k=1k_b=2_m=1.0", "k=1k_b=2_m=2.0"]


def test_one_value_needs_no_list_and_units_convert_to_si():
    sweep = net().sweep(step={"m": "2kg"})
    assert list(sweep) == ["m=2kg"] and sweep["m=2kg"].parameters == {"m": 2.0}


def test_the_sweep_table_has_a_column_per_swept_parameter():
    pytest.importorskip("pandas")
    table = net().sweep(step={"k": [100, 200], "b": [1]}).to_pandas()
    assert list(table.columns[:3]) == ["case", "k", "b"]
    assert sorted(set(table["k"])) == [100.0, 200.0]


def test_processes_run_the_argument_cases_with_the_serial_results():
    serial = net().sweep(step={"k": [100, 400]})
    parallel = net().sweep(step={"k": [100, 400]}, jobs=2)
    assert list(parallel) == list(serial)
    for name in serial:
        assert np.array_equal(parallel[name].data, serial[name].data)
        assert parallel[name].parameters == serial[name].parameters


@pytest.mark.parametrize("value", ["abc", "(1, 2)", "1e999", "{1+}"])
def test_a_bad_value_gives_the_error_of_the_same_step_line(value):
    line = error_of(lambda: net(f".step k 100 {value}\n").sweep())
    argument = error_of(lambda: net().sweep(step={"k": [100, value]}))
    assert argument.message == line.message
    assert argument.loc.file == "<step argument>"
    assert argument.loc.text.startswith(".step k 100.0 ")
    # the caret is in the value as it was given, where the line's caret is in it
    assert argument.loc.col - argument.loc.text.index(value) == \
        line.loc.col - line.loc.text.index(value)


def test_a_value_in_the_wrong_unit_is_refused_where_it_is_used():
    line = error_of(lambda: net(".step k 2000psi\n").sweep())
    argument = error_of(lambda: net().sweep(step={"k": ["2000psi"]}))
    assert argument.message == line.message and "N/m" in argument.message


def test_an_unknown_parameter_is_named_with_a_suggestion():
    err = error_of(lambda: net().sweep(step={"kk": [1, 2]}))
    assert err.message == "unknown parameter 'kk'" and err.hint == "did you mean 'k'?"


@pytest.mark.parametrize("values, expected", [
    (["2000 psi"], "each value of 'k' is one number, with its unit if any; got '2000 psi'"),
    ([100, ""], "each value of 'k' is one number, with its unit if any; got ''"),
    (["1\n.param k=3"], "each value of 'k' is one number, with its unit if any"),
    (["1 ; 2"], "each value of 'k' is one number, with its unit if any; got '1 ; 2'"),
    ([None], "step=: a value is a number (SI) or a text such as '2000psi', got NoneType"),
    ([], ".step expects a parameter name and at least one value"),
])
def test_values_that_are_not_one_number_each_are_refused(values, expected):
    err = error_of(lambda: net().cases(step={"k": values}))
    assert expected in err.message


def test_a_name_that_is_not_a_parameter_name_is_refused():
    err = error_of(lambda: net().cases(step={"k b": [1]}))
    assert err.message == "step=: 'k b' is not a parameter name"
