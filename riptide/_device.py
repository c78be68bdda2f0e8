"""Where column data lives: NumPy on the CPU, CuPy on a CUDA GPU.

This is the one place that decides. Everything above it asks for the array
namespace ``xp`` — :func:`xp` for new arrays, :func:`namespace_of` for arrays
that already exist — and writes NumPy-style code that runs on either.

The choice follows the ``device`` option (env ``RIPTIDE_DEVICE``):

* ``"auto"`` (default): the GPU when CuPy imports and sees a CUDA device, else NumPy;
* ``"gpu"``: CuPy, and an error saying why when it cannot be used;
* ``"cpu"``: NumPy.

>>> from riptide import _device
>>> _device.xp().__name__ in ("numpy", "cupy")
True
"""

from __future__ import annotations

import functools
import types
from typing import Any

import numpy as np

from riptide import _config

__all__ = [
    "xp",
    "is_gpu",
    "namespace_of",
    "is_device_array",
    "to_device",
    "to_host",
    "synchronize",
    "device_info",
]

_NO_GPU_REASON: str | None = None


@functools.cache
def _cupy() -> types.ModuleType | None:
    """CuPy if it imports and sees at least one CUDA device, else None (reason kept)."""
    global _NO_GPU_REASON
    try:
        import cupy
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        _NO_GPU_REASON = f"CuPy is not importable ({type(exc).__name__}: {exc}); install riptide[cuda13]"
        return None
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        _NO_GPU_REASON = f"CuPy found no usable CUDA driver ({exc})"
        return None
    if n == 0:
        _NO_GPU_REASON = "CuPy sees no CUDA device"
        return None
    _apply_memory_limit(cupy, _config.get_option("memory_limit"))
    return cupy


def _apply_memory_limit(cupy: types.ModuleType, limit: int | None) -> None:
    cupy.get_default_memory_pool().set_limit(size=limit or 0)  # 0 means no limit for CuPy


@functools.cache
def _resolved_namespace(device: str) -> types.ModuleType:
    if device == "cpu":
        return np
    cupy = _cupy()
    if cupy is not None:
        return cupy
    if device == "gpu":
        raise RuntimeError(f"device='gpu' was requested but {_NO_GPU_REASON}. Use device='cpu' or 'auto'.")
    return np


def xp() -> types.ModuleType:
    """The array namespace that new columns are created in: ``numpy`` or ``cupy``."""
    return _resolved_namespace(_config.get_option("device"))


def is_gpu() -> bool:
    """True when new columns are created on a CUDA GPU."""
    return xp() is not np


def namespace_of(array: Any) -> types.ModuleType:
    """The namespace of an existing array: ``numpy`` for host arrays, ``cupy`` for device arrays."""
    if isinstance(array, np.ndarray | np.generic):
        return np
    return _cupy() or np


def is_device_array(obj: Any) -> bool:
    """True for a CuPy array (or anything exposing ``__cuda_array_interface__``), except riptide's own Series and
    Index: they expose the interface for other libraries, but inside riptide they keep their labels and masks."""
    return (hasattr(obj, "__cuda_array_interface__") and not isinstance(obj, np.ndarray)
            and not type(obj).__module__.startswith("riptide."))  # fmt: skip


def to_device(array: Any, xp_: types.ModuleType | None = None) -> Any:
    """Move a host array (NumPy) into namespace ``xp_`` (default: the current device).

    Device arrays in the target namespace pass through unchanged (no copy).
    Host to GPU copies go through pinned staging buffers (see :mod:`riptide._transfer`).
    """
    xp_ = xp_ or xp()
    if xp_ is np:
        return to_host(array)
    if isinstance(array, xp_.ndarray):
        return array
    if is_device_array(array):  # e.g. a torch CUDA tensor: zero-copy view
        return xp_.asarray(array)
    from riptide import _transfer

    return _transfer.host_to_device(np.asarray(array))


def to_host(array: Any) -> np.ndarray:
    """A NumPy array with the same values (no copy if it is already on the host)."""
    if isinstance(array, np.ndarray):
        return array
    if is_device_array(array):
        from riptide import _transfer

        return _transfer.device_to_host(array)
    return np.asarray(array)


def sparse_to_host(matrix: Any) -> Any:
    """A SciPy CSR matrix with the values of a ``cupyx.scipy.sparse`` matrix (its three arrays through
    :func:`to_host`); a SciPy matrix is returned as it is.

    >>> import scipy.sparse
    >>> sparse_to_host(scipy.sparse.eye(2, format="csr")).nnz
    2
    """
    import scipy.sparse

    if scipy.sparse.issparse(matrix):
        return matrix
    csr = matrix.tocsr()
    return scipy.sparse.csr_matrix((to_host(csr.data), to_host(csr.indices), to_host(csr.indptr)), shape=csr.shape)


def synchronize() -> None:
    """Wait for all queued device work (a no-op on the CPU). Benchmarks call this before reading clocks."""
    cupy = _cupy() if is_gpu() else None
    if cupy is not None:
        cupy.cuda.get_current_stream().synchronize()


def device_info() -> dict[str, Any]:
    """What riptide runs on: device kind, GPU name and memory, library versions."""
    import pandas
    import pyarrow

    info: dict[str, Any] = {
        "device": "gpu" if is_gpu() else "cpu",
        "device_option": _config.get_option("device"),
        "numpy": np.__version__,
        "pandas": pandas.__version__,
        "pyarrow": pyarrow.__version__,
    }
    cupy = _cupy()
    if cupy is None:
        info["gpu"] = None
        info["why_no_gpu"] = _NO_GPU_REASON
        return info
    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    free, total = cupy.cuda.runtime.memGetInfo()
    info.update(
        gpu=props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        gpu_count=cupy.cuda.runtime.getDeviceCount(),
        compute_capability=f"{props['major']}.{props['minor']}",
        memory_total_bytes=total,
        memory_free_bytes=free,
        cupy=cupy.__version__,
        cuda_runtime=cupy.cuda.runtime.runtimeGetVersion(),
        cuda_driver=cupy.cuda.runtime.driverGetVersion(),
        memory_limit=_config.get_option("memory_limit"),
    )
    return info


def _on_memory_limit(limit: int | None) -> None:
    cupy = _cupy() if _config.get_option("device") != "cpu" else None
    if cupy is not None:
        _apply_memory_limit(cupy, limit)


_config.on_change("memory_limit", _on_memory_limit)
