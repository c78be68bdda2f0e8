"""Linear models (``sklearn.linear_model``)."""

from riptide.ml.linear_model._base import LinearRegression
from riptide.ml.linear_model._ridge import Ridge

__all__ = ["LinearRegression", "Ridge"]
