"""What the metrics share: reading inputs where they live, and handing the unusual cases to scikit-learn.

Every metric has a *device path* for the common case (1-D labels or targets, dense arrays) that runs in the
inputs' namespace (CuPy for CuPy arrays and riptide objects on the GPU, riptide's current device for host
inputs) and reads back only what the caller receives (a score, or a per-class array of ``n_classes`` numbers).
Everything else -- multilabel indicators, multi-output classification, inputs that fail a check -- is handed to
scikit-learn's own function on a host copy, so the result, the exception and its message are scikit-learn's.
Host inputs are validated by scikit-learn's own checks first, so their error messages are scikit-learn's too.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np

from riptide import _device
from riptide.ml._validation import _as_array, host_form, input_namespace, on_device

__all__ = ["on_device", "device_values", "fallback", "result_array", "weights"]


def device_values(obj: Any, xp: types.ModuleType) -> Any:
    """A device-resident input (or a host array) as an xp array, or None when only the host can convert it."""
    if obj is None:
        return None
    if input_namespace(obj) is None:
        array = np.asarray(obj)
        return _device.to_device(array, xp) if array.dtype.kind in "biuf" else None
    return _as_array(obj, xp)


def fallback(func: Any, *args: Any, **kwargs: Any) -> Any:
    """scikit-learn's ``func`` on host copies of the inputs; an array result goes back to the inputs' device."""
    xp = on_device(*args, *kwargs.values())
    result = func(*[host_form(a) for a in args], **{k: host_form(v) for k, v in kwargs.items()})
    return result_array(result, xp)


def result_array(result: Any, xp: types.ModuleType | None) -> Any:
    """An array result on the device the inputs came from (NumPy for host inputs); scalars stay scalars."""
    if xp is None or not isinstance(result, np.ndarray) or result.dtype.kind not in "biufc":
        return result
    return _device.to_device(result, xp)


def weights(sample_weight: Any, n: int, xp: types.ModuleType) -> Any | None:
    """Sample weights as a float64 xp vector of length n, None when absent, or False when they need the host
    path (wrong shape or type)."""
    if sample_weight is None:
        return None
    w = device_values(sample_weight, xp)
    if w is None or w.ndim != 1 or w.shape[0] != n:
        return False
    return w.astype(xp.float64)
