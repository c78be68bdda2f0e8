"""Scaling, encoding and other feature preprocessing (``sklearn.preprocessing``)."""

from riptide.ml.preprocessing._data import (
    MaxAbsScaler,
    MinMaxScaler,
    Normalizer,
    RobustScaler,
    StandardScaler,
    normalize,
)
from riptide.ml.preprocessing._discretization import KBinsDiscretizer
from riptide.ml.preprocessing._encoders import OneHotEncoder, OrdinalEncoder
from riptide.ml.preprocessing._label import LabelBinarizer, LabelEncoder
from riptide.ml.preprocessing._polynomial import PolynomialFeatures
from riptide.ml.preprocessing._target_encoder import TargetEncoder

__all__ = [
    "KBinsDiscretizer",
    "LabelBinarizer",
    "LabelEncoder",
    "MaxAbsScaler",
    "MinMaxScaler",
    "Normalizer",
    "OneHotEncoder",
    "OrdinalEncoder",
    "PolynomialFeatures",
    "RobustScaler",
    "StandardScaler",
    "TargetEncoder",
    "normalize",
]
