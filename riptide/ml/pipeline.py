"""Pipelines (``sklearn.pipeline``): scikit-learn's own classes, re-exported.

``Pipeline``, ``make_pipeline``, ``FeatureUnion`` and ``make_union`` work unchanged with riptide estimators:
each step receives what the previous step returned, and riptide's steps return device arrays for device input
(CuPy arrays, riptide DataFrames on the GPU) and NumPy for host input, so a pipeline fed a riptide DataFrame
keeps its data on the device from the first step to the last. (Verified in tests/ml/test_pipeline.py, also
inside ``GridSearchCV``/``RandomizedSearchCV`` and with ``set_output(transform="pandas")``.)

``ColumnTransformer`` / ``make_column_transformer`` are re-exported from ``sklearn.compose`` as they are: they
work with riptide estimators on NumPy and pandas input (the selected columns are handed to riptide's
transformers, which run on the device). A riptide DataFrame is *not* accepted by them yet: scikit-learn selects
columns through narwhals, which does not recognise riptide frames (selecting columns by name raises
"Specifying the columns using strings is only supported for dataframes"). Pass ``frame.to_pandas()``, or
encode a riptide frame with riptide's encoders directly (they read string columns on the device).
``FeatureUnion``'s ``hstack`` of device outputs needs NumPy outputs (host input).

>>> import numpy as np
>>> from riptide.ml.linear_model import Ridge
>>> from riptide.ml.preprocessing import StandardScaler
>>> X = np.arange(20.0).reshape(10, 2)
>>> pipe = make_pipeline(StandardScaler(), Ridge(alpha=1e-6)).fit(X, X @ [1.0, 1.0])
>>> round(float(pipe.score(X, X @ [1.0, 1.0])), 6)
1.0
"""

from sklearn.compose import ColumnTransformer, make_column_transformer
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline, make_union

__all__ = ["ColumnTransformer", "FeatureUnion", "Pipeline", "make_column_transformer", "make_pipeline", "make_union"]
