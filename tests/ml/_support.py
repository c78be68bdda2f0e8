"""Helpers shared by the riptide.ml tests."""

from __future__ import annotations

from typing import Any

import numpy as np

import riptide as rt
from riptide import _device


def host(value: Any) -> Any:
    """A result as NumPy, to compare with scikit-learn's: device arrays copied back, riptide objects through
    pandas; None and scalars as they are."""
    if value is None or np.isscalar(value):
        return value
    if isinstance(value, rt.DataFrame | rt.Series):
        return value.to_pandas().to_numpy()
    return _device.to_host(value)
