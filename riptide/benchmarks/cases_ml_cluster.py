"""Issue 6's clustering cases: riptide.ml.cluster against scikit-learn (the host's cores) on the same data.

Sizes at ``--rows 1e8`` follow the issue: DBSCAN fits 1e5 x 2 and HDBSCAN 1e5 x 10 (``rows / 1000``),
MiniBatchKMeans 1e6 x 50 (``rows / 100``). As in :mod:`riptide.benchmarks.cases_ml`, riptide's inputs are on the
device before the clock starts; scikit-learn gets the same values as NumPy.

* ``dbscan``: 20 gaussian blobs (unit spread, centres in a 40 x 40 box), ``min_samples=10`` and ``eps`` scaled
  with the density (0.1 at 1e5 points: a few hundred clusters and about a fifth of the points noise).
* ``hdbscan``: 10 gaussian blobs in 10 dimensions, ``min_cluster_size=50``.
* ``minibatch_kmeans``: k=8 from a fixed initial array, batch 1024, one pass (``max_iter=1``: ``n / 1024`` steps,
  ``max_no_improvement=None``), the same minibatch draws in both libraries (the same ``random_state``), then the
  labels of all rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from riptide.benchmarks.cases_ml import FEATURES, _class, _FitCase
from riptide.benchmarks.harness import Context, Reference, fmt_count, register


class _BlobsCase(_FitCase):
    """An unsupervised fit of ``rows / 1000`` points in ``features`` dimensions: gaussian blobs (unit spread) around
    ``centres`` centres drawn uniformly in ``[-box, box]`` per dimension."""

    share = 1000
    supervised = False
    features = 2
    centres = 20
    box = 20.0

    def size(self, ctx: Context) -> str:
        return f"{fmt_count(self.samples(ctx))} x {self.features}"

    def data(self, ctx: Context) -> dict[str, np.ndarray]:
        rng = ctx.rng()
        n = self.samples(ctx)
        middles = rng.uniform(-self.box, self.box, (self.centres, self.features))
        return {"X": middles[rng.integers(0, self.centres, n)] + rng.standard_normal((n, self.features))}


@register
class DBSCANFit(_BlobsCase):
    name = "dbscan"
    title = "DBSCAN eps~0.1, min_samples=10"
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("sklearn", 50),), note="1e5 x 2 blobs")

    def estimator(self, module: str) -> Any:
        eps = 0.1 * np.sqrt(100_000 / self._samples)  # the same neighbour counts at every size
        return _class(module, "cluster.DBSCAN")(eps=float(eps), min_samples=10)

    def fit_args(self, data: dict[str, np.ndarray], on_device: bool) -> tuple:
        self._samples = data["X"].shape[0]
        return super().fit_args(data, on_device)


@register
class HDBSCANFit(_BlobsCase):
    name = "hdbscan"
    title = "HDBSCAN min_cluster_size=50"
    features = 10
    centres = 10
    box = 10.0
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("sklearn", 50),), note="1e5 x 10 blobs")

    def estimator(self, module: str) -> Any:
        return _class(module, "cluster.HDBSCAN")(min_cluster_size=50, copy=False)


@register
class MiniBatchKMeansFit(_FitCase):
    name = "minibatch_kmeans"
    title = "MiniBatchKMeans k=8, batch 1024"
    supervised = False
    reference = Reference(pandas=None, cudf=None, goal=None, min_speedup=(("sklearn", 10),), note="1e6 x 50")

    def estimator(self, module: str) -> Any:
        init = np.random.default_rng(1).standard_normal((8, FEATURES))
        return _class(module, "cluster.MiniBatchKMeans")(n_clusters=8, init=init, n_init=1, max_iter=1,
                                                         max_no_improvement=None, random_state=0)  # fmt: skip
