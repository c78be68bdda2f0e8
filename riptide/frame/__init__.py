"""The pandas API over columns: Index, Series, DataFrame and their indexing and display."""

from riptide.frame.dataframe import DataFrame
from riptide.frame.index import Index, RangeIndex
from riptide.frame.series import Series

__all__ = ["DataFrame", "Index", "RangeIndex", "Series"]
