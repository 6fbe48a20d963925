"""The compiled kernels' warm-up: ``python -m circuitsim.warmup`` runs small mechanisms
that call every compiled twin (circuitsim/elements/compiled/) in every form the shipped
mechanisms call it, with ``CIRCUITSIM_KERNELS=numba``, so that numba writes their machine
code to its disk cache; then it marks the cache warm (elements/compiled/warm.py). A run
that finds the cache cold starts it in the background; run it yourself to warm the
cache ahead (a container image, a cluster's nodes)."""
import os
import re
import sys
from pathlib import Path

from .api import parse
from .elements import compiled
from .elements.compiled import ahead, warm

NICENESS = 10                # the background compile yields to the run that started it
# the files a warm-up leaves in the cache, by cache key: the marker, the extension built
# ahead and its argument types (and their partial writes)
KEYED = re.compile(rf"(?:circuitsim-warm|{ahead.EXTENSION})-([0-9a-f]{{16}})(?:\..*)?")

# Every twin in the run form of each variant it computes: bodies, ball joints in the
# position and velocity models, the framework's joints (one kernel for every type) in
# the three models, with axis flanges of both kinds (rows switched off are the same
# kernels), a beam of the lumped mass (stiffening on and off: the same kernels), end
# stops (their switching functions too) and friction.
WARM_NETLISTS = ("""\
.title warm-up of the compiled kernels: bodies, ball joints, a point mass
body B1 m=1 J=(0.02, 0.02, 0.001) pos=(0.5, 0, 0)
body B2 m=1 J=(0.02, 0.02, 0.001) pos=(1.0, 0, 0)
spherical J1 0 B1 at=(0, 0, 0) model=position
spherical J2 B1 B2 at=(0.75, 0, 0) model=velocity
pointmass PM B2 m=0.3 at=(1.2, 0, 0.1)
.gravity 0 0 -9.81
.tran 0.01 1m
""", """\
.title warm-up of the compiled kernels: joints of the framework
body C1 m=1 J=(0.01, 0.01, 0.01) pos=(0.5, 0, 0)
body C2 m=1 J=(0.01, 0.01, 0.01) pos=(1.0, 0, 0)
body C3 m=1 J=(0.01, 0.01, 0.01) pos=(1.5, 0, 0)
revolute R1 0 C1 at=(0, 0, 0) axis=(0, 0, 1) model=position
prismatic P1 C1 C2 at=(1.0, 0, 0) axis=(1, 0, 0) model=velocity
revolute R2 C2 C3 at=(1.25, 0, 0) axis=(0, 0, 1) model=elastic
.gravity 0 -9.81 0
.tran 0.01 1m
""", """\
.title warm-up of the compiled kernels: a flexible beam
beam B 0 n=2 EA=1e5 GJ=400 EIy=1000 rhoA=1 rhoIy=1e-4 at1=(0, 0, 0) at2=(1, 0, 0)
.gravity 0 0 -9.81
.tran 0.01 1m
""", """\
.title warm-up of the compiled kernels: end stops, friction, control blocks, a heating resistor, gas volumes
mass M1 v m=1 v0=2
friction F1 v 0 Fc=0.5 Fs=0.6
stop S1 v 0 lower=-0.01 upper=0.01 k=1e4 c=10
sigsrc R r v=1
pid K1 r u1 kp=2 ki=1 lower=-1 upper=1
pid K2 r u2 kp=2 ki=1 kd=0.1 tf=1m lower=-1 upper=1 aw=backcalc
integ I1 r y k=2 lower=-1 upper=1
V Vw w 0 V=sin(0, 10, 50)
rtherm Rw w 0 tw R0=2
C Cw tw 0 C=10 ic=300 domain=thermal
I Qa 0 acc I=1e-4 domain=hydraulic
accumulator A1 acc V0=1L p0=50bar Vg0=0.9L
gasspring G1 acc V0=0.5L p0=40bar
.tran 0.01 1m
""")



def compile_all() -> None:
    """Run every warm-up netlist with the twins (numba compiles what its cache lacks)."""
    os.environ["CIRCUITSIM_KERNELS"] = "numba"
    for number, text in enumerate(WARM_NETLISTS):
        parse(text, f"<warm-up {number + 1}>").simulate()


def remove_stale(directory: Path, key: str) -> list:
    """Remove the markers and extensions of other cache keys from ``directory``, the
    package's own cache: only this installed version writes there, so another key is an
    older version's (an upgrade in place keeps __pycache__). numba's per-user cache is
    shared by versions installed side by side and is left alone. A file that cannot be
    removed (a loaded extension on Windows) stays. Returns the removed paths."""
    removed = []
    for path in directory.iterdir():
        found = KEYED.fullmatch(path.name)
        if found is None or found.group(1) == key:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


def main(argv=None) -> int:
    """Compile every twin, mark the cache warm and build the twins ahead of time (where
    a C compiler is at hand); remove the lock file given, if any (the background
    start's)."""
    argv = sys.argv[1:] if argv is None else argv
    lock = Path(argv[0]) if argv else None
    try:
        if lock is not None and sys.platform != "win32":
            os.nice(NICENESS)
        compile_all()
        warm.write_marker()
        ahead.build(compiled.MODULES)      # numba's cache serves the runs meanwhile
        if warm.cache_dir() == warm.HERE / "__pycache__":
            remove_stale(warm.cache_dir(), warm.cache_key())
    finally:
        if lock is not None:
            lock.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
