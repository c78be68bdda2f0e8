"""The one attribute Dask reads from riptide objects that is not pandas API: ``GroupBy.grouper``.

Every pandas method Dask calls on partitions is implemented in riptide/frame itself (Index.isna/to_frame/
get_slice_bound/searchsorted, Series.searchsorted/squeeze, DataFrame.select_dtypes/transpose/quantile, the pandas
object protocol in frame/protocol.py, SeriesGroupBy.unique, GroupBy.obj, ...). What remains here is Dask's own
business: its groupby ``var``/``std`` aggregation (``dask.dataframe.groupby._compute_sum_of_squares``) regroups the
squared values with ``grouped.grouper`` (pandas < 3), ``grouped._grouper`` (pandas' private grouper) or
``grouped.grouping.keys`` (cuDF). pandas 3 has no public ``grouper``, so riptide/frame does not offer one; it is
added to riptide's GroupBy here, for Dask, as the key Series (what ``obj.groupby(...)`` accepts).
"""

from __future__ import annotations

from typing import Any

from riptide.frame import Series
from riptide.frame.groupby import GroupBy

__all__ = ["install"]


def _groupby_grouper(self: Any) -> Any:
    """``GroupBy.grouper`` for Dask: the key columns as Series aligned with the grouped object."""
    keys = self._keys
    index = self._obj.index
    series = [Series._from_column(column, index, name) for column, name in zip(keys.columns, keys.names)]
    return series if keys.listed or len(series) > 1 else series[0]


def install() -> list[str]:
    """Add ``GroupBy.grouper`` unless riptide already has it; returns the names added (``Class.attribute``)."""
    if hasattr(GroupBy, "grouper"):
        return []
    GroupBy.grouper = property(_groupby_grouper)
    return ["GroupBy.grouper"]


INSTALLED = install()
