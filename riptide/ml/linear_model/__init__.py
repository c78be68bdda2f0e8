"""Linear models (``sklearn.linear_model``)."""

from riptide.ml.linear_model._base import LinearRegression
from riptide.ml.linear_model._coordinate_descent import ElasticNet, Lasso
from riptide.ml.linear_model._logistic import LogisticRegression
from riptide.ml.linear_model._ridge import Ridge
from riptide.ml.linear_model._stochastic_gradient import SGDClassifier, SGDRegressor

__all__ = ["ElasticNet", "Lasso", "LinearRegression", "LogisticRegression", "Ridge", "SGDClassifier", "SGDRegressor"]
