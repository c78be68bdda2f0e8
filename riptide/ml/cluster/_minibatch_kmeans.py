"""Mini-batch K-means (``sklearn.cluster.MiniBatchKMeans``): scikit-learn's random draws, the arithmetic on the device.

scikit-learn's algorithm is sequential in its random numbers: the validation rows, each initialization's subset and
seeds, then per step one ``RandomState.choice`` of ``batch_size`` rows (with probabilities proportional to the
sample weights) and, when low-count centers are reassigned, a ``choice`` among the batch's rows. To give the same
result for the same ``random_state``, riptide makes exactly those calls on a host ``RandomState``; what they cost
on the host is batch-sized. ``choice`` with probabilities is ``random_sample`` plus a ``searchsorted`` on the CDF
of the weights, so the host draws only the uniforms and the device turns them into row numbers against a device
CDF (the data and its weights never leave the device). Everything else runs on the device against ``xp``: each
step's labels (scikit-learn's ``|c|^2 - 2 x.c`` argmin, through :mod:`riptide.ml.cluster._kmeans`), the per-cluster
sums (a one-hot GEMM) and the count-weighted center update, written as whole-array operations over clusters.

Host reads per step: the number of centers to reassign when a reassignment is due (the host needs it to draw
their rows; with ``batch_size >= 10 * n_clusters`` that is every step), read in one transfer with the batch
inertia that an early-stopping rule (``max_no_improvement`` or ``tol``) needs; the inertia alone otherwise, when a
rule needs it (without one the inertias stay on the device and their weighted average is computed once at the
end); and whether a cluster is still empty while fewer than ``10 * n_clusters`` samples have been seen since the
last reassignment.
k-means++ is :func:`riptide.ml.cluster._kmeans._kmeans_plusplus` (scikit-learn's greedy variant, the same draws).
Unlike :class:`~riptide.ml.cluster.KMeans`, scikit-learn does not center X here, and neither does riptide.
"""

from __future__ import annotations

import types
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from riptide import _device
from riptide.ml import _kernels as ml_kernels
from riptide.ml._validation import FLOAT_DTYPES, check_input, check_sample_weight, validate_data
from riptide.ml.cluster._kmeans import KMeans, _choice_index, _kmeans_plusplus, _labels_inertia, _weighted_sums

__all__ = ["MiniBatchKMeans"]


class MiniBatchKMeans(KMeans):
    """Mini-batch K-means clustering (``sklearn.cluster.MiniBatchKMeans``).

    Parameters
    ----------
    n_clusters : int, default=8
    init : {'k-means++', 'random'}, callable or array-like of shape (n_clusters, n_features), default='k-means++'
    max_iter : int, default=100
    batch_size : int, default=1024
    verbose : int, default=0
        Accepted for compatibility.
    compute_labels : bool, default=True
    random_state : int, RandomState instance or None, default=None
    tol : float, default=0.0
    max_no_improvement : int, default=10
    init_size : int, default=None
    n_init : 'auto' or int, default='auto'
    reassignment_ratio : float, default=0.01

    Attributes
    ----------
    cluster_centers_ : array of shape (n_clusters, n_features)
    labels_ : array of shape (n_samples,), int32
    inertia_ : float
    n_iter_ : int
    n_steps_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.cluster import MiniBatchKMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [4, 2], [4, 0], [4, 4], [4, 5], [0, 1], [2, 2], [3, 2], [5, 5],
    ...               [1, -1]])
    >>> km = MiniBatchKMeans(n_clusters=2, random_state=0, batch_size=6, max_iter=10, n_init="auto").fit(X)
    >>> km.cluster_centers_.round(2).tolist()
    [[3.21, 3.56], [1.33, 0.78]]
    >>> km.predict(np.array([[0, 0], [4, 4]])).tolist()
    [1, 0]
    """

    _parameter_constraints: dict = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"k-means++", "random"}), callable, "array-like"],
        "n_init": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "compute_labels": ["boolean"],
        "max_no_improvement": [Interval(Integral, 0, None, closed="left"), None],
        "init_size": [Interval(Integral, 1, None, closed="left"), None],
        "reassignment_ratio": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, n_clusters=8, *, init="k-means++", max_iter=100, batch_size=1024, verbose=0,
                 compute_labels=True, random_state=None, tol=0.0, max_no_improvement=10, init_size=None,
                 n_init="auto", reassignment_ratio=0.01):  # fmt: skip
        self.n_clusters = n_clusters
        self.init = init
        self.max_iter = max_iter
        self.batch_size = batch_size
        self.verbose = verbose
        self.compute_labels = compute_labels
        self.random_state = random_state
        self.tol = tol
        self.max_no_improvement = max_no_improvement
        self.init_size = init_size
        self.n_init = n_init
        self.reassignment_ratio = reassignment_ratio

    # ------------------------------------------------------------------ scikit-learn's bookkeeping

    def _check_params_vs_input(self, X: Any, xp: types.ModuleType) -> None:
        super()._check_params_vs_input(X, xp, default_n_init=3)
        # one scalar read: the tolerance is a host number (scikit-learn's mean feature variance times tol)
        self._tol = 0 if self.tol == 0 else float(ml_kernels.column_variances(X, xp).mean()) * self.tol
        self._batch_size = min(self.batch_size, X.shape[0])
        self._init_size = self.init_size
        if self._init_size is None:
            self._init_size = 3 * self._batch_size
            if self._init_size < self.n_clusters:
                self._init_size = 3 * self.n_clusters
        elif self._init_size < self.n_clusters:
            warnings.warn(f"init_size={self._init_size} should be larger than n_clusters={self.n_clusters}. "
                          "Setting it to min(3*n_clusters, n_samples)", RuntimeWarning, stacklevel=3)  # fmt: skip
            self._init_size = 3 * self.n_clusters
        self._init_size = min(self._init_size, X.shape[0])

    def _init_minibatch_centroids(self, X: Any, init: Any, random_state: Any, init_size: int | None,
                                  sample_weight: Any, xp: types.ModuleType) -> Any:  # fmt: skip
        """scikit-learn's ``_init_centroids`` (on a random subset of ``init_size`` rows), the same draws."""
        n_samples = X.shape[0]
        if init_size is not None and init_size < n_samples:
            rows = _device.to_device(random_state.randint(0, n_samples, init_size), xp)
            X, sample_weight = X[rows], sample_weight[rows]
            n_samples = X.shape[0]
        if isinstance(init, str) and init == "k-means++":
            return _kmeans_plusplus(X, (X * X).sum(axis=1), self.n_clusters, sample_weight, random_state, xp)
        if isinstance(init, str) and init == "random":
            w = _device.to_host(sample_weight)  # init_size weights: RandomState.choice needs them on the host
            seeds = random_state.choice(n_samples, size=self.n_clusters, replace=False, p=w / w.sum())
            return X[_device.to_device(seeds, xp)]
        if callable(init):
            centers = init(_device.to_host(X) if xp is not np else X, self.n_clusters, random_state=random_state)
            centers, _ = check_input(centers, dtype=X.dtype, xp=xp)
            self._validate_center_shape(X, centers)
            return centers
        return init

    def _random_reassign(self) -> bool:
        """scikit-learn's rule: reassign after every ``10 * n_clusters`` samples, or while a cluster is empty."""
        self._n_since_last_reassign += self._batch_size
        if self._n_since_last_reassign >= 10 * self.n_clusters or bool((self._counts == 0).any()):  # one read
            self._n_since_last_reassign = 0
            return True
        return False

    def _step(self, Xb: Any, wb: Any, centers: Any, random_state: Any,
              xp: types.ModuleType) -> tuple[Any, Any, float | None]:  # fmt: skip
        """One mini-batch step (scikit-learn's ``_mini_batch_step``): the new centers, the batch inertia (a device
        scalar, before the update) and, when a reassignment was due, that inertia read along with the count of
        centers to reassign (one transfer for both; else None). Updates ``self._counts``."""
        k = centers.shape[0]
        reassign = self._random_reassign()  # scikit-learn decides before the step, on the counts before it
        labels, closest = _labels_inertia(Xb, centers, None, xp, want="closest")
        inertia = closest.astype(xp.float64) @ wb.astype(xp.float64)
        sums, weights = _weighted_sums(Xb, wb, labels, k, xp)
        counts = self._counts + weights
        hit = weights > 0
        scale = 1 / xp.where(hit, counts, 1)
        new_centers = xp.where(hit[:, None], (centers * self._counts[:, None] + sums) * scale[:, None], centers)
        self._counts = xp.where(hit, counts, self._counts)
        host_inertia = None
        if reassign and self.reassignment_ratio > 0:
            to_reassign = self._counts < self.reassignment_ratio * self._counts.max()
            n_batch = Xb.shape[0]
            # one small read: the count of centers the host draws rows for, and the batch inertia with it
            read = _device.to_host(xp.stack([to_reassign.sum().astype(xp.float64), inertia]))
            n_reassigns, host_inertia = int(read[0]), float(read[1])
            if n_reassigns > 0.5 * n_batch:  # scikit-learn's cap: only the int(0.5 * n_batch) smallest counts
                n_reassigns = int(0.5 * n_batch)  # (all below the threshold, since more than that many are)
                to_reassign[xp.argsort(self._counts)[n_reassigns:]] = False
            if n_reassigns:
                rows = random_state.choice(n_batch, replace=False, size=n_reassigns)
                targets = xp.flatnonzero(to_reassign)
                new_centers[targets] = Xb[_device.to_device(rows, xp)]
                self._counts[targets] = self._counts[~to_reassign].min()
        return new_centers, inertia, host_inertia

    def _converged(self, step: int, n_samples: int, centers_squared_diff: float, batch_inertia: float) -> bool:
        """scikit-learn's early stopping (``_mini_batch_convergence``) on the exponentially weighted inertia."""
        batch_inertia /= self._batch_size
        if step + 1 == 1:
            return False
        if self._ewa_inertia is None:
            self._ewa_inertia = batch_inertia
        else:
            alpha = min(self._batch_size * 2.0 / (n_samples + 1), 1)
            self._ewa_inertia = self._ewa_inertia * (1 - alpha) + batch_inertia * alpha
        if self._tol > 0.0 and centers_squared_diff <= self._tol:
            return True
        if self._ewa_inertia_min is None or self._ewa_inertia < self._ewa_inertia_min:
            self._no_improvement = 0
            self._ewa_inertia_min = self._ewa_inertia
        else:
            self._no_improvement += 1
        return self.max_no_improvement is not None and self._no_improvement >= self.max_no_improvement

    # ------------------------------------------------------------------ fit, partial_fit

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Compute the centroids on X by chunking it into mini-batches."""
        X_given = X
        X, xp = validate_data(self, X, reset=True, dtype=FLOAT_DTYPES)
        self._check_params_vs_input(X, xp)
        random_state = check_random_state(self.random_state)
        sample_weight = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp)
        n_samples = X.shape[0]
        init = self._checked_init(X, xp)
        valid = _device.to_device(random_state.randint(0, n_samples, self._init_size), xp)
        X_valid, w_valid = X[valid], sample_weight[valid]
        best_inertia = None
        for _ in range(self._n_init):
            centers = self._init_minibatch_centroids(X, init, random_state, self._init_size, sample_weight, xp)
            _, inertia = _labels_inertia(X_valid, centers, w_valid, xp, want="inertia")
            inertia = float(inertia)  # one scalar read per initialization: the best one is kept
            if best_inertia is None or inertia < best_inertia:
                init_centers, best_inertia = centers, inertia
        centers = xp.array(init_centers, dtype=X.dtype)
        self._counts = xp.zeros(self.n_clusters, dtype=X.dtype)
        self._ewa_inertia = self._ewa_inertia_min = None
        self._no_improvement = 0
        self._n_since_last_reassign = 0
        sum_of_weights = float(sample_weight.sum())  # one scalar read: a host number in the stopping rule
        n_steps = (self.max_iter * n_samples) // self._batch_size
        # RandomState.choice(p=w / sum w): the CDF of the normalized weights, as NumPy builds it
        cdf = xp.cumsum((sample_weight / sample_weight.dtype.type(sum_of_weights)).astype(xp.float64))
        cdf /= cdf[-1]
        unit = xp.ones(self._batch_size, dtype=X.dtype)
        watch = self.max_no_improvement is not None or self._tol > 0.0  # early stopping reads each step's inertia
        inertias = []
        for i in range(n_steps):  # a loop over steps
            rows = _choice_index(cdf, random_state.random_sample(self._batch_size), xp)
            new_centers, batch_inertia, host_inertia = self._step(X[rows], unit, centers, random_state, xp)
            diff = float(((new_centers - centers) ** 2).sum()) if self._tol > 0.0 else 0  # one scalar read
            centers = new_centers
            if watch:
                if host_inertia is None:
                    host_inertia = float(batch_inertia)  # one scalar read: the stopping rule needs it
                if self._converged(i, n_samples, diff, host_inertia):
                    break
            else:
                inertias.append(batch_inertia)
        if inertias:  # the stopping rule's running average, replayed once on the host (it cannot stop the loop)
            for step, value in enumerate(_device.to_host(xp.stack(inertias)).tolist()):
                self._converged(step, n_samples, 0, value)
        self.cluster_centers_ = centers
        self._n_features_out = self.cluster_centers_.shape[0]
        self.n_steps_ = i + 1
        self.n_iter_ = int(np.ceil(((i + 1) * self._batch_size) / n_samples))
        if self.compute_labels:
            self.labels_, inertia = _labels_inertia(X, centers, sample_weight, xp, want="inertia")
            self.inertia_ = float(inertia)  # one scalar read: inertia_ is a float
        else:
            self.inertia_ = self._ewa_inertia * sum_of_weights
        return self._publish(X_given)

    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y=None, sample_weight=None):
        """Update the k-means estimate on a single mini-batch X."""
        X_given = X
        has_centers = hasattr(self, "cluster_centers_")
        X, xp = validate_data(self, X, reset=not has_centers, dtype=FLOAT_DTYPES)
        self._random_state = getattr(self, "_random_state", check_random_state(self.random_state))
        sample_weight = check_sample_weight(sample_weight, X.shape[0], X.dtype, xp)
        self.n_steps_ = getattr(self, "n_steps_", 0)
        if not has_centers:
            self._check_params_vs_input(X, xp)
            centers = self._init_minibatch_centroids(X, self._checked_init(X, xp), self._random_state, self._init_size,
                                                     sample_weight, xp)  # fmt: skip
            self._counts = xp.zeros(self.n_clusters, dtype=X.dtype)
            self._n_since_last_reassign = 0
        else:
            centers = self._fitted("cluster_centers_", xp).astype(X.dtype)
            self._counts = _device.to_device(self._counts, xp)
        centers, _, _ = self._step(X, sample_weight, centers, self._random_state, xp)
        self.cluster_centers_ = centers
        if self.compute_labels:
            self.labels_, inertia = _labels_inertia(X, centers, sample_weight, xp, want="inertia")
            self.inertia_ = float(inertia)  # one scalar read: inertia_ is a float
        self.n_steps_ += 1
        self._n_features_out = self.cluster_centers_.shape[0]
        return self._publish(X_given)
