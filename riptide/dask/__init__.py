"""riptide.dask: riptide as a Dask DataFrame backend (as dask_cudf is for cuDF).

Importing this package registers everything Dask needs to run its DataFrame graphs on riptide partitions:
the dispatch functions (:mod:`riptide.dask.dispatch`), the backend entry point and creation functions
(:mod:`riptide.dask.backends`) and distributed serialization of device buffers (:mod:`riptide.dask.serialization`).
The ``dask_expr.dataframe.backends`` entry point named "riptide" imports it for you, so with riptide installed::

    import dask, dask.dataframe as dd
    dask.config.set({"dataframe.backend": "riptide"})
    ddf = dd.read_parquet("data/*.parquet")          # riptide partitions
    ddf.groupby("key").value.mean().compute()         # a riptide Series

:func:`LocalCluster` (:mod:`riptide.dask.cluster`) starts one worker per GPU (dask-cuda) or a CPU cluster.

Shuffles: with a distributed client Dask's default is its "p2p" shuffle, which converts every partition to an
Arrow table in host memory. riptide's hash partitioning and splitting run on the device, so importing this package
makes ``"tasks"`` the default shuffle method when none is configured (``dataframe.shuffle.method``); this default
applies to every Dask DataFrame in the process. Set the option explicitly to choose otherwise.
"""

from __future__ import annotations

from riptide.dask import _shims  # GroupBy.grouper, read by Dask's groupby var/std (not pandas 3 API)
from riptide.dask import dispatch as _dispatch  # registers the dispatch functions
from riptide.dask import expressions as _expressions  # the variance reduction for device partitions
from riptide.dask import serialization as _serialization  # registers dask_serialize / cuda_serialize
from riptide.dask.backends import RiptideBackendEntrypoint, from_dict, read_csv, read_json, read_orc, read_parquet
from riptide.dask.cluster import LocalCluster, setup_workers
from riptide.dask.validation import validate_meta

_REGISTERED = (_shims, _dispatch, _expressions, _serialization)  # imported for their registrations


def _default_to_task_shuffle() -> None:
    import dask

    if dask.config.get("dataframe.shuffle.method", None) is None:
        dask.config.update_defaults({"dataframe": {"shuffle": {"method": "tasks"}}})


_default_to_task_shuffle()

__all__ = ["RiptideBackendEntrypoint", "LocalCluster", "setup_workers", "from_dict", "read_csv", "read_json",
           "read_orc", "read_parquet", "validate_meta"]
