"""Linear models (``sklearn.linear_model``)."""

from riptide.ml.linear_model._base import LinearRegression
from riptide.ml.linear_model._logistic import LogisticRegression
from riptide.ml.linear_model._ridge import Ridge

__all__ = ["LinearRegression", "LogisticRegression", "Ridge"]
