"""Pipelines (``sklearn.pipeline``): scikit-learn's own classes, re-exported, and riptide's ColumnTransformer.

``Pipeline``, ``make_pipeline``, ``FeatureUnion`` and ``make_union`` work unchanged with riptide estimators:
each step receives what the previous step returned, and riptide's steps return device arrays for device input
(CuPy arrays, riptide DataFrames on the GPU) and NumPy for host input, so a pipeline fed a riptide DataFrame
keeps its data on the device from the first step to the last. (Verified in tests/ml/test_pipeline.py, also
inside ``GridSearchCV``/``RandomizedSearchCV`` and with ``set_output(transform="pandas")``.)

``ColumnTransformer`` / ``make_column_transformer`` are riptide's (:mod:`riptide.ml.compose`, a subclass of
scikit-learn's with the same parameters, attributes and results): besides NumPy and pandas input they accept
riptide DataFrames and CuPy arrays, selecting each transformer's columns on the device (riptide transformers
receive riptide frames) and stacking device outputs on the device. scikit-learn's own class cannot read a riptide
frame (its ``_check_X`` and narwhals-based column lookup do not recognise it).
``FeatureUnion``'s ``hstack`` of device outputs needs NumPy outputs (host input).

>>> import numpy as np
>>> from riptide.ml.linear_model import Ridge
>>> from riptide.ml.preprocessing import StandardScaler
>>> X = np.arange(20.0).reshape(10, 2)
>>> pipe = make_pipeline(StandardScaler(), Ridge(alpha=1e-6)).fit(X, X @ [1.0, 1.0])
>>> round(float(pipe.score(X, X @ [1.0, 1.0])), 6)
1.0
"""

from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline, make_union

from riptide.ml.compose import ColumnTransformer, make_column_transformer

__all__ = ["ColumnTransformer", "FeatureUnion", "Pipeline", "make_column_transformer", "make_pipeline", "make_union"]
