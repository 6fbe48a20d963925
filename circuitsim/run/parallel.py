"""Many cases at once: the ``.step`` cases and studies of one netlist, each prepared and
run in a worker process, or on any ``concurrent.futures.Executor`` (a Dask cluster:
``client.get_executor()``), with no executor-specific code here.

A case runs exactly as it would serially (the same elaboration, the same arithmetic),
so its results are identical; a case that fails comes back as its partial Result with
the error, and the other cases are kept. On worker processes a stop (Ctrl-C, SIGTERM,
SIGHUP) reaches every running case, which returns its partial Result as a serial run
does, and a worker that dies loses only its own case.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

# multiprocessing and concurrent.futures are imported where cases run in parallel: a
# serial run does not pay their ~3 ms
if TYPE_CHECKING:
    import multiprocessing
    from concurrent.futures import Executor

from ..errors import CircuitsimError, Interrupted, SolverError, Terminated

STOP_GRACE = 15.0     # seconds a stopped case has to return its partial Result (one step
                      # and the packaging of the Result) before its worker is killed
PARENT_POLL = 0.5     # seconds between a worker's checks that the process that started it lives
# what stops a worker's case: Ctrl-C (a terminal sends it to every worker), and SIGTERM /
# SIGHUP, which the parent sends (no SIGHUP on Windows)
STOP_SIGNALS = tuple(s for s in (getattr(signal, name, None)
                                 for name in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)


@dataclass
class Outcome:
    """One case's run: its Result (partial if it failed), the error (None if it
    succeeded) and the wall time it took where it ran."""
    name: str
    result: object
    error: CircuitsimError | None
    wall: float


def run_case(netlist, name: str, study, settings, run_options: dict, case=None,
             swept=None, several: bool = False) -> Outcome:
    """Prepare (unless ``case`` is the prepared one) and run one case of ``netlist``, in
    whichever process calls it. ``swept``: the names of the swept parameters (default:
    the netlist's ``.step`` lines); ``several``: the case is one of several, which share
    the load of the compiled kernels (``System.compiled_from_start``)."""
    started = time.perf_counter()
    swept = [entry[0] for entry in netlist.steps] if swept is None else swept
    try:
        case = case or netlist.prepare(study, settings, name)
        if several:
            case.system.compiled_from_start()
        result = _labelled(case.run(**run_options), swept, case, study)
        return Outcome(name, result, None, time.perf_counter() - started)
    except SolverError as exc:
        partial, exc.partial = exc.partial, None      # the Result travels once
        if partial is not None:
            _labelled(partial, swept, case, study)
        return Outcome(name, partial, exc, time.perf_counter() - started)
    except KeyboardInterrupt as exc:          # stopped while it was prepared or started
        why = f"stopped by {exc.signal_name}" if isinstance(exc, Terminated) else "interrupted"
        return Outcome(name, None, Interrupted(f"{why} before it ran"),
                       time.perf_counter() - started)


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
    and no executor is given, else on ``executor`` or on ``jobs`` worker processes (each
    prepares its case unless it inherits the ``prepared`` one by name, when forked).
    ``on_case(outcome)`` is called in this process as each case finishes; ``swept``
    names the swept parameters (default: the netlist's ``.step`` lines). Returns the
    outcomes in the order of ``cases``. Input errors (NetlistError) propagate.

    On worker processes, a KeyboardInterrupt here (Ctrl-C, or SIGTERM / SIGHUP raised as
    Terminated) stops the running cases at their next step: their partial Results
    (error Interrupted) go to ``on_case``, the queued cases are not started, and the
    interrupt propagates. A worker that dies gives its case an Outcome with a
    WorkerDied error and no result; the other cases go on."""
    prepared = prepared or {}
    several = len(cases) > 1
    if executor is None and workers(jobs) == 1:
        outcomes = []
        for name, study, settings in cases:
            outcomes.append(run_case(netlist, name, study, settings, run_options,
                                     prepared.get(name), swept, several))
            if on_case is not None:
                on_case(outcomes[-1])
        return outcomes
    if executor is None:
        return _Workers(netlist, cases, workers(jobs), on_case, swept, run_options,
                        prepared).run()
    from concurrent.futures import as_completed
    futures = {executor.submit(run_case, netlist, name, study, settings, run_options,
                               None, swept, several): i
               for i, (name, study, settings) in enumerate(cases)}
    outcomes: list = [None] * len(cases)
    try:
        for future in as_completed(futures):
            outcome = future.result()
            outcomes[futures[future]] = outcome
            if on_case is not None:
                on_case(outcome)
        return outcomes
    finally:
        for future in futures:
            future.cancel()


class WorkerDied(SolverError):
    """The process that ran a case ended without returning it (killed, or out of memory)."""

    code = "E_WORKER_DIED"


@dataclass
class _Running:
    index: int
    name: str
    process: multiprocessing.Process
    connection: object


class _Workers:
    """Each case in a process of its own, at most ``jobs`` at a time: a worker that dies
    loses only its case, and a stop reaches every running case as a signal."""

    def __init__(self, netlist, cases, jobs, on_case, swept, run_options, prepared):
        self.netlist, self.cases, self.jobs = netlist, cases, jobs
        import multiprocessing
        # a forked worker inherits the prepared case; one started afresh prepares it
        self.prepared = prepared if multiprocessing.get_start_method() == "fork" else {}
        self.on_case, self.swept, self.run_options = on_case, swept, run_options
        self.outcomes: list = [None] * len(cases)
        self.running: dict = {}          # the parent's end of a worker's pipe -> _Running

    def run(self) -> list:
        queued = list(range(len(self.cases)))
        try:
            try:
                while queued or self.running:
                    while queued and len(self.running) < self.jobs:
                        self._start(queued.pop(0))
                    self._collect(None)
            except KeyboardInterrupt:
                # 1. each running case stops at its next step and returns what it computed
                for entry in self.running.values():
                    _stop(entry.process)
                deadline = time.monotonic() + STOP_GRACE
                while self.running and time.monotonic() < deadline:
                    self._collect(deadline - time.monotonic())
                raise
        finally:
            for entry in self.running.values():     # 2. a case past the grace is lost
                entry.process.kill()
                entry.process.join()
        return self.outcomes

    def _start(self, index: int) -> None:
        import multiprocessing
        name, study, settings = self.cases[index]
        receiver, sender = multiprocessing.Pipe(duplex=False)
        process = multiprocessing.Process(
            target=_work, name=f"circuitsim case {name}", daemon=True,
            args=(sender, os.getpid(), self.netlist, name, study, settings,
                  self.run_options, self.swept, self.prepared.get(name),
                  len(self.cases) > 1))
        process.start()
        sender.close()
        self.running[receiver] = _Running(index, name, process, receiver)

    def _collect(self, timeout) -> None:
        """Wait for workers to answer or end; take their outcomes (``on_case`` each)."""
        from multiprocessing.connection import wait
        sentinels = {entry.process.sentinel: key for key, entry in self.running.items()}
        for ready in wait(list(self.running) + list(sentinels), timeout):
            key = sentinels.get(ready, ready)
            entry = self.running.pop(key, None)
            if entry is None:                      # its pipe and its end were both ready
                continue
            outcome = _received(entry)
            if isinstance(outcome, BaseException):
                raise outcome
            self.outcomes[entry.index] = outcome
            if self.on_case is not None:
                self.on_case(outcome)


def _received(entry: _Running):
    """What a worker sent (an Outcome, or an exception to raise here), after it ended;
    a WorkerDied Outcome if it ended without sending."""
    try:
        sent = entry.connection.recv() if entry.connection.poll() else None
    except (EOFError, OSError):
        sent = None
    entry.connection.close()
    entry.process.join()
    if sent is not None:
        return sent
    code = entry.process.exitcode
    how = f"by signal {-code}" if code is not None and code < 0 else f"with exit code {code}"
    return Outcome(entry.name, None, WorkerDied(f"its worker process ended {how} before "
                                                "it returned the case"), 0.0)


def _stop(process) -> None:
    """Ask a worker to stop its case at the next step (SIGTERM; on Windows it ends it)."""
    try:
        process.terminate()
    except (OSError, ValueError):          # it has just ended
        pass


def _work(sender, parent: int, netlist, name, study, settings, run_options, swept,
          case, several) -> None:
    """A worker process: run one case and send its Outcome (or the input error) back."""
    threading.Thread(target=_exit_with_parent, args=(parent,), daemon=True).start()
    for signum in STOP_SIGNALS:
        signal.signal(signum, _stop_once)
    try:
        sent = run_case(netlist, name, study, settings, run_options, case, swept, several)
    except Exception as exc:                # noqa: BLE001 - raised again in the parent
        sent = exc
    for signum in STOP_SIGNALS:             # a late signal must not cut the answer short
        signal.signal(signum, _ignored)
    sender.send(sent)
    sender.close()


def _stop_once(signum, frame) -> None:
    """The first stop signal ends the case as Ctrl-C ends a serial run; later ones (a
    terminal's Ctrl-C and the parent's SIGTERM both arrive) are ignored."""
    for each in STOP_SIGNALS:
        signal.signal(each, _ignored)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signal.Signals(signum).name)


def _ignored(signum, frame) -> None:
    """A stop signal after the first: nothing to do. (A Python handler, not SIG_IGN: a
    signal already pending when the handler changes would be reported as a race.)"""


def _exit_with_parent(parent: int) -> None:
    """A worker whose parent died (killed, so it could not stop its workers) exits."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)
