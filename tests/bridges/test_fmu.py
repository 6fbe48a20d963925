"""FMU export (FMI 2.0 co-simulation) and the resumable run under it.

The FMU is simulated by fmpy (a separate implementation of the FMI master side) and by a
small C master; each is compared with ``circuitsim run`` of the same netlist driven by
the same input written as a pwl, at tight tolerances."""
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.errors import NetlistError

from helpers import netlist_text

STEPS = [(0.0, 12.0), (0.1, 6.0), (0.2, 9.0)]        # (time, Vsup.V): a stepped supply
TIGHT = ".options rtol=1e-9 atol=1e-12\n"


def motor_text(extra: str = ".input Vsup.V\n") -> str:
    """The DC motor example with ``extra`` lines before its .tran."""
    text = netlist_text("dcmotor")
    return text.replace(".tran", extra + ".tran", 1)


def stepped_pwl() -> str:
    points = []
    for k, (t, v) in enumerate(STEPS):
        if k:
            points += [t, STEPS[k - 1][1]]
        points += [t, v]
    points += [0.3, STEPS[-1][1]]
    return "pwl(" + ", ".join(f"{x:g}" for x in points) + ")"


@pytest.fixture(scope="module")
def reference():
    """``circuitsim run`` of the motor driven by the stepped supply as a pwl, rtol 1e-9."""
    text = motor_text(TIGHT).replace("V=step(0, 0, {V})", f"V={stepped_pwl()}")
    return circuitsim.parse(text, "motor_pwl.cir").simulate(tstep=0.01)


def relative_gap(t, values, reference, name) -> float:
    ref = np.interp(t, reference.t, reference[name])
    return float(np.max(np.abs(np.asarray(values) - ref)) / np.max(np.abs(reference[name])))


# --- the resumable run (no FMU needed) ----------------------------------------------------

def test_resumable_run_with_a_stepped_input_matches_the_pwl_run(reference):
    run = circuitsim.parse(motor_text(".input Vsup.V\n" + TIGHT), "m.cir").prepare().start_run()
    schedule = dict(STEPS)
    times, speed, current = [0.0], [run["shaft"]], [run["La.i"]]
    for k in range(30):
        t = round(0.01 * k, 12)
        if t in schedule:
            run.set("Vsup.V", schedule[t])
        run.advance(0.01 * (k + 1))
        times.append(run.t)
        speed.append(run["shaft"])
        current.append(run["La.i"])
    assert times[-1] == pytest.approx(0.3, abs=1e-15)
    assert relative_gap(times, speed, reference, "shaft") < 1e-6
    assert relative_gap(times, current, reference, "La.i") < 1e-6
    # a restart at each change (t = 0 included: 12 V replaces the written step), none at
    # the communication points in between
    assert run.stats["nrestart"] == 3


def test_a_run_without_input_changes_goes_through_the_points_without_restarting():
    text = motor_text(TIGHT)
    whole = circuitsim.parse(text, "m.cir").simulate(tstep=0.01)
    run = circuitsim.parse(text, "m.cir").prepare().start_run()
    for k in range(30):
        run.advance(0.01 * (k + 1))
        np.testing.assert_allclose(run["shaft"], whole["shaft"][k + 1], rtol=1e-7, atol=1e-9)
    assert run.stats["nrestart"] == 0
    # landing on 30 communication points costs few extra steps
    assert run.stats["nsteps"] < 1.5 * whole.stats["nsteps"]


def test_input_lines_are_checked_where_they_are_written():
    for line, words in ((".input Vx.V", "no element 'Vx'"),
                        (".input Ra.R", "no source value 'R'"),
                        (".input", "ELEMENT.PARAM")):
        with pytest.raises(NetlistError) as err:
            circuitsim.parse(motor_text(line + "\n"), "m.cir").prepare()
        assert words in str(err.value) and "m.cir:" in str(err.value)


def test_advance_refuses_going_back_and_set_names_the_inputs():
    run = circuitsim.parse(motor_text(), "m.cir").prepare().start_run()
    run.advance(0.01)
    with pytest.raises(ValueError):
        run.advance(0.01)
    with pytest.raises(KeyError, match="Vsup.V"):
        run.set("Vsup.v", 1.0)


# --- the FMU -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def fmu(tmp_path_factory):
    pytest.importorskip("pythonfmu")
    folder = tmp_path_factory.mktemp("fmu")
    netlist = folder / "motor.cir"
    netlist.write_text(motor_text())
    out = folder / "motor.fmu"
    assert cli.main(["export-fmu", str(netlist), "-o", str(out)]) == 0
    return out


def test_fmu_validates_clean_with_fmpy(fmu):
    fmpy = pytest.importorskip("fmpy")
    from fmpy.validation import validate_fmu
    assert validate_fmu(str(fmu)) == []
    md = fmpy.read_model_description(str(fmu))
    causality = {v.name: v.causality for v in md.modelVariables}
    assert causality["Vsup.V"] == "input" and causality["shaft"] == "output"
    assert causality["k"] == "parameter"
    assert "[rad/s]" in next(v.description for v in md.modelVariables if v.name == "shaft")


def test_fmu_driven_by_fmpy_with_a_stepped_input_matches_circuitsim_run(fmu, reference):
    fmpy = pytest.importorskip("fmpy")
    points = []
    for k, (t, v) in enumerate(STEPS):
        if k:
            points.append((t, STEPS[k - 1][1]))
        points.append((t, v))
    points.append((0.3, STEPS[-1][1]))
    signal = np.array(points, dtype=[("time", float), ("Vsup.V", float)])
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01, input=signal,
                            relative_tolerance=1e-9, output=["shaft", "La.i"])
    assert len(res) == 31
    assert relative_gap(res["time"], res["shaft"], reference, "shaft") < 1e-6
    assert relative_gap(res["time"], res["La.i"], reference, "La.i") < 1e-6


def test_fmu_parameters_and_the_default_input(fmu):
    """A parameter set by the master changes the run as --set does; an input the master
    never sets follows the netlist's own function (here its 12 V step)."""
    fmpy = pytest.importorskip("fmpy")
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.3, output_interval=0.01,
                            relative_tolerance=1e-9, start_values={"k": 0.06},
                            output=["shaft"])
    ref = circuitsim.parse(motor_text(TIGHT), "m.cir").simulate(set={"k": 0.06}, tstep=0.01)
    assert relative_gap(res["time"], res["shaft"], ref, "shaft") < 1e-6


def _libpython() -> str | None:
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        return None
    path = Path(sysconfig.get_config_var("LIBDIR")) / sysconfig.get_config_var("INSTSONAME")
    return str(path) if path.exists() else None


@pytest.mark.skipif(shutil.which("gcc") is None or _libpython() is None,
                    reason="needs gcc and a shared libpython")
def test_fmu_runs_from_a_c_host(fmu, reference, tmp_path):
    """A plain C master (dlopen, fmi2Instantiate .. fmi2DoStep) with libpython loaded
    first, as docs/fmu.md tells users of C and C++ hosts."""
    host = tmp_path / "host"
    subprocess.run(["gcc", "-O1", "-o", str(host), str(Path(__file__).with_name("fmu_host.c")),
                    "-ldl"], check=True)
    unpacked = tmp_path / "unpacked"
    with zipfile.ZipFile(fmu) as z:
        z.extractall(unpacked)
    import fmpy
    md = fmpy.read_model_description(str(fmu))
    ref_of = {v.name: v.valueReference for v in md.modelVariables}
    binary = next((unpacked / "binaries" / "linux64").glob("*.so"))
    env = dict(os.environ, LD_PRELOAD=_libpython(),
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run(
        [str(host), str(binary), md.guid, (unpacked / "resources").as_uri(),
         str(ref_of["Vsup.V"]), str(ref_of["shaft"]), "0.01", "30"]
        + [f"{t:g}:{v:g}" for t, v in STEPS], capture_output=True, text=True, env=env,
        timeout=300)
    lines = [line.split() for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 31 and float(lines[-1][0]) == pytest.approx(0.3), done.stderr[-2000:]
    t, speed = np.array(lines, dtype=float).T
    assert relative_gap(t, speed, reference, "shaft") < 1e-6
    # every step returned fmi2OK; after fmi2FreeInstance the process may still abort in
    # scipy's bundled libgfortran at exit (docs/fmu.md, "C and C++ hosts")
    assert "failed" not in done.stderr and "end" in done.stderr.split()


def test_the_model_script_reads_the_interface_file_the_exporter_writes():
    from circuitsim.bridges import fmu as exporter
    assert f'INTERFACE = "{exporter.INTERFACE}"' in exporter.SLAVE.read_text()
    assert exporter.fmi_names(["La.i", "1x.y", "a-b", "La.i"]) == ["La.i", "_1x.y", "a_b",
                                                                    "La.i_2"]


def test_a_parameter_the_netlist_refuses_is_logged_by_the_fmu(fmu):
    fmpy = pytest.importorskip("fmpy")
    messages = []
    with pytest.raises(Exception):
        fmpy.simulate_fmu(str(fmu), stop_time=0.01, start_values={"J": -1.0},
                          debug_logging=True,
                          logger=lambda *args: messages.append(args[-1].decode()))
    logged = "\n".join(messages)
    assert "the model could not start" in logged and "J" in logged
