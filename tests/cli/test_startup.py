"""Start-up of the command line as whole processes: importing it loads no module that
only some commands use, and the grammar's tables are built by the first process and read
by the next, which prints the same."""
import os
import subprocess
import sys

from helpers import REPO, netlist_path

# loaded where used: scipy.sparse (~0.2 s, most of it scipy._lib) by large systems and
# some analyses; scipy.sparse.csgraph and scipy.sparse.linalg bring scipy.linalg (~60 ms);
# multiprocessing and concurrent.futures by parallel cases, subprocess by the background
# warm-up, html by a notebook's views, the linearisation by its study (~15 ms together);
# lark (~25 ms, and ~20 ms to load its tables) by a line the parser's fast route leaves
ON_USE = ("scipy", "scipy.sparse", "scipy.linalg", "scipy.sparse.linalg",
          "scipy.sparse.csgraph", "networkx", "matplotlib", "sympy", "multiprocessing",
          "concurrent.futures", "subprocess", "html", "circuitsim.analysis.linearize",
          "lark", "tempfile")
# ... and a run of a small netlist needs none of these: Lark (its lines are the parser's
# fast route's), numpy.random (~20-50 ms: the set-up's probes are arrays.Probes), the
# element modules it does not use (~40-90 ms: registry.lookup), importlib.resources
# (~8 ms: loader.library_dirs), tempfile (~5 ms: output.files)
NOT_IN_A_SMALL_RUN = ("lark", "numpy.random", "numpy.polynomial", "importlib.resources",
                      "tempfile", "circuitsim.elements.beam", "circuitsim.elements.rod",
                      "circuitsim.analysis.operating_point", "circuitsim.output.report",
                      "scipy.sparse")


def _python(code: str, *args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, cwd=REPO, env=env)


def test_importing_the_command_line_loads_no_module_a_command_may_not_need():
    code = ("import sys, circuitsim, circuitsim.cli\n"
            f"print(' '.join(m for m in {ON_USE!r} if m in sys.modules))\n")
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == []


def test_a_small_run_loads_no_module_it_does_not_use(tmp_path):
    code = ("import sys\n"
            "from circuitsim import cli\n"
            "done = cli.main(['run', sys.argv[1], '--out', sys.argv[2]])\n"
            f"print('exit', done, *(m for m in {NOT_IN_A_SMALL_RUN!r} if m in sys.modules))\n")
    # on the numpy kernels: numba, where a run loads it, brings numpy.random with it
    numpy_kernels = {**os.environ, "CIRCUITSIM_KERNELS": "numpy"}
    for name in ("dcmotor", "fourbar"):
        done = _python(code, str(netlist_path(name)), str(tmp_path / f"{name}.csv"),
                       env=numpy_kernels)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1].split() == ["exit", "0"], name


def test_the_first_run_writes_the_tables_and_the_next_reads_them(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    env.pop("LOCALAPPDATA", None)
    code = ("import sys\n"
            "from circuitsim import cli\n"
            "sys.exit(cli.main(sys.argv[1:]))\n")
    good = str(netlist_path("dcmotor"))
    bad = tmp_path / "bad.cir"
    bad.write_text(".title bad\nR R1 a 0 R={1+ >= 1}\n")   # a comparison: Lark's fast parser
    printed = []
    for _ in range(2):
        check = _python(code, "check", good, env=env)
        error = _python(code, "check", str(bad), env=env)
        assert check.returncode == 0, check.stderr
        assert error.returncode == 2, error.stderr
        printed.append((check.stdout, error.stderr))
        assert len(list((tmp_path / "circuitsim").glob("*.lark-tables"))) == 2
    assert printed[0] == printed[1]


def test_importing_the_package_imports_no_numpy():
    done = _python("import sys, circuitsim\nprint('numpy' in sys.modules, circuitsim.Netlist.__name__)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "Netlist"]


def test_the_command_line_runs_one_blas_thread_unless_told_otherwise():
    """OpenBLAS's threads spin between calls: a small run's CPU time was 1.7 times as
    much with them. A number the user sets is kept."""
    code = "import os, circuitsim.cli\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")}
    assert _python(code, env=env).stdout.split() == ["1"]
    assert _python(code, env={**env, "OMP_NUM_THREADS": "2"}).stdout.split() == ["None"]
    assert _python(code, env={**env, "OPENBLAS_NUM_THREADS": "4"}).stdout.split() == ["4"]
