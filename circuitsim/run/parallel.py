"""Many cases at once: the ``.step`` cases and studies of one netlist, each prepared and
run in a worker process, or on any ``concurrent.futures.Executor`` (a Dask cluster:
``client.get_executor()``), with no executor-specific code here.

A case runs exactly as it would serially (the same elaboration, the same arithmetic),
so its results are identical; a case that fails comes back as its partial Result with
the error, and the other cases are kept.
"""
from __future__ import annotations

import os
import time
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Callable

from ..errors import CircuitsimError, SolverError


@dataclass
class Outcome:
    """One case's run: its Result (partial if it failed), the error (None if it
    succeeded) and the wall time it took where it ran."""
    name: str
    result: object
    error: CircuitsimError | None
    wall: float


def run_case(netlist, name: str, study, settings, run_options: dict, case=None,
             swept=None) -> Outcome:
    """Prepare (unless ``case`` is the prepared one) and run one case of ``netlist``, in
    whichever process calls it. ``swept``: the names of the swept parameters (default:
    the netlist's ``.step`` lines)."""
    started = time.perf_counter()
    swept = [entry[0] for entry in netlist.steps] if swept is None else swept
    try:
        case = case or netlist.prepare(study, settings, name)
        result = _labelled(case.run(**run_options), swept, case, study)
        return Outcome(name, result, None, time.perf_counter() - started)
    except SolverError as exc:
        partial, exc.partial = exc.partial, None      # the Result travels once
        if partial is not None:
            _labelled(partial, swept, case, study)
        return Outcome(name, partial, exc, time.perf_counter() - started)


def _labelled(result, swept, case, study):
    """The result with its study and the values (SI) of the swept parameters."""
    result.study = study
    result.parameters = {name: case.circuit.params[name] for name in swept
                         if name in case.circuit.params}
    return result


def workers(jobs: int) -> int:
    """``jobs`` processes; 0 means one per core."""
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (every core) or positive, got {jobs}")
    return jobs or os.cpu_count() or 1


def run_cases(netlist, cases: list, jobs: int = 1, executor: Executor | None = None,
              on_case: Callable[[Outcome], None] | None = None, prepared: dict | None = None,
              swept: list | None = None, **run_options) -> list:
    """Run ``cases`` [(name, study, settings)] of ``netlist``: serially when ``jobs`` is 1
    and no executor is given (using the ``prepared`` cases by name, if given), else on
    ``executor`` or on a pool of ``jobs`` processes (each worker prepares its case).
    ``on_case(outcome)`` is called in this process as each case finishes; ``swept``
    names the swept parameters (default: the netlist's ``.step`` lines). Returns the
    outcomes in the order of ``cases``. Input errors (NetlistError) propagate."""
    prepared = prepared or {}
    if executor is None and workers(jobs) == 1:
        outcomes = []
        for name, study, settings in cases:
            outcomes.append(run_case(netlist, name, study, settings, run_options,
                                     prepared.get(name), swept))
            if on_case is not None:
                on_case(outcomes[-1])
        return outcomes
    pool = executor or ProcessPoolExecutor(max_workers=min(workers(jobs), len(cases)))
    try:
        futures = {pool.submit(run_case, netlist, name, study, settings, run_options,
                               None, swept): i
                   for i, (name, study, settings) in enumerate(cases)}
        outcomes: list = [None] * len(cases)
        for future in as_completed(futures):
            outcome = future.result()
            outcomes[futures[future]] = outcome
            if on_case is not None:
                on_case(outcome)
        return outcomes
    finally:
        if executor is None:
            pool.shutdown(wait=False, cancel_futures=True)
