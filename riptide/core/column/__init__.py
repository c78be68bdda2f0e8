"""Columns: the Arrow-layout buffers behind every Series, Index and DataFrame column."""

from riptide.core.column.base import Column
from riptide.core.column.build import (
    as_column,
    column_from_arrow,
    column_from_pandas,
    concat_columns,
    full,
    is_scalar,
)
from riptide.core.column.categorical import CategoricalColumn
from riptide.core.column.list import ListColumn
from riptide.core.column.numeric import NumericColumn
from riptide.core.column.string import StringColumn

__all__ = [
    "Column",
    "NumericColumn",
    "StringColumn",
    "CategoricalColumn",
    "ListColumn",
    "as_column",
    "column_from_arrow",
    "column_from_pandas",
    "concat_columns",
    "full",
    "is_scalar",
]
