"""Issue 6's model-selection case: a GridSearchCV of Ridge fits, riptide.ml against scikit-learn.

* ``gridsearch_ridge``: 4 alphas x 5-fold cross-validation = 20 Ridge fits (``refit=False``, so exactly the 20
  fits and their scores) on 1e6 x 50 at ``--rows 1e8`` (``rows / 100``). riptide's X and y are on the device
  before the clock starts; each fold's rows are gathered there and each fit is one Gram GEMM and a 50 x 50 solve,
  scored with riptide's r2 on the device. scikit-learn gets the same values as NumPy (and its own
  ``GridSearchCV``, ``n_jobs=None``). The issue's goal: at least 20x scikit-learn on the GPU.
"""

from __future__ import annotations

from typing import Any

from riptide.benchmarks.cases_ml import _class, _FitCase
from riptide.benchmarks.harness import Reference, register

ALPHAS = [0.01, 0.1, 1.0, 10.0]
FOLDS = 5


@register
class GridSearchRidge(_FitCase):
    name = "gridsearch_ridge"
    title = f"GridSearchCV Ridge {len(ALPHAS)} alphas x {FOLDS} folds"
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("sklearn", 20),),
                          note="20 Ridge fits, 1e6 x 50")  # fmt: skip

    def estimator(self, module: str) -> Any:
        ridge = _class(module, "linear_model.Ridge")()
        search = _class(module, "model_selection.GridSearchCV")
        return search(ridge, {"alpha": ALPHAS}, cv=FOLDS, refit=False)
