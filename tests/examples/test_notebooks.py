"""The example notebooks (docs/examples) run top to bottom in a kernel of this
interpreter, from their own folder as a reader's Jupyter would, and compute what their
text says. They are committed without outputs."""
import json
import re
import sys

import pytest

from helpers import REPO

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

EXAMPLES = REPO / "docs" / "examples"
NOTEBOOKS = sorted(EXAMPLES.glob("*.ipynb"))
KERNEL = "circuitsim-tests"          # a kernel spec written for this interpreter
TIMEOUT = 300                        # s per cell


@pytest.fixture(scope="module")
def kernel(tmp_path_factory):
    """A kernel spec that starts ``sys.executable`` (not whatever 'python3' kernel is
    installed on the machine), found through JUPYTER_PATH."""
    root = tmp_path_factory.mktemp("jupyter")
    spec = root / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "circuitsim tests", "language": "python"}))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(root))
        yield KERNEL


def executed(name: str, kernel: str):
    path = EXAMPLES / name
    nb = nbformat.read(path, as_version=4)
    nbclient.NotebookClient(nb, timeout=TIMEOUT, kernel_name=kernel,
                            resources={"metadata": {"path": str(EXAMPLES)}}).execute()
    return nb


def outputs(nb, tag: str) -> list:
    (cell,) = [c for c in nb.cells if tag in c.metadata.get("tags", [])]
    return cell.outputs


def kinds(nb) -> list:
    """The MIME types (or stream) of each code cell's outputs."""
    return [[o.output_type if o.output_type == "stream" else sorted(o.data)
             for o in c.outputs] for c in nb.cells if c.cell_type == "code"]


def test_there_are_the_two_examples():
    assert [p.name for p in NOTEBOOKS] == ["dcmotor.ipynb", "landing_gear.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_are_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, cell.source[:60]


def test_dc_motor_settles_at_the_closed_form_speed(kernel):
    nb = executed("dcmotor.ipynb", kernel)
    (stream,) = outputs(nb, "steady-state")
    text = stream.text
    V, R, k, b = 12.0, 1.0, 0.05, 1e-5                 # dcmotor.cir's .param line
    closed = float(re.search(r"ω_ss = ([\d.]+) rad/s", text)[1])
    simulated = float(re.search(r"ω\(0.6 s\) = ([\d.]+) rad/s", text)[1])
    difference = float(re.search(r"relative difference ([\d.e+-]+)", text)[1])
    assert closed == pytest.approx(k * V / (k ** 2 + R * b), abs=1e-4)
    assert abs(simulated - closed) / closed < 1e-5 and difference < 1e-5
    # the check summary, the result table, the plot and the pandas table are shown
    shown = kinds(nb)
    assert ["text/html", "text/plain"] in shown[0] and "image/png" in shown[2][0]
    assert "unknowns: 7" in nb.cells[1].outputs[0].data["text/html"]


@pytest.mark.slow
def test_landing_gear_retracts_faster_with_a_higher_supply(kernel):
    nb = executed("landing_gear.ipynb", kernel)
    (table,) = outputs(nb, "retraction")
    rows = re.findall(r"^(\d+)\s+([\d.]+)$", table.data["text/plain"], re.MULTILINE)
    supply = [int(p) for p, _ in rows]
    times = [float(t) for _, t in rows]
    assert supply == [2000, 2500, 3000]
    # every case comes up within the 6 s run, the 3000 psi one in about 4 s (the
    # netlist's own description), and a lower supply is slower
    assert 3.5 < times[2] < 4.5 and times[0] < 6.0
    assert times[0] > times[1] > times[2]
    assert sum("image/png" in kind for cell in kinds(nb) for kind in cell) == 2
    # the 3D player is shown inline: the animation page in an iframe
    (player,) = outputs(nb, "animation")
    assert player.data["text/html"].startswith("<iframe srcdoc=")
    assert "circuitsim-data" in player.data["text/html"]
