"""riptide.ml: the scikit-learn API on the GPU (CuPy), with NumPy on the CPU.

Module paths, estimator names, parameters, attributes and results are scikit-learn's: replace ``sklearn`` by
``riptide.ml`` in an import. Estimators subclass ``sklearn.base.BaseEstimator`` (so ``get_params``, ``clone``,
``Pipeline``, ``GridSearchCV`` and parameter validation are scikit-learn's own) and accept NumPy, pandas, lists,
CuPy arrays and riptide DataFrames/Series. Where the work runs and what comes back is described in
:mod:`riptide.ml._validation`: device input gives device output; host input gives host output.

Submodules are imported on first use so that ``import riptide.ml`` stays cheap:

>>> import riptide.ml as rml
>>> rml.preprocessing.StandardScaler().fit([[1.0], [3.0]]).mean_.tolist()
[2.0]
"""

from __future__ import annotations

import importlib
from typing import Any

from riptide.ml import _base

_SET_OUTPUT_ADAPTER = _base._RiptideAdapter  # importing _base registers set_output(transform="riptide")

__all__ = ["cluster", "compose", "decomposition", "impute", "linear_model", "metrics", "model_selection", "naive_bayes",
           "neighbors", "pipeline", "preprocessing"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'riptide.ml' has no attribute {name!r}")
    module = importlib.import_module(f"riptide.ml.{name}")
    globals()[name] = module
    return module
