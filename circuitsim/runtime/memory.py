"""Process memory settings: the garbage collector while large structures are built, and
how the C heap of a command-line run treats freed memory.

Parsing and elaborating a netlist create a dozen long-lived objects per element and no
reference cycles; the cyclic collector would only re-scan the growing heap, which doubled
the set-up time of a 1e4-element circuit and made it superlinear (:func:`gc_paused`). A command-line run
freezes what it built for good (:func:`freeze_built`).

A run allocates and frees the same large temporaries (element Jacobian blocks, the
sparse LU's factors) at every Newton matrix. glibc's malloc hands blocks above its
mmap threshold (128 kB to start with) back to the kernel when they are freed, and trims
the top of the heap, so each new matrix faults its pages in again: on the P4 chain of
256 bodies 0.4 million page faults, a tenth of the run's time spent in the kernel.
Raising the two thresholds keeps that memory in the process for reuse (peak memory
unchanged: the same blocks are reused; :func:`keep_freed_memory`, command line only).
"""
import ctypes
import gc
from contextlib import contextmanager

M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3     # mallopt parameters (malloc.h)
_built_frozen = False           # freeze_built was called: the heap is frozen, known in O(1)
MMAP_THRESHOLD = 64 << 20       # blocks below 64 MB come from the heap ...
TRIM_THRESHOLD = 256 << 20      # ... which is given back only above 256 MB free


@contextmanager
def gc_paused():
    """Disable the cyclic collector inside the block; restore its previous state.

    What the block built is then moved to the oldest generation unscanned (gc.freeze
    then gc.unfreeze): re-enabled with the block's allocations counted, the collector
    would scan them all at the next allocation, a quarter of the set-up time of a
    1e4-element circuit. They are scanned at the next full collection, as anything
    long-lived is. (Not when objects are frozen already: unfreeze would release them.
    gc.get_freeze_count walks every frozen object, 25 ms a call on a heap of 1e6: it is
    asked only when :func:`freeze_built` has not said so.)"""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if not _built_frozen and not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def freeze_built() -> None:
    """Move everything allocated so far out of the cyclic collector's scans for good: what
    a command-line run has built lives until the process ends (gc.freeze)."""
    global _built_frozen
    gc.freeze()
    _built_frozen = True


def keep_freed_memory() -> None:
    """Raise glibc's mmap and trim thresholds; nothing elsewhere (no glibc, no mallopt)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
