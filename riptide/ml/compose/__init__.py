"""Composite transformers (``sklearn.compose``): :class:`ColumnTransformer` for riptide DataFrames and device
arrays as well as NumPy and pandas input, :func:`make_column_transformer`, and scikit-learn's
``make_column_selector`` (which reads riptide frames as it is)."""

from riptide.ml.compose._column_transformer import ColumnTransformer, make_column_selector, make_column_transformer

__all__ = ["ColumnTransformer", "make_column_selector", "make_column_transformer"]
