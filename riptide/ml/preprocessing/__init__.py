"""Scaling and other feature preprocessing (``sklearn.preprocessing``)."""

from riptide.ml.preprocessing._data import MinMaxScaler, StandardScaler

__all__ = ["MinMaxScaler", "StandardScaler"]
