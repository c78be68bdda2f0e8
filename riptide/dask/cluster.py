"""A local Dask cluster for riptide: one worker per GPU when there are GPUs, else a plain CPU cluster.

On a GPU machine the right shape is dask-cuda's ``LocalCUDACluster``: one single-threaded worker process per GPU
(each pinned to its device with ``CUDA_VISIBLE_DEVICES``), a device memory limit past which the worker spills
partitions to host memory (and from there to disk), and optionally UCX for NVLink transfers. Without GPUs (or
without dask-cuda) riptide runs on NumPy and a ``distributed.LocalCluster`` of processes is the equivalent.

Workers must import :mod:`riptide.dask` before they handle riptide partitions (it registers the dispatch functions
and the serializers in the worker process): the helper preloads it, and :func:`setup_workers` does it for a cluster
started elsewhere (dask-kubernetes, dask-jobqueue), present and future workers alike.

Multi-node clusters are not started from here: run ``dask scheduler`` on one node and
``dask cuda worker <scheduler-address> --preload riptide.dask`` on each GPU node (or ``dask worker ... --preload
riptide.dask`` on CPU nodes), then ``distributed.Client(address)``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LocalCluster", "gpu_count", "setup_workers"]


def gpu_count() -> int:
    """The number of CUDA devices CuPy sees (0 without CuPy or a GPU)."""
    try:
        import cupy

        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no CuPy, no driver, no device
        return 0


def _has_dask_cuda() -> bool:
    import importlib.util

    return importlib.util.find_spec("dask_cuda") is not None


def _with_riptide(modules: Any) -> list[str]:
    """The worker start-up imports, riptide.dask among them: its dispatch and serializer registrations must exist in
    every worker process before the first riptide partition arrives or is made there."""
    if isinstance(modules, str):
        modules = [modules]
    modules = list(modules or [])
    return modules if "riptide.dask" in modules else modules + ["riptide.dask"]


def LocalCluster(n_workers: int | None = None, *, device_memory_limit: Any = "default",
                 gpu: bool | None = None, processes: bool = True, threads_per_worker: int | None = None,
                 protocol: str | None = None, **kwargs: Any) -> Any:  # fmt: skip
    """Start a local Dask cluster suited to riptide.

    Parameters
    ----------
    n_workers : int, optional
        GPU cluster: how many GPUs to use (the first ``n_workers``; all by default). CPU cluster: worker count.
    device_memory_limit : int, str or float, default "default"
        GPU cluster: bytes of device memory a worker fills before spilling partitions to host memory (``"8GB"``,
        ``0.8`` for a fraction of the device, ``"default"`` for dask-cuda's default, ``None`` for no spilling).
    gpu : bool, optional
        Force the GPU cluster (True: raises ImportError without dask-cuda) or the CPU one (False); by default GPU
        when dask-cuda is installed and a GPU is visible.
    processes, threads_per_worker : CPU cluster options (``distributed.LocalCluster``'s).
    protocol : str, optional
        ``"ucx"`` for UCX comms between GPU workers (NVLink), else TCP.
    **kwargs
        Passed on to ``LocalCUDACluster`` / ``distributed.LocalCluster``.

    Examples
    --------
    >>> from distributed import Client
    >>> cluster = LocalCluster(2, gpu=False, processes=False)   # doctest: +SKIP
    >>> client = Client(cluster)                                # doctest: +SKIP
    """
    use_gpu = gpu if gpu is not None else (gpu_count() > 0 and _has_dask_cuda())
    if use_gpu:
        if not _has_dask_cuda():
            raise ImportError("a GPU cluster needs dask-cuda: pip install dask-cuda")
        import inspect

        from dask_cuda import LocalCUDACluster

        options: dict[str, Any] = dict(kwargs)
        if "pre_import" in inspect.signature(LocalCUDACluster).parameters:  # dask-cuda's own start-up imports
            options["pre_import"] = _with_riptide(options.get("pre_import"))
        else:
            options["preload"] = _with_riptide(options.get("preload"))
        if n_workers is not None:
            options["CUDA_VISIBLE_DEVICES"] = list(range(n_workers))
        if device_memory_limit != "default":
            options["device_memory_limit"] = device_memory_limit
        if protocol is not None:
            options["protocol"] = protocol
        if threads_per_worker is not None:
            options["threads_per_worker"] = threads_per_worker
        return LocalCUDACluster(**options)
    from distributed import LocalCluster as CPUCluster

    kwargs["preload"] = _with_riptide(kwargs.get("preload"))
    if protocol is not None:
        kwargs["protocol"] = protocol
    return CPUCluster(n_workers=n_workers, processes=processes, threads_per_worker=threads_per_worker or 1,
                      **kwargs)  # fmt: skip


def _worker_plugin_class() -> Any:
    from distributed.diagnostics.plugin import WorkerPlugin

    class RiptideWorkerSetup(WorkerPlugin):
        """Imports riptide.dask in each worker (its registrations), including workers that join later."""

        name = "riptide-dask"

        def setup(self, worker: Any) -> None:
            import importlib

            importlib.import_module("riptide.dask")

    return RiptideWorkerSetup


def setup_workers(client: Any) -> None:
    """Make every worker of ``client``'s cluster, present and future, import riptide.dask (a worker plugin).

    >>> from distributed import Client                 # doctest: +SKIP
    >>> setup_workers(Client("tcp://scheduler:8786"))  # doctest: +SKIP
    """
    client.register_plugin(_worker_plugin_class()())
