"""ColumnTransformer for riptide DataFrames and device arrays (``sklearn.compose.ColumnTransformer``, a subclass).

scikit-learn's ColumnTransformer cannot read a riptide DataFrame: its ``_check_X`` lets through only objects with
``__array__``, sparse matrices and the dataframes narwhals knows (pandas, polars, pyarrow, modin, cuDF, or an
object with ``__narwhals_dataframe__``), so a riptide frame is handed to ``check_array``, which reads it as a
1-D list of column labels ("Expected 2D array, got 1D array instead"); past that, column names are looked up
through narwhals (``_get_column_indices``, ``_get_feature_names``) and columns selected with ``_safe_indexing``,
which accepts string keys for narwhals frames only. Its ``_hstack`` is ``np.hstack`` / ``scipy.sparse.hstack``,
which cannot stack CuPy arrays or ``cupyx`` sparse matrices, and its sparse-output decision counts SciPy
matrices only.

This subclass keeps scikit-learn's class (parameters, validation, ``transformers_``, ``named_transformers_``,
``output_indices_``, ``get_feature_names_out``, ``verbose_feature_names_out``, ``set_output``, metadata routing
are its own code) and replaces only what touches the rows when X is *device-resident* (a riptide DataFrame, on
the GPU or the CPU, or a 2-D CuPy array); NumPy, pandas, polars and sparse input take scikit-learn's own path
unchanged.

* **Column names and selectors.** ``n_features_in_`` / ``feature_names_in_`` and the selector resolution (names,
  positions, booleans, slices, callables, ``make_column_selector``) are scikit-learn's, run on a zero-row pandas
  frame with the riptide frame's labels (no data). Callables are called with the riptide frame itself.
* **Selection on the device.** Each transformer receives ``X[labels]``: a riptide DataFrame sharing the
  selected columns (no copy), or a riptide Series for a scalar selector, as scikit-learn hands a pandas Series.
  At ``transform``, a frame is selected by the names seen in ``fit`` (extra or reordered columns are fine), as
  scikit-learn does for dataframes. A transformer that cannot read riptide objects (scikit-learn's or another
  library's, or a Pipeline starting with one) receives the pandas form of its columns, which is what it would
  get from the pandas frame.
* **Stacking.** Outputs that are all on the host are stacked by scikit-learn (so a riptide frame on the CPU gives
  scikit-learn's NumPy / SciPy result). Device outputs are stacked on the device: ``xp.hstack``, or CSR with
  ``cupyx.scipy.sparse.hstack`` when the sparse-output rule (density of every output, SciPy and ``cupyx``
  matrices alike, against ``sparse_threshold``) says so. Columns of text passed through cannot be a device
  array: then the result is scikit-learn's object array on the host. Numbers of several dtypes passed through
  (ints, bools beside floats) are stacked on the device in their common dtype (float64), where scikit-learn's
  pandas path gives an object array of the same values.
* ``n_jobs`` runs the transformers in threads for device input (the data stays in this process and on its
  device, instead of being pickled to worker processes).

>>> import numpy as np
>>> import riptide as rt
>>> from riptide.ml.preprocessing import OneHotEncoder, StandardScaler
>>> frame = rt.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.5, 0.5, 1.5], "city": ["x", "y", "x"]})
>>> ct = ColumnTransformer([("num", StandardScaler(), ["a"]), ("cat", OneHotEncoder(), ["city"])],
...                        remainder="passthrough", sparse_threshold=0)
>>> ct.fit_transform(frame).shape
(3, 4)
>>> ct.get_feature_names_out().tolist()
['num__a', 'cat__city_x', 'cat__city_y', 'remainder__b']
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
import pandas as pd
from sklearn import compose as _skc
from sklearn.base import _fit_context, clone
from sklearn.pipeline import Pipeline, _fit_transform_one, _transform_one
from sklearn import preprocessing as _skp
from sklearn.utils._indexing import _determine_key_type, _get_column_indices
from sklearn.utils._set_output import _get_container_adapter, _get_output_config, _wrap_method_output
from sklearn.utils.metadata_routing import _raise_for_params, process_routing
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted, validate_data

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import _as_array, _riptide_types, host_form, input_namespace

__all__ = ["ColumnTransformer", "make_column_selector", "make_column_transformer"]

make_column_selector = _skc.make_column_selector  # works on riptide frames as it is (iloc, select_dtypes, columns)

# scikit-learn's message for a transformer given 1-D data by a scalar selector
_ONE_D_COLUMN = ("1D data passed to a transformer that expects 2D data. Try to specify the column selection as a "
                 "list of one item instead of a scalar.")  # fmt: skip
_SPARSE_NOT_NUMERIC = "For a sparse output, all columns should be a numeric or convertible to a numeric."

# The code object of scikit-learn's set_output wrapper: a method that has it is scikit-learn's wrapped method, and
# its ``__wrapped__`` the method itself (see ColumnTransformer._sklearn_method).
_OUTPUT_WRAPPER_CODE = _wrap_method_output(lambda self, X: X, "transform").__code__


def _is_frame(X: Any) -> bool:
    return isinstance(X, _riptide_types()[0])


def _is_device_input(X: Any) -> bool:
    """A riptide DataFrame (wherever its columns live) or a 2-D device array: the inputs handled here."""
    return _is_frame(X) or (input_namespace(X) is not None and getattr(X, "ndim", 0) == 2)


def _is_device_sparse(M: Any) -> bool:
    return type(M).__module__.startswith("cupyx.scipy.sparse")


def _is_sparse(M: Any) -> bool:
    import scipy.sparse as sp

    return sp.issparse(M) or _is_device_sparse(M)


def _labels_view(X: Any) -> Any:
    """What scikit-learn's name and count checks are shown of X: a zero-row pandas frame with a riptide frame's
    column labels (no data), a device array as it is (only its shape is read)."""
    return pd.DataFrame(columns=X.columns) if _is_frame(X) else X


def _is_passthrough(step: Any) -> bool:
    return step is None or (isinstance(step, str) and step == "passthrough")


def _reads_riptide(transformer: Any) -> bool:
    """Whether a transformer can be handed riptide objects: riptide's estimators, this ColumnTransformer,
    'passthrough' (and its fitted FunctionTransformer), and a Pipeline whose first step can. Anything else
    (scikit-learn's transformers, a FeatureUnion, whose np.hstack needs host outputs) cannot."""
    if _is_passthrough(transformer):
        return True
    if isinstance(transformer, Pipeline):
        steps = [step for _, step in transformer.steps if not _is_passthrough(step)]
        return not steps or _reads_riptide(steps[0])
    return isinstance(transformer, DeviceEstimatorMixin | ColumnTransformer | FunctionTransformer)


class FunctionTransformer(_skp.FunctionTransformer):
    """The passthrough of a ColumnTransformer fitted on a riptide frame: scikit-learn's (an identity
    FunctionTransformer with one-to-one feature names; same name, so ``transformers_`` shows what scikit-learn's
    shows) that also records the column names of a riptide frame, which scikit-learn's name check cannot read.
    Not exported: 'passthrough' is how it is asked for."""

    def fit(self, X, y=None):
        super().fit(X, y)
        if _is_frame(X):
            _check_feature_names(self, _labels_view(X), reset=True)
        return self


def _host_part(M: Any) -> Any:
    """One transformer output in the form scikit-learn's stacking takes (pandas, NumPy, SciPy)."""
    if _is_device_sparse(M):
        return _device.sparse_to_host(M)
    return host_form(M)


def _device_part(M: Any, xp: types.ModuleType) -> Any:
    """One transformer output as a numeric xp array or ``cupyx`` sparse matrix, or None when it is not numeric
    (text passed through)."""
    if _is_device_sparse(M):
        return M
    if _is_sparse(M):
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(M)
    DataFrame, Series = _riptide_types()
    if isinstance(M, DataFrame):
        return _as_array(M, xp)
    if isinstance(M, pd.DataFrame):
        M = M.to_numpy()
    if input_namespace(M) is None:
        M = np.asarray(M)
        return _device.to_device(M, xp) if M.dtype.kind in "biuf" else None
    return M if M.dtype.kind in "biuf" else None


def _stack_on_device(parts: list, xp: types.ModuleType, sparse_output: bool) -> Any:
    if not sparse_output:
        return xp.hstack([part.toarray() if _is_device_sparse(part) else part for part in parts])
    import cupyx.scipy.sparse as csp

    dtype = np.result_type(*[part.dtype for part in parts])
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float64)  # cupyx's sparse matrices hold floats
    return csp.hstack([part.astype(dtype) if _is_device_sparse(part) else csp.csr_matrix(part.astype(dtype))
                       for part in parts]).tocsr()  # fmt: skip


class ColumnTransformer(_skc.ColumnTransformer):
    """Applies transformers to columns of an array or dataframe (``sklearn.compose.ColumnTransformer``).

    Same parameters, attributes and results as scikit-learn's; also accepts riptide DataFrames (on the GPU or
    the CPU) and CuPy arrays, selecting and stacking columns on the device (see
    :mod:`riptide.ml.compose._column_transformer`).

    Parameters
    ----------
    transformers : list of tuples (name, transformer, columns)
    remainder : {'drop', 'passthrough'} or estimator, default='drop'
    sparse_threshold : float, default=0.3
    n_jobs : int, default=None
    transformer_weights : dict, default=None
    verbose : bool, default=False
    verbose_feature_names_out : bool, str or callable, default=True
    """

    def fit_transform(self, X, y=None, **params):
        """Fit all transformers, transform the data and concatenate the results."""
        if _is_device_input(X):
            return self._fit_transform_device(X, y, **params)
        return self._sklearn_method("fit_transform")(self, X, y, **params)

    def transform(self, X, **params):
        """Transform X separately by each transformer and concatenate the results."""
        if _is_device_input(X):
            return self._transform_device(X, **params)
        return self._sklearn_method("transform")(self, X, **params)

    @staticmethod
    def _sklearn_method(name: str) -> Any:
        """scikit-learn's ``name`` without its set_output wrapper: this class's own method is wrapped already
        (scikit-learn wraps the methods a subclass defines), and wrapping twice would copy the output twice."""
        method = getattr(_skc.ColumnTransformer, name)
        return method.__wrapped__ if getattr(method, "__code__", None) is _OUTPUT_WRAPPER_CODE else method

    # ----------------------------------------------------------------------- device-resident input

    @_fit_context(prefer_skip_nested_validation=False)  # (the transformers are validated by their own fit)
    def _fit_transform_device(self, X, y=None, **params):
        _raise_for_params(params, self, "fit_transform")
        validate_data(self, X=_labels_view(X), skip_check_array=True)  # n_features_in_, feature_names_in_
        self._validate_transformers()
        n_samples = X.shape[0]
        self._validate_column_callables(X)
        self._validate_remainder(X)
        routed_params = process_routing(self, "fit_transform", **params)
        result = self._run_on_columns(X, y, fitting=True, by_name=False, routed_params=routed_params)
        if not result:
            self._update_fitted_transformers([])
            return self._no_columns(X, n_samples)
        Xs, transformers = zip(*result)
        self.sparse_output_ = False
        if any(_is_sparse(M) for M in Xs):
            nnz = sum(M.nnz if _is_sparse(M) else M.shape[0] * M.shape[1] for M in Xs)
            total = sum(M.shape[0] * M.shape[1] for M in Xs)
            self.sparse_output_ = nnz / total < self.sparse_threshold
        self._update_fitted_transformers(transformers)
        self._validate_output(Xs)
        self._record_output_indices(Xs)
        return self._hstack(list(Xs), n_samples=n_samples)

    def _transform_device(self, X, **params):
        _raise_for_params(params, self, "transform")
        check_is_fitted(self)
        by_name = _is_frame(X) and hasattr(self, "feature_names_in_")
        if by_name:  # every column a kept transformer was fitted on must be there; others may be too
            kept = self.named_transformers_
            needed = {self.feature_names_in_[i] for name, positions in self._transformer_to_input_indices.items()
                      if name in kept and kept[name] != "drop" for i in positions}  # fmt: skip
            missing = needed - set(X.columns)
            if missing:
                raise ValueError(f"columns are missing: {missing}")
        else:
            _check_n_features(self, _labels_view(X), reset=False)
        routed_params = process_routing(self, "transform", **params)
        Xs = self._run_on_columns(X, None, fitting=False, by_name=by_name, routed_params=routed_params)
        self._validate_output(Xs)
        if not Xs:
            return self._no_columns(X, X.shape[0])
        return self._hstack(list(Xs), n_samples=X.shape[0])

    @staticmethod
    def _no_columns(X: Any, n_samples: int) -> Any:
        xp = input_namespace(X)
        return xp.zeros((n_samples, 0))

    def _validate_column_callables(self, X):
        """scikit-learn's selector resolution; for a riptide frame, callables see the frame and names are looked
        up in its labels."""
        if not _is_frame(X):
            return super()._validate_column_callables(X)
        labels = _labels_view(X)
        self._columns = [columns(X) if callable(columns) else columns for _, _, columns in self.transformers]
        names = [name for name, _, _ in self.transformers]
        self._transformer_to_input_indices = {name: _get_column_indices(labels, columns)
                                              for name, columns in zip(names, self._columns)}  # fmt: skip

    def _columns_for(self, X: Any, name: str, columns: Any, by_name: bool) -> Any:
        """The columns of X transformer ``name`` works on: a riptide frame (Series for a scalar selector) sharing
        X's columns, or the selected columns of a device array."""
        positions = self._transformer_to_input_indices[name]
        scalar = np.isscalar(columns)
        if _is_frame(X):
            labels = list(self.feature_names_in_[positions]) if by_name else [X.columns[p] for p in positions]
            return X[labels[0]] if scalar else X[labels]
        if _determine_key_type(columns) == "str":  # scikit-learn's rule: names select columns of dataframes only
            raise ValueError("Specifying the columns using strings is only supported for dataframes.")
        return X[:, positions[0]] if scalar else X[:, positions]

    def _run_on_columns(self, X: Any, y: Any, *, fitting: bool, by_name: bool, routed_params: Any) -> list:
        """Each transformer's ``fit_transform`` (with the fitted clone) or ``transform`` on its columns."""
        steps = list(self._iter(fitted=not fitting, column_as_labels=False, skip_drop=True, skip_empty_columns=True))
        dense_output = _get_output_config("transform", self)["dense"]
        jobs = []
        for number, (name, transformer, columns, weight) in enumerate(steps, start=1):
            part, target = self._columns_for(X, name, columns, by_name), y
            if not (_reads_riptide(transformer) and dense_output in ("default", "riptide")):
                part, target = host_form(part), host_form(y)  # what it would be given from the pandas frame
            if not fitting:
                jobs.append(delayed(_transform_one)(transformer=transformer, X=part, y=None, weight=weight,
                                                    params=routed_params[name]))  # fmt: skip
                continue
            if _is_passthrough(transformer):
                transformer = FunctionTransformer(accept_sparse=True, check_inverse=False,
                                                  feature_names_out="one-to-one").set_output(transform=dense_output)
            jobs.append(delayed(_fit_transform_one)(transformer=clone(transformer), X=part, y=target, weight=weight,
                                                    message_clsname="ColumnTransformer",
                                                    message=self._log_message(name, number, len(steps)),
                                                    params=routed_params[name]))  # fmt: skip
        try:
            return Parallel(n_jobs=self.n_jobs, prefer="threads")(jobs)
        except ValueError as exc:
            if "Expected 2D array, got 1D array instead" in str(exc):
                raise ValueError(_ONE_D_COLUMN) from exc
            raise

    def _hstack(self, Xs, *, n_samples):
        """scikit-learn's stacking for host outputs and container outputs (``set_output``); device outputs are
        stacked on the device (see the module docstring)."""
        adapter = _get_container_adapter("transform", self)
        if not self.sparse_output_ and adapter is not None and all(adapter.is_supported_container(M) for M in Xs):
            return super()._hstack(Xs, n_samples=n_samples)
        xp = next((ns for ns in (_output_namespace(M) for M in Xs) if ns is not None and ns is not np), None)
        if xp is not None:
            parts = [_device_part(M, xp) for M in Xs]
            if all(part is not None for part in parts):
                return _stack_on_device(parts, xp, self.sparse_output_)
            if self.sparse_output_:
                raise ValueError(_SPARSE_NOT_NUMERIC)
        return super()._hstack([_host_part(M) for M in Xs], n_samples=n_samples)


def _output_namespace(M: Any) -> types.ModuleType | None:
    if _is_device_sparse(M):
        import cupy

        return cupy
    return input_namespace(M)


def make_column_transformer(*transformers, remainder="drop", sparse_threshold=0.3, n_jobs=None, verbose=False,
                            verbose_feature_names_out=True):  # fmt: skip
    """A :class:`ColumnTransformer` from ``(transformer, columns)`` tuples, named after the transformers' classes
    (``sklearn.compose.make_column_transformer``)."""
    named = _skc.make_column_transformer(*transformers, remainder=remainder, sparse_threshold=sparse_threshold,
                                         n_jobs=n_jobs, verbose=verbose,
                                         verbose_feature_names_out=verbose_feature_names_out)  # fmt: skip
    return ColumnTransformer(**named.get_params(deep=False))
