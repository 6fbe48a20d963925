"""MJCF import through MuJoCo's compiler (circuitsim/bridges/mjcf.py).

Two independent references:
* arm3.urdf compiled by MuJoCo (its URDF reader: the base fused into the world, the
  massless tool into link3, the inertias diagonalised) and imported, against the
  Pinocchio reference of the URDF import's tests (data/arm3_reference.json);
* a native MJCF arm whose joints are not at their bodies' origins, with full inertia
  tensors, damping and armature, against MuJoCo's own simulation of it (RK4, contacts
  off, a small fixed step).
"""
import json
from pathlib import Path

import numpy as np
import pytest

import circuitsim
from circuitsim import NetlistError, cli

mujoco = pytest.importorskip("mujoco")
from circuitsim.bridges.mjcf import mjcf_to_netlist  # noqa: E402

DATA = Path(__file__).parent / "data"

ARM = """<mujoco model="offset arm">
  <option gravity="0 0 -9.81" integrator="RK4" timestep="2e-5"><flag contact="disable"/></option>
  <worldbody>
    <body name="upper" pos="0.1 0 0.5" quat="0.9659258 0 0.2588190 0">
      <joint name="shoulder" type="hinge" pos="0 0 0.05" axis="0 1 0" damping="0.2"
             armature="0.01"/>
      <inertial pos="0.15 0.01 -0.02" mass="2"
                fullinertia="0.02 0.05 0.04 0.003 -0.002 0.001"/>
      <body name="fore" pos="0.3 0 0" euler="0.3 0 0.2">
        <joint name="elbow" type="hinge" pos="0.02 0 0" axis="0 0.6 0.8" damping="0.05"/>
        <inertial pos="0.12 0 0.01" mass="1.2" fullinertia="0.01 0.03 0.025 0.002 0 -0.001"/>
        <body name="slider" pos="0.25 0 0">
          <joint name="extend" type="slide" axis="1 0 0" damping="1" armature="0.2"/>
          <inertial pos="0.05 0 0" mass="0.5" diaginertia="0.001 0.002 0.002"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def run_angles(text, names, rtol, atol, t_end, tstep):
    res = circuitsim.parse(text, "arm.cir").simulate(t_end=t_end, tstep=tstep, rtol=rtol,
                                                     atol=atol)
    return res.t, np.column_stack([res[n] for n in names])


def test_arm3_through_mujocos_compiler_follows_pinocchio():
    ref = json.loads((DATA / "arm3_reference.json").read_text())
    q0 = dict(zip(ref["joints"], ref["q0"]))
    text = mjcf_to_netlist(DATA / "arm3.urdf", q0=q0)
    t, q = run_angles(text, [f"{j}.angle" for j in ref["joints"]], 1e-8, 1e-11, 2.0, 0.01)
    gap = np.abs(q - np.asarray(ref["q"])).max()
    assert np.allclose(t, ref["t"], atol=1e-12)
    assert gap <= 1e-5
    _, q_loose = run_angles(text, [f"{j}.angle" for j in ref["joints"]], 1e-5, 1e-8, 2.0,
                            0.01)
    assert np.abs(q_loose - np.asarray(ref["q"])).max() > 10 * gap


def mujoco_reference(xml: str, q0: np.ndarray, t_end: float, every: float):
    """MuJoCo's own run of the model (RK4 at the model's step): (t, qpos) every
    ``every`` seconds."""
    model = mujoco.MjModel.from_xml_string(xml)
    data = mujoco.MjData(model)
    data.qpos[:] = q0
    mujoco.mj_forward(model, data)
    per = int(round(every / model.opt.timestep))
    out = [data.qpos.copy()]
    for _ in range(int(round(t_end / every))):
        for _ in range(per):
            mujoco.mj_step(model, data)
        out.append(data.qpos.copy())
    return np.arange(len(out)) * every, np.array(out)


def test_an_mjcf_arm_with_offset_joints_follows_mujoco(tmp_path):
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    q0 = np.array([0.4, -0.7, 0.05])
    text = mjcf_to_netlist(path, q0=dict(zip(("shoulder", "elbow", "extend"), q0)),
                           t_end=1.0)
    assert "inertia shoulder_armature shoulder_w J=0.01" in text
    assert "mass extend_armature extend_v m=0.2" in text
    t_ref, q_ref = mujoco_reference(ARM, q0, 1.0, 0.01)
    t, q = run_angles(text, ["shoulder.angle", "elbow.angle", "extend.s"], 1e-9, 1e-12,
                      1.0, 0.01)
    assert np.allclose(t, t_ref, atol=1e-12)
    assert np.abs(q - q_ref).max() <= 1e-6
    assert np.abs(q[-1] - q0).max() > 0.1                  # it did move


def test_what_the_netlist_cannot_say_is_refused_by_name(tmp_path, capsys):
    cases = {
        "ball": ('<body name="b" pos="0 0 1"><joint name="j" type="ball"/>'
                 '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>', "ball joint"),
        "two": ('<body name="b"><joint name="j1" axis="1 0 0"/><joint name="j2" '
                'axis="0 1 0"/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body>',
                "body 'b' has 2 joints"),
        "spring": ('<body name="b"><joint name="j" stiffness="10"/><inertial pos="0 0 0" '
                   'mass="1" diaginertia="1 1 1"/></body>', "joint spring"),
    }
    for name, (body, words) in cases.items():
        path = tmp_path / f"{name}.xml"
        path.write_text(f"<mujoco><worldbody>{body}</worldbody></mujoco>")
        with pytest.raises(NetlistError, match=words):
            mjcf_to_netlist(path)
    broken = tmp_path / "broken.xml"
    broken.write_text("<mujoco><worldbody><body><joint type='nope'/></body></worldbody>"
                      "</mujoco>")
    assert cli.main(["import-mjcf", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {broken}:1:1: MuJoCo could not compile broken.xml")
    assert "Traceback" not in err


def test_import_mjcf_command_writes_a_netlist_that_runs(tmp_path, capsys):
    path = tmp_path / "arm.xml"
    path.write_text(ARM)
    out = tmp_path / "arm.cir"
    assert cli.main(["import-mjcf", str(path), "-o", str(out), "--tend", "0.2",
                     "--q0", "shoulder=0.4"]) == 0
    res = circuitsim.load(out).simulate()
    assert res.success and res["shoulder.angle"][0] == pytest.approx(0.4)
