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
"""

from __future__ import annotations

import logging
import os
import pickle
from collections.abc import Callable, Sequence

from masrl.traces.corpus.engine import ShardOutput, encode_shard
from masrl.traces.corpus.sources import Shard
from masrl.traces.corpus.tables import TABLE_NAMES


def _encode_row(row: dict) -> dict:
    output = encode_shard(*pickle.loads(row["shard"]))
    return {"output": pickle.dumps(output, protocol=pickle.HIGHEST_PROTOCOL)}


def run_ray(shards: Sequence[Shard], on_output: Callable[[ShardOutput], None], workers: int,
            address: str | None = None, selected: tuple[str, ...] = TABLE_NAMES) -> None:
    """Encode every shard with Ray Data and hand each output to ``on_output`` in the driver.

    Connects to the cluster at ``address`` (else ``RAY_ADDRESS``); without either, starts a
    local Ray with ``workers`` CPUs, and shuts it down at the end. A Ray already initialised by
    the caller is used as it is.
    """
    import ray
    import ray.data

    if not shards:
        return
    started = not ray.is_initialized()
    if started:
        address = address or os.environ.get("RAY_ADDRESS")
        options = {"address": address} if address else {"num_cpus": workers}
        ray.init(**options, include_dashboard=False, log_to_driver=False,
                 logging_level=logging.WARNING, configure_logging=False)
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
