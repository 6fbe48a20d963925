"""FMU export: a netlist as an FMI 2.0 co-simulation unit (``circuitsim export-fmu``).

The FMU holds the netlist (and the files it includes), a copy of the circuitsim package,
an interface file and a small model script; pythonfmu (an optional extra) supplies the
binary that runs it. The importing tool needs a Python with numpy, scipy, networkx and
lark (and, for a host that is not itself a Python program, libpython loaded first: see
docs/fmu.md).

The interface:
- inputs: the netlist's ``.input ELEMENT.PARAM`` lines (continuous inputs; the written
  time function until the master sets a value, then that value held over each step);
- outputs: the recorded variables (``.probe``, else every variable);
- parameters: the global ``.param`` names (fixed, applied when initialisation ends).
FMI names are the circuitsim names where those are legal FMI structured names (``La.i``),
else made legal (each part an identifier); the original name and the unit are in the
variable's description.
"""
from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from ..errors import CircuitsimError, Loc, NetlistError

INTERFACE = "circuitsim_fmu.json"      # in the FMU's resources: what fmu_slave reads
SLAVE = Path(__file__).with_name("fmu_slave.py")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
MODEL_CLASS = '''

class {name}(CircuitsimSlave):
    """{title}"""
'''


def fmi_names(names) -> list:
    """Legal, distinct FMI structured names: each dot-separated part an identifier
    (other characters as ``_``, a leading ``_`` before a digit), ``_2`` .. on a clash."""
    taken, out = set(), []
    for name in names:
        parts = []
        for part in name.split("."):
            part = re.sub(r"[^A-Za-z0-9_]", "_", part) or "_"
            parts.append(part if _IDENTIFIER.match(part) else "_" + part)
        base = candidate = ".".join(parts)
        count = 1
        while candidate in taken:
            count += 1
            candidate = f"{base}_{count}"
        taken.add(candidate)
        out.append(candidate)
    return out


def model_name(stem: str) -> str:
    """The FMU's model identifier (also the binary's and the class's name)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", stem) or "model"
    return name if _IDENTIFIER.match(name) else "m_" + name


def export_fmu(netlist, out=None, *, study=None, settings=None, include_path=(),
               name=None) -> Path:
    """Write the FMU of the netlist file ``netlist`` to ``out`` (default
    ``<netlist stem>.fmu`` next to it); returns its path. ``study``, ``settings``
    ({name: value}) choose the case as ``run`` does; ``name``: the model identifier
    (default from the file name). Needs pythonfmu (``pip install circuitsim[fmu]``)."""
    try:
        from pythonfmu import FmuBuilder
    except ImportError:
        raise CircuitsimError("FMU export needs pythonfmu: python -m pip install "
                              "pythonfmu (or circuitsim[fmu])") from None
    from .. import api
    if settings and not isinstance(settings, dict):      # ["k=1e6", ...] as --set gives
        settings = dict(text.partition("=")[::2] for text in settings)
    netlist = Path(netlist).resolve()
    net = api.load(netlist, include_path=include_path)
    case = net.prepare(study, settings)
    identifier = model_name(name or netlist.stem)
    out = Path(out) if out else netlist.with_suffix(".fmu")
    spec = _interface(net, case, netlist, study, settings or {})
    with tempfile.TemporaryDirectory(prefix="circuitsim_fmu_") as folder:
        folder = Path(folder)
        model = folder / "model"
        for source in _input_files(net, netlist):
            target = model / source.relative_to(netlist.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        spec["netlist"] = f"model/{netlist.name}"
        (folder / INTERFACE).write_text(json.dumps(spec, indent=1), encoding="utf-8")
        package = _package_copy(folder / "circuitsim")
        script = folder / f"{identifier}.py"
        script.write_text(SLAVE.read_text(encoding="utf-8") + MODEL_CLASS.format(
            name=identifier, title=_one_line(spec["description"])), encoding="utf-8")
        FmuBuilder.build_FMU(script, dest=out,
                             project_files=[folder / INTERFACE, model, package])
    return out


def _interface(net, case, netlist: Path, study, settings: dict) -> dict:
    """The interface file's content: the case, its inputs, outputs and parameters with
    their FMI names and start values (the values at t = 0)."""
    circuit = case.circuit
    run = case.start_run()
    values = run.values()
    inputs = [(name, run.inputs[name]) for name, _ in circuit.inputs]
    outputs = list(case.recorded)
    params = [(k, v) for k, v in circuit.params.items() if isinstance(v, (int, float))]
    fmi = fmi_names([n for n, _ in inputs] + outputs + [k for k, _ in params])
    names = iter(fmi)
    tr = circuit.tran
    return {
        "description": circuit.title or netlist.stem, "study": study,
        "set": {k: _number(v) if not isinstance(v, str) else v for k, v in settings.items()},
        "experiment": {"stop": tr.tstop or 1.0, "step": tr.tstep, "rtol": tr.rtol},
        "inputs": [{"name": n, "fmi": next(names), "unit": i.unit,
                    "start": float(i.function.default(0.0))} for n, i in inputs],
        "outputs": [{"name": n, "fmi": next(names), "unit": run.units.get(n),
                     "start": values[n]} for n in outputs],
        "parameters": [{"name": k, "fmi": next(names), "unit": None, "start": float(v)}
                       for k, v in params],
    }


def _number(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


def _input_files(net, netlist: Path) -> list:
    """The netlist and the files it includes from its own directory tree; a file from
    elsewhere (an include path) cannot be packaged at the same relative place."""
    from ..netlist.loader import library_dirs
    library = [d.resolve() for d in library_dirs()]
    files = {netlist}
    pending = list(net.statements)
    while pending:
        st = pending.pop()
        loc = getattr(st, "loc", None)
        if loc is not None and not loc.file.startswith("<"):
            files.add(Path(loc.file).resolve())
        pending += getattr(st, "body", None) or []
    packaged = []
    for f in sorted(files):
        if any(d in f.parents for d in library[-1:]):
            continue                            # the built-in library comes with the package
        if netlist.parent not in f.parents and f != netlist:
            raise NetlistError(f"export-fmu: {f} is read by the netlist but lies outside "
                               f"its directory ({netlist.parent}); only the netlist's own "
                               "directory tree is packaged: copy it there",
                               Loc(str(netlist), 1, 1))
        packaged.append(f)
    return packaged


def _package_copy(target: Path) -> Path:
    """A copy of the running circuitsim package (sources, grammar, library), without
    caches."""
    from ..netlist.loader import library_dirs
    source = Path(__file__).resolve().parents[1]
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(
        "__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.lock", "*.marker"))
    library = target / "library"
    if not library.is_dir():                     # a source checkout keeps it beside
        shutil.copytree(library_dirs()[-1], library,
                        ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _one_line(text: str) -> str:
    return " ".join(str(text).split()).replace('"""', "'''")
