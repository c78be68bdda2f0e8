"""Issue 6's cases: riptide.ml against scikit-learn (the host's cores) on the same data.

Sizes at ``--rows 1e8`` follow the issue: KMeans, PCA and LogisticRegression fit 1e6 x 50 (``rows / 100``),
LinearRegression 1e7 x 50 (``rows / 10``). riptide's inputs are on the device before the clock starts (CuPy arrays
on a GPU), so the timings are the fits, not the transfers; scikit-learn gets the same values as NumPy.

* ``kmeans``: k=8 from a fixed initial array, 20 Lloyd iterations (``tol=0``, ``n_init=1``): both libraries run
  the same iterations from the same start (``--check`` compares with pandas only; tests/ml compares the results
  with scikit-learn's).
* ``pca``: 50 -> 10 components, the default solver.
* ``logistic``: binary labels from a noisy linear rule, lbfgs to scikit-learn's default tolerance.
* ``linear_regression``: ordinary least squares with an intercept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from riptide.benchmarks.harness import Case, Context, Reference, fmt_count, register

MS = 1e-3
FEATURES = 50


def _device(array: np.ndarray) -> Any:
    from riptide import _device

    return _device.to_device(array)


class _FitCase(Case):
    """``fit`` of an estimator from riptide.ml (inputs on the device) and of its scikit-learn twin."""

    bound = "none"
    share = 100  # rows / share samples
    supervised = True  # fit(X, y); an unsupervised estimator fits X alone

    def samples(self, ctx: Context) -> int:
        return max(ctx.rows // self.share, 16)

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(self.samples(ctx))} x {FEATURES}"

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        rng = ctx.rng()
        n = self.samples(ctx)
        X = rng.standard_normal((n, FEATURES))
        w = rng.standard_normal(FEATURES)
        return {"X": X, "y": X @ w + 0.5 * rng.standard_normal(n)}

    def estimator(self, module: str) -> Any:
        raise NotImplementedError

    def fit_args(self, data: dict[str, np.ndarray], on_device: bool) -> tuple:
        arrays = (data["X"], data["y"]) if self.supervised else (data["X"],)
        return tuple(_device(a) for a in arrays) if on_device else arrays

    def riptide(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        args = self.fit_args(data, on_device=True)
        return lambda: self.estimator("riptide.ml").fit(*args)

    def sklearn(self, data: dict[str, np.ndarray]) -> Callable[[], Any]:
        args = self.fit_args(data, on_device=False)
        return lambda: self.estimator("sklearn").fit(*args)


def _class(module: str, path: str) -> Any:
    import importlib

    package, name = path.rsplit(".", 1)
    return getattr(importlib.import_module(f"{module}.{package}"), name)


@register
class KMeansFit(_FitCase):
    name = "kmeans"
    title = "KMeans k=8, 20 iters"
    reference = Reference(pandas=None, cudf=None, goal=10 * MS, note="sklearn 404 ms, plain CuPy 58 ms (1e6 x 50)")
    supervised = False

    def estimator(self, module: str) -> Any:
        init = np.random.default_rng(1).standard_normal((8, FEATURES))
        return _class(module, "cluster.KMeans")(n_clusters=8, init=init, n_init=1, max_iter=20, tol=0.0)


@register
class PCAFit(_FitCase):
    name = "pca"
    title = "PCA 50 -> 10"
    reference = Reference(pandas=None, cudf=None, goal=8 * MS, note="sklearn 132 ms, plain CuPy 24.5 ms (1e6 x 50)")
    supervised = False

    def estimator(self, module: str) -> Any:
        return _class(module, "decomposition.PCA")(n_components=10)


@register
class LogisticFit(_FitCase):
    name = "logistic"
    title = "LogisticRegression lbfgs"
    reference = Reference(pandas=None, cudf=None, goal=60 * MS, note="sklearn 1080 ms (1e6 x 50)")

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        data = super().data(ctx)
        data["y"] = (data["y"] > 0).astype(np.int64)
        return data

    def estimator(self, module: str) -> Any:
        return _class(module, "linear_model.LogisticRegression")()


@register
class LinearRegressionFit(_FitCase):
    name = "linear_regression"
    title = "LinearRegression"
    share = 10
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("sklearn", 50),), note="1e7 x 50")

    def estimator(self, module: str) -> Any:
        return _class(module, "linear_model.LinearRegression")()
