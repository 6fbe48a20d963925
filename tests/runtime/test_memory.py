"""The collector paused while large structures are built (runtime/memory.py).

The collector's state is global to the process and moved by whatever else runs in it
(other tests, their threads), so each check runs in a fresh interpreter of its own,
where the generations hold only what the check made."""
import subprocess
import sys
import textwrap

PRELUDE = """\
import gc
from circuitsim.runtime.memory import gc_paused
def ids(generation):
    return {id(o) for o in gc.get_objects(generation=generation)}
"""


def run_fresh(code: str) -> None:
    """Run ``code`` (after PRELUDE) in a new interpreter; its failed assert fails here."""
    done = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_collector_is_enabled_again_with_its_thresholds():
    run_fresh("""
        thresholds = gc.get_threshold()
        assert gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() and gc.get_threshold() == thresholds
        try:
            with gc_paused():
                raise KeyError
        except KeyError:
            pass
        assert gc.isenabled() and gc.get_threshold() == thresholds
    """)


def test_a_disabled_collector_stays_disabled():
    run_fresh("""
        gc.disable()
        with gc_paused():
            built = [[i] for i in range(1000)]
        assert not gc.isenabled()
        assert id(built[0]) in ids(0)           # left where it was made
    """)


def test_what_was_built_is_old_and_not_scanned_when_the_collector_runs_again():
    run_fresh("""
        collections = []
        gc.callbacks.append(lambda phase, info: collections.append(info["generation"]))
        with gc_paused():
            built = [[i] for i in range(10_000)]
        after = [[i] for i in range(10)]
        assert collections == []                # the 10 000 young objects not scanned
        oldest = ids(2)
        assert all(id(o) in oldest for o in (built, built[0], built[-1]))
        assert gc.is_tracked(built[0]) and gc.get_freeze_count() == 0
        assert id(after[0]) in ids(0)           # what follows is young again
    """)


def test_objects_frozen_before_stay_frozen_and_nothing_joins_them():
    run_fresh("""
        gc.freeze()
        frozen = gc.get_freeze_count()
        assert frozen > 0
        with gc_paused():
            built = [[i] for i in range(100)]
        assert gc.isenabled()
        assert 0 < gc.get_freeze_count() <= frozen  # not released (unfreeze empties it)
        assert id(built[0]) in ids(0)           # not moved: a freeze would take it
    """)


def test_after_freeze_built_the_frozen_objects_are_not_counted_again():
    """A command-line run's freeze_built is known without gc.get_freeze_count, which walks
    every frozen object (a test process that ran the CLI parsed 10 000 files 100x slower)."""
    run_fresh("""
        from circuitsim.runtime.memory import freeze_built
        freeze_built()
        frozen, count = gc.get_freeze_count(), gc.get_freeze_count
        def walked():
            raise AssertionError("gc.get_freeze_count called")
        gc.get_freeze_count = walked
        with gc_paused():
            built = [[i] for i in range(100)]
        gc.get_freeze_count = count
        assert gc.isenabled() and gc.get_freeze_count() == frozen
        assert id(built[0]) in ids(0)
    """)
