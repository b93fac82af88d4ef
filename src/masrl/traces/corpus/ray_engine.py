"""The Ray engine of ``masrl corpus``: the shards as a Ray Data dataset, encoded on the cluster.

Each shard becomes one row of a dataset (``ray.data.from_items``, one block per shard); a
``map`` runs :func:`masrl.traces.corpus.engine.encode_shard` on it in a Ray task, and the driver
(the process running ``masrl corpus``) receives the Parquet bytes and writes them with the same
writer as the local engine. The bytes are those of the local engine because the work is the
same pure function of the shard.

On a cluster: start Ray on the nodes (``ray start --head`` on one, ``ray start
--address=HEAD:6379`` on the others), then run ``masrl corpus ... --engine ray`` on the head
node, or anywhere with ``RAY_ADDRESS`` set (``ray.init`` reads it; ``--ray-address`` says the
same). Every node must see the SRC paths at the same place (a shared filesystem); only the
driver writes, so OUT_DIR need only be writable by the driver. Without a cluster, a local Ray
instance is started with ``--workers`` CPUs.

When Ray pays: it adds its start-up (seconds; ``benchmarks/corpus_targets.py --ray`` measures it)
and, on one machine, runs on the same cores as the local engine, so it never pays there. On a
cluster of C cores against W local workers it saves about t x (1/W - 1/C) seconds per trace
(t: the CPU time of a trace), which repays the start-up from start-up / that saving traces on;
the benchmark prints the figure for a few cluster sizes.

An address that cannot be used is said in one line (:class:`RayUnavailable`) within seconds,
before anything is written: it must read ``HOST:PORT``, ``ray://HOST:PORT``, ``auto`` or
``local``, and the host must accept a connection on that port within
:data:`REACH_SECONDS`; connecting to Ray itself is then given :data:`CONNECT_SECONDS`.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import socket
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from masrl.traces.corpus.engine import ShardOutput, encode_shard, worker_start
from masrl.traces.corpus.sources import Shard
from masrl.traces.corpus.tables import TABLE_NAMES

REACH_SECONDS = 3  # to open a connection to the cluster's port
CONNECT_SECONDS = 30  # for ray.init to connect to a reachable cluster
SPECIAL = ("auto", "local")  # addresses ray.init resolves itself


class RayUnavailable(ValueError):
    """The Ray cluster named cannot be used (the message says which address and why)."""


def checked_address(address: str | None) -> str | None:
    """The address to connect to (``address``, else ``$RAY_ADDRESS``, else ``None`` for a local
    Ray), once it reads as one and its host accepts a connection; :class:`RayUnavailable`
    otherwise, within :data:`REACH_SECONDS`."""
    field = "--ray-address"
    if not address:
        address, field = os.environ.get("RAY_ADDRESS", ""), "RAY_ADDRESS"
    address = address.strip()
    if not address:
        return None
    if address in SPECIAL:
        return address
    host, port = _host_port(address, field)
    try:
        with socket.create_connection((host, port), timeout=REACH_SECONDS):
            pass
    except OSError as exc:
        reason = "no answer" if isinstance(exc, TimeoutError) else (exc.strerror or str(exc))
        raise RayUnavailable(f"{field}={address}: cannot reach a Ray cluster there ({reason}, "
                             f"within {REACH_SECONDS} s); start one with `ray start --head`, "
                             "or leave the address out for a local Ray") from None
    return address


def _host_port(address: str, field: str) -> tuple[str, int]:
    rest = address.removeprefix("ray://")
    host, _, port = rest.rpartition(":")
    host = host.removeprefix("[").removesuffix("]")  # [IPv6]:port
    if not host or not port.isascii() or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayUnavailable(f"{field}={address}: not a Ray address; write HOST:PORT (e.g. "
                             "10.0.0.5:6379), ray://HOST:PORT, auto or local")
    return host, int(port)


@contextmanager
def _deadline(seconds: int, what: str) -> Iterator[None]:
    """Raise :class:`RayUnavailable` if the block runs longer than ``seconds`` (a timer signal;
    only in the main thread, elsewhere the block runs unbounded)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum, frame):
        raise RayUnavailable(f"{what}: no answer from Ray within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _encode_row(row: dict) -> dict:
    worker_start()
    output = encode_shard(*pickle.loads(row["shard"]))
    return {"output": pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL)}


def run_ray(shards: Sequence[Shard], on_output: Callable[[ShardOutput], None], workers: int,
            address: str | None = None, selected: tuple[str, ...] = TABLE_NAMES) -> None:
    """Encode every shard with Ray Data and hand each output to ``on_output`` in the driver.

    Connects to the cluster at ``address`` (see :func:`checked_address`); without one, starts
    a local Ray with ``workers`` CPUs, and shuts it down at the end. A Ray already initialised
    by the caller is used as it is. :class:`RayUnavailable` when Ray cannot be started or
    reached (one line: what Ray said first).
    """
    import ray
    import ray.data

    if not shards:
        return
    started = not ray.is_initialized()
    if started:
        options = {"address": address} if address else {"num_cpus": workers}
        what = f"Ray at {address}" if address else "a local Ray"
        try:
            with _deadline(CONNECT_SECONDS, what):
                ray.init(**options, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.WARNING, configure_logging=False)
        except RayUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - whatever Ray raises, the cluster is unusable
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise RayUnavailable(f"{what}: cannot be used: {first}") from None
    try:
        logging.getLogger("ray.data").setLevel(logging.ERROR)  # the summary says what happened
        context = ray.data.DataContext.get_current()
        context.enable_progress_bars = False
        rows = [{"shard": pickle.dumps((shard, selected), protocol=pickle.HIGHEST_PROTOCOL)}
                for shard in shards]
        dataset = ray.data.from_items(rows, override_num_blocks=len(rows))
        for row in dataset.map(_encode_row, num_cpus=1).iter_rows():
            on_output(pickle.loads(row["output"]))
    finally:
        if started:
            ray.shutdown()
