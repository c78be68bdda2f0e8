"""Issue 6's sparse and stochastic linear models: riptide.ml.linear_model against scikit-learn on the same data.

Sizes at ``--rows 1e8`` follow the issue: every case fits 1e6 x 50 (``rows / 100``). As in
:mod:`riptide.benchmarks.cases_ml`, riptide's inputs are on the device before the clock starts; scikit-learn gets
the same values as NumPy.

* ``lasso``: ``alpha=0.1`` on a noisy linear target whose true coefficients are half zero; riptide reads X once
  (the Gram matrix) and runs scikit-learn's coordinate descent over it, scikit-learn sweeps over X itself.
* ``elasticnet``: the same data, ``alpha=0.1, l1_ratio=0.5``.
* ``sgd_classifier``: hinge loss, 5 epochs (``max_iter=5, tol=None``), binary labels from a noisy linear rule. The
  fit is scikit-learn's sequential loop in both libraries (see riptide.ml.linear_model._stochastic_gradient): the
  timing shows the cost of riptide's copy of X to the host, not a speed-up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.benchmarks.cases_ml import FEATURES, _class, _FitCase
from riptide.benchmarks.harness import Context, Reference, register


class _SparseTarget(_FitCase):
    """A target that depends on half of the features."""

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        rng = ctx.rng()
        n = self.samples(ctx)
        X = rng.standard_normal((n, FEATURES))
        w = rng.standard_normal(FEATURES) * (np.arange(FEATURES) % 2 == 0)
        return {"X": X, "y": X @ w + 0.5 * rng.standard_normal(n)}


@register
class LassoFit(_SparseTarget):
    name = "lasso"
    title = "Lasso alpha=0.1"
    reference = Reference(pandas=None, cudf=None, goal=None, note="1e6 x 50; riptide: one Gram pass + host sweeps")

    def estimator(self, module: str) -> Any:
        return _class(module, "linear_model.Lasso")(alpha=0.1)


@register
class ElasticNetFit(_SparseTarget):
    name = "elasticnet"
    title = "ElasticNet alpha=0.1, l1_ratio=0.5"
    reference = Reference(pandas=None, cudf=None, goal=None, note="1e6 x 50")

    def estimator(self, module: str) -> Any:
        return _class(module, "linear_model.ElasticNet")(alpha=0.1, l1_ratio=0.5)


@register
class SGDClassifierFit(_FitCase):
    name = "sgd_classifier"
    title = "SGDClassifier hinge, 5 epochs"
    reference = Reference(pandas=None, cudf=None, goal=None, note="1e6 x 50; the fit is scikit-learn's loop")

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        data = super().data(ctx)
        data["y"] = (data["y"] > 0).astype(np.int64)
        return data

    def estimator(self, module: str) -> Any:
        return _class(module, "linear_model.SGDClassifier")(max_iter=5, tol=None, random_state=0)
