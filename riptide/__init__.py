"""riptide: the pandas API on NVIDIA GPUs (CuPy), with a NumPy fallback on the CPU.

>>> import riptide as rt
>>> df = rt.DataFrame({"a": [1, 2, 3], "b": [4.0, None, 6.0]})
>>> int(df["a"].sum())
6

The device is chosen by the ``device`` option (env ``RIPTIDE_DEVICE=auto|gpu|cpu``):
``rt.set_option("device", "cpu")``. ``riptide info`` on the command line shows what is in use.
"""

from __future__ import annotations

from typing import Any

from riptide import errors
from riptide._config import get_option, option_context, set_option
from riptide.frame import DataFrame, Index, RangeIndex, Series

__version__ = "0.1.0"

__all__ = [
    "DataFrame",
    "Index",
    "RangeIndex",
    "Series",
    "from_pandas",
    "from_arrow",
    "get_option",
    "set_option",
    "option_context",
    "__version__",
]

# pandas' top-level functions, imported on first use so that ``import riptide`` stays fast.
# Each lives in the module of its capability.
_LAZY_EXPORTS = {
    "MultiIndex": "riptide.frame.multi_index",
    "concat": "riptide.frame.concat",
    "merge": "riptide.frame.merge",
    "merge_asof": "riptide.frame.merge_asof",
    "melt": "riptide.frame.reshape",
    "get_dummies": "riptide.frame.reshape",
    "cut": "riptide.frame.binning",
    "qcut": "riptide.frame.binning",
    "pivot": "riptide.frame.pivot",
    "pivot_table": "riptide.frame.pivot",
    "crosstab": "riptide.frame.pivot",
    "to_datetime": "riptide.frame.to_datetime",
    "to_numeric": "riptide.frame.to_numeric",
    "date_range": "riptide.frame.date_range",
    "to_timedelta": "riptide.frame.to_timedelta",
    "Grouper": "riptide.frame.resample",
    "read_csv": "riptide.io.csv",
    "read_parquet": "riptide.io.parquet",
    "read_orc": "riptide.io.orc",
    "read_json": "riptide.io.json",
    "read_feather": "riptide.io.feather",
    "from_dlpack": "riptide.frame.interop",
}
__all__ += list(_LAZY_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'riptide' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def from_pandas(obj: Any) -> DataFrame | Series | Index:
    """A riptide DataFrame, Series or Index with the same values, dtypes, index and names.

    >>> import pandas as pd
    >>> from_pandas(pd.Series([1, 2], name="x")).name
    'x'
    """
    import pandas as pd

    if isinstance(obj, pd.DataFrame):
        return DataFrame(obj)
    if isinstance(obj, pd.Series):
        return Series(obj)
    if isinstance(obj, pd.Index):
        from riptide.frame.index import as_index

        return as_index(obj)
    raise TypeError(f"from_pandas expects a pandas DataFrame, Series or Index, got {type(obj).__name__}")


def from_arrow(obj: Any) -> DataFrame | Series:
    """A DataFrame from a pyarrow Table (or any Arrow stream), a Series from an Arrow array; objects exposing
    ``__arrow_c_device_array__`` are imported without a copy (see :mod:`riptide.frame.interop`)."""
    from riptide.frame.interop import from_arrow as _from_arrow

    return _from_arrow(obj)
