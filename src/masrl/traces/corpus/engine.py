"""The local engine of ``masrl corpus``: the shards encoded (:mod:`.shard`) on worker processes.

Shards are always encoded in worker processes of our own, one at least, never in the calling
process: each worker is set up once by :func:`worker_start` (see there), and the caller only
writes what they send back. The number of workers is capped by the cores this process may use
(:func:`available_cores`): more processes than cores only share them, each holding its shard
in memory meanwhile.
"""

from __future__ import annotations

import ctypes
import importlib.abc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

import pyarrow as pa

from masrl.traces import cost_estimate, schema
from masrl.traces.corpus import tables
from masrl.traces.corpus.shard import ShardBuilder, ShardOutput, build_shard, encode_shard
from masrl.traces.corpus.sources import Shard


def available_cores() -> int:
    """The cores this process may run on: ``os.process_cpu_count()`` (Python 3.13), else the
    CPU affinity mask, else every core of the machine."""
    counted = getattr(os, "process_cpu_count", None)
    if counted is not None:
        return max(counted() or 1, 1)
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except AttributeError:  # not Linux
        return max(os.cpu_count() or 1, 1)


def start_method() -> multiprocessing.context.BaseContext:
    """How local workers are started: forked on Linux, the platform's default elsewhere.

    A forked worker inherits every module this process has imported (NumPy, Arrow, the
    analysis: about 0.26 s of CPU per process) and starts in milliseconds; a worker started
    afresh (``spawn``, or ``forkserver``, Python 3.14's default on Linux) imports them all
    again: on 500 traces with two workers, 2.9 s of CPU in all instead of 2.0. Forking is
    asked for by name so that it does not depend on the Python version; a forkserver's worker
    would also not be the child of this process, which :func:`worker_start` checks."""
    if sys.platform.startswith("linux"):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


def load_before_forking() -> None:
    """Load here, once, what every worker would otherwise load on its first shard, so that the
    forked workers inherit it: ``pyarrow.compute`` (Arrow's ``take`` imports it on first use,
    about 30 ms; ``masrl corpus`` has it already for its summary), NumPy's ``numpy.ma``
    (pyarrow looks at it when it converts a NumPy array; NumPy imports it on first use, about
    8 ms), the compiled schema of a trace's head (:func:`masrl.traces.schema.head_validator`,
    about 4 ms) and the price table's version
    (:func:`masrl.traces.cost_estimate.table_version`, about 2 ms). With ``masrl corpus``, two
    workers on their first traces took about 25 ms less CPU in all, this process's share
    included."""
    import numpy.ma  # noqa: F401 - imported for the workers to inherit
    import pyarrow.compute  # noqa: F401 - likewise

    schema.head_validator()
    cost_estimate.table_version()


def default_workers() -> int:
    """The cores this process may use."""
    return available_cores()


def worker_start(parent: int | None = None) -> None:
    """Set up a process that only encodes shards (a local worker, a Ray task's process).

    A local worker (``parent``: the pid of the process that started it) asks Linux to end it
    when that process dies: a parent killed outright (SIGKILL) would otherwise leave its
    workers waiting for work forever.

    pyarrow looks for pandas the first time it converts values to an array (to tell a
    DataFrame from a list), and importing pandas costs about 0.4 s of CPU per process: more
    than the whole analysis of a few hundred traces. Nothing of a shard needs pandas, so in
    such a process pyarrow is told it is absent, as in an install of ``masrl[corpus]`` without
    it (``import pandas`` fails there from then on). Only ever call this in a process of ours
    that does nothing else.

    Arrow's buffers come from the C library's allocator here, not from mimalloc (pyarrow's
    default): mimalloc hands the memory of a shard's tables back to the system soon after they
    are written, and the next shard takes page faults to get it back (on this project's 2-core
    machine: a third of the system time, up to 10% of a shard's CPU time). The bytes written
    are the same.
    """
    if parent is not None:
        _end_with(parent)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the command's handler, if forked
    if "pandas" not in sys.modules and not any(isinstance(f, _NoPandas) for f in sys.meta_path):
        sys.meta_path.insert(0, _NoPandas())
    pa.set_memory_pool(pa.system_memory_pool())


PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies


def _end_with(parent: int) -> None:
    """Ask the kernel to kill this process when ``parent`` dies (Linux; elsewhere nothing)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request
        os._exit(1)


class _NoPandas(importlib.abc.MetaPathFinder):
    """An import finder that refuses pandas (see :func:`worker_start`)."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"No module named {name!r} in a corpus worker", name=name)
        return None


def local_workers(asked: int, shards: int) -> int:
    """The workers the local engine starts for ``shards`` shards to write: ``asked``, but no
    more than the shards (an idle worker only costs its start), and none when there are none."""
    return min(max(asked, 1), shards)


def run_local(shards: Iterable[Shard], on_output: Callable[[ShardOutput], None],
              workers: int, selected: tuple[str, ...] = tables.TABLE_NAMES) -> None:
    """Encode every shard on ``workers`` processes (one at least, and no more than there are
    shards: an idle worker only costs its start) and hand each output to ``on_output`` in
    this process, as it completes. At most two shards per worker are in flight, so memory
    stays bounded however long the corpus."""
    shards = list(shards)
    workers = local_workers(workers, len(shards))
    if not workers:  # every shard was written by an earlier run
        return
    pending = iter(shards)
    context = start_method()
    if workers > 1 and context.get_start_method() == "fork":
        load_before_forking()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context,
                             initializer=worker_start, initargs=(os.getpid(),)) as pool:
        running = set()
        for shard in pending:
            running.add(pool.submit(encode_shard, shard, selected))
            if len(running) >= 2 * workers:
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    on_output(future.result())
        for future in running:
            on_output(future.result())


__all__ = ["ShardBuilder", "ShardOutput", "available_cores", "build_shard", "default_workers",
           "encode_shard", "load_before_forking", "local_workers", "run_local", "start_method",
           "worker_start"]
