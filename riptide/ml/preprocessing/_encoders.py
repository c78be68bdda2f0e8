"""OneHotEncoder and OrdinalEncoder: categories found and rows encoded on the device.

Both classes *are* scikit-learn's (subclasses), so parameter validation, the ``drop`` rules, the infrequent
category grouping (``min_frequency`` / ``max_categories``), ``get_feature_names_out`` and ``inverse_transform``
are scikit-learn's own code. Those steps only look at the fitted categories and their counts (a few numbers per
category). What touches every row is replaced here by device code:

* **fit**: each column's distinct values and their counts. A numeric column is ``unique`` + ``searchsorted``
  (NaN is a category of its own, placed last, as in scikit-learn). A string or categorical column of a riptide
  DataFrame is factorized on the device (:func:`riptide.core.kernels.factorize.factorize`); only its distinct
  values (one per category) are read back, to be sorted the way scikit-learn sorts them (Python's ``str`` order)
  and stored in ``categories_``. A missing string is the category ``nan``, placed last, as scikit-learn does with
  the pandas form of the same frame.
* **transform**: each column's codes against the fitted categories (``searchsorted`` for numbers; for strings the
  column is factorized and its few distinct values are looked up on the host, then the table is gathered on the
  device), then the one-hot matrix is scattered directly (dense) or built as CSR arrays (``sparse_output``):
  ``scipy.sparse`` for host output, ``cupyx.scipy.sparse`` for device output.

``categories_`` is a list of small NumPy arrays wherever the data lives (scikit-learn's helpers read it).

**Host path.** Input that the device cannot encode column by column (a pandas or NumPy object/string array, a
mixed-type pandas frame, a list, a riptide column of nullable integers or datetimes) goes through scikit-learn's
own code on the host, and the result is moved to where the output belongs. Inputs that scikit-learn rejects (1-D,
no samples, infinities) take that path too, so the exception is scikit-learn's.

``inverse_transform`` runs on the host (its output is usually an object array).
"""

from __future__ import annotations

import types
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn import preprocessing as _skp
from sklearn.utils._set_output import _get_output_config
from sklearn.utils.validation import _check_feature_names, _check_n_features, check_is_fitted

from riptide import _device
from riptide.ml._base import DeviceEstimatorMixin
from riptide.ml._validation import host_form, input_namespace

__all__ = ["OneHotEncoder", "OrdinalEncoder"]


# --------------------------------------------------------------------------- per-column device encoding


class _Col:
    """One input column on the device: ``kind`` is 'num' (an xp array of numbers) or 'str' (a riptide string or
    categorical column)."""

    __slots__ = ("data", "kind")

    def __init__(self, kind: str, data: Any):
        self.kind, self.data = kind, data


def _device_columns(X: Any) -> tuple[list[_Col], Any, types.ModuleType] | None:
    """The columns of X for the device path, the feature-name proxy, and the namespace; None for the host path."""
    from riptide.core import dtypes
    from riptide.core.column import CategoricalColumn, NumericColumn, StringColumn
    from riptide.frame import DataFrame

    ns = input_namespace(X)
    if isinstance(X, DataFrame):
        cols = []
        for column in X._data.values():
            if isinstance(column, NumericColumn) and not dtypes.is_masked(column.dtype) \
                    and not dtypes.is_datetimelike(column.dtype) and column.data.dtype.kind in "biuf":  # fmt: skip
                cols.append(_Col("num", column.data))
            elif isinstance(column, StringColumn) or isinstance(column, CategoricalColumn) and isinstance(column.categories, StringColumn):
                cols.append(_Col("str", column))
            else:
                return None
        if not cols or len(X) == 0:
            return None
        return cols, pd.DataFrame(columns=X.columns), ns
    if ns is not None:  # a CuPy array
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0 or X.dtype.kind not in "biuf":
            return None
        return [_Col("num", X[:, j]) for j in range(X.shape[1])], None, ns
    xp = _device.xp()
    if isinstance(X, np.ndarray):
        if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0 or X.dtype.kind not in "biuf":
            return None
        A = _device.to_device(X, xp)
        return [_Col("num", A[:, j]) for j in range(A.shape[1])], X, xp
    if isinstance(X, pd.DataFrame):
        if X.shape[0] == 0 or X.shape[1] == 0:
            return None
        if not all(isinstance(d, np.dtype) and d.kind in "biuf" for d in X.dtypes):
            return None
        return [_Col("num", _device.to_device(X.iloc[:, j].to_numpy(), xp)) for j in range(X.shape[1])], X, xp
    return None


def _has_inf(cols: list[_Col], xp: types.ModuleType) -> bool:
    flags = [xp.isinf(c.data).any() for c in cols if c.kind == "num" and c.data.dtype.kind == "f"]
    return bool(xp.stack(flags).any()) if flags else False  # one scalar read: scikit-learn rejects infinities


def _string_codes(column: Any) -> tuple[Any, list]:
    """Codes (-1 for missing) of a riptide string/categorical column and the value of each code (host list)."""
    from riptide.core.column import CategoricalColumn
    from riptide.core.kernels.factorize import factorize
    from riptide.core.ops.grouping import first_row_of_each

    xp = column.xp
    if isinstance(column, CategoricalColumn):
        codes = column.codes.astype(np.int64)
        codes = xp.where(column.isna(), -1, codes)
        return codes, column.categories.to_arrow().to_pylist()
    codes, n = factorize(column)
    first = first_row_of_each(codes, n, xp)
    return codes, column.take(first).to_arrow().to_pylist() if n else []


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and value != value


def _fit_column(col: _Col, xp: types.ModuleType) -> tuple[np.ndarray, Any]:
    """Sorted categories of a column (host array, NaN last) and each row's category number (device)."""
    if col.kind == "num":
        a = col.data
        if a.dtype.kind == "f":
            nan = xp.isnan(a)
            uniques = xp.unique(a[~nan])
            codes = xp.searchsorted(uniques, a).astype(np.int64)
            if bool(nan.any()):  # one scalar read: is NaN a category?
                codes = xp.where(nan, uniques.shape[0], codes)
                uniques = xp.concatenate([uniques, xp.asarray([np.nan], dtype=a.dtype)])
        else:
            uniques = xp.unique(a)
            codes = xp.searchsorted(uniques, a).astype(np.int64)
        return _device.to_host(uniques), codes
    codes, values = _string_codes(col.data)
    n_values = len(values)
    seen = xp.zeros(n_values + 1, dtype=np.int64)
    seen[xp.where(codes < 0, n_values, codes)] = 1
    seen = _device.to_host(seen).astype(bool)  # one read of a flag per distinct value: which ones occur
    present = [v for v, s in zip(values, seen[:n_values], strict=True) if s]
    order = sorted(range(len(present)), key=lambda i: present[i])
    rank = {present[i]: r for r, i in enumerate(order)}
    table = np.array([rank.get(v, -1) for v in values] + [len(present)], dtype=np.int64)
    categories = [present[i] for i in order] + ([np.nan] if seen[n_values] else [])
    cats = np.empty(len(categories), dtype=object)
    cats[:] = categories
    return cats, _device.to_device(table, xp)[xp.where(codes < 0, n_values, codes)]


def _compatible(col: _Col, cats: np.ndarray) -> bool:
    return (cats.dtype.kind in "biuf") == (col.kind == "num")


def _encode_column(col: _Col, cats: np.ndarray, xp: types.ModuleType) -> Any:
    """Category number of each row against fitted categories ``cats``; -1 for a value not among them."""
    if col.kind == "num":
        a = col.data
        has_nan = cats.size > 0 and cats.dtype.kind == "f" and np.isnan(cats[-1])
        known = cats[:-1] if has_nan else cats
        k = known.shape[0]
        if k:
            u = _device.to_device(np.ascontiguousarray(known), xp)
            pos = xp.minimum(xp.searchsorted(u, a), k - 1)
            codes = xp.where(u[pos] == a, pos, -1).astype(np.int64)
        else:
            codes = xp.full(a.shape[0], -1, dtype=np.int64)
        if a.dtype.kind == "f":
            codes = xp.where(xp.isnan(a), k if has_nan else -1, codes)
        return codes
    codes, values = _string_codes(col.data)
    position = {}
    for i, c in enumerate(cats):
        position[("nan",) if _is_nan(c) or c is None else c] = i
    table = np.array([position.get(v, -1) for v in values] + [position.get(("nan",), -1)], dtype=np.int64)
    return _device.to_device(table, xp)[xp.where(codes < 0, len(values), codes)]


def _unknown_values(col: _Col, valid: Any, xp: types.ModuleType) -> list:
    """The distinct values of the rows not ``valid`` (for the error message), as scikit-learn lists them."""
    if col.kind == "num":
        return list(_device.to_host(xp.unique(col.data[~valid])))
    codes, values = _string_codes(col.data)
    bad = _device.to_host(xp.unique(codes[~valid]))
    return [values[c] if c >= 0 else None for c in bad]


def _check_user_categories(categories: Any, cols: list[_Col]) -> list[np.ndarray]:
    """scikit-learn's checks of ``categories=[...]``, with the categories as host arrays."""
    out = []
    for i, col in enumerate(cols):
        dtype = col.data.dtype if col.kind == "num" else object
        cats = np.array(categories[i], dtype=dtype)
        for category in cats[:-1]:
            if _is_nan(category) or (isinstance(category, np.floating) and np.isnan(category)):
                raise ValueError(f"Nan should be the last element in user provided categories, see categories "
                                 f"{cats} in column #{i}")  # fmt: skip
        if col.kind == "num":
            distinct = np.unique(cats)
            n_distinct = distinct.size - max(0, int(np.isnan(distinct).sum()) - 1) if cats.dtype.kind == "f" \
                else distinct.size  # fmt: skip
        else:
            n_distinct = len({("nan",) if _is_nan(c) else c for c in cats})
        if cats.size != n_distinct:
            raise ValueError(f"In column {i}, the predefined categories contain duplicate elements.")
        if col.kind == "num":
            sorted_cats = np.sort(cats)
            stop = -1 if sorted_cats.dtype.kind == "f" and np.isnan(sorted_cats[-1]) else None
            if np.any(sorted_cats[:stop] != cats[:stop]):
                raise ValueError("Unsorted categories are not supported for numerical categories")
        out.append(cats)
    return out


def _to_output_namespace(result: Any, X: Any) -> Any:
    """A host-path result (NumPy or SciPy sparse) moved to where X's output belongs."""
    xp = input_namespace(X)
    if xp is None or xp is np:
        return result
    import scipy.sparse as sp

    if sp.issparse(result):
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix(result)
    return _device.to_device(result, xp) if result.dtype != object else result


class _DeviceEncoderMixin(DeviceEstimatorMixin):
    """``_fit`` and ``_transform`` of scikit-learn's ``_BaseEncoder`` on the device."""

    def _fit(self, X, handle_unknown="error", ensure_all_finite=True, return_counts=False,
             return_and_ignore_missing_for_infrequent=False):  # fmt: skip
        found = _device_columns(X)
        if found is not None and _has_inf(found[0], found[2]):
            found = None
        if found is None:
            return super()._fit(host_form(X), handle_unknown=handle_unknown, ensure_all_finite=ensure_all_finite,
                                return_counts=return_counts,
                                return_and_ignore_missing_for_infrequent=return_and_ignore_missing_for_infrequent)
        cols, names, xp = found
        self._check_infrequent_enabled()
        _check_feature_names(self, names, reset=True)
        n_features = len(cols)
        n_samples = int(cols[0].data.shape[0]) if cols[0].kind == "num" else cols[0].data.size
        _check_n_features(self, np.empty((0, n_features)), reset=True)
        if not (isinstance(self.categories, str) and self.categories == "auto"):
            if len(self.categories) != n_features:
                raise ValueError("Shape mismatch: if categories is an array, it has to be of shape (n_features,).")
            user = _check_user_categories(self.categories, cols)
        else:
            user = None
        compute_counts = return_counts or self._infrequent_enabled
        self.categories_, category_counts = [], []
        for i, col in enumerate(cols):
            if user is None:
                cats, codes = _fit_column(col, xp)
                valid = None
            else:
                cats = user[i]
                codes = _encode_column(col, cats, xp)
                valid = codes >= 0
                if handle_unknown == "error" and not bool(valid.all()):  # one scalar read: unknown values?
                    diff = _unknown_values(col, valid, xp)
                    raise ValueError(f"Found unknown categories {diff} in column {i} during fit")
            if compute_counts:
                counts = xp.zeros(cats.shape[0] + 1, dtype=np.int64)
                counts += xp.bincount(xp.where(codes < 0, cats.shape[0], codes), minlength=cats.shape[0] + 1)
                category_counts.append(_device.to_host(counts[:-1]))
            self.categories_.append(cats)
        output: dict = {"n_samples": n_samples}
        if return_counts:
            output["category_counts"] = category_counts
        missing_indices = {}
        if return_and_ignore_missing_for_infrequent:
            for feature_idx, cats in enumerate(self.categories_):
                if cats.size and _is_nan_value(cats[-1]):
                    missing_indices[feature_idx] = cats.size - 1
            output["missing_indices"] = missing_indices
        if self._infrequent_enabled:
            self._fit_infrequent_category_mapping(n_samples, category_counts, missing_indices)
        return output

    def _device_transform(self, X, handle_unknown="error", warn_on_unknown=False, ignore_category_indices=None):
        """``(X_int, X_mask, xp)`` on the device, or None when X takes the host path."""
        found = _device_columns(X)
        if found is None or _has_inf(found[0], found[2]):
            return None
        cols, names, xp = found
        if len(cols) != len(self.categories_) or not all(
                _compatible(c, cats) for c, cats in zip(cols, self.categories_, strict=True)):  # fmt: skip
            return None  # scikit-learn reports the mismatch
        _check_feature_names(self, names, reset=False)
        _check_n_features(self, np.empty((0, len(cols))), reset=False)
        ints, masks, with_unknown = [], [], []
        for i, (col, cats) in enumerate(zip(cols, self.categories_, strict=True)):
            codes = _encode_column(col, cats, xp)
            valid = codes >= 0
            if not bool(valid.all()):  # one scalar read per column: any unknown value?
                if handle_unknown == "error":
                    diff = _unknown_values(col, valid, xp)
                    raise ValueError(f"Found unknown categories {diff} in column {i} during transform")
                if warn_on_unknown:
                    with_unknown.append(i)
            ints.append(xp.where(valid, codes, 0))
            masks.append(valid)
        if with_unknown:
            if handle_unknown == "infrequent_if_exist":
                msg = (f"Found unknown categories in columns {with_unknown} during transform. These unknown "
                       "categories will be encoded as the infrequent category.")  # fmt: skip
            else:
                msg = (f"Found unknown categories in columns {with_unknown} during transform. These unknown "
                       "categories will be encoded as all zeros")  # fmt: skip
            warnings.warn(msg, UserWarning)
        if self._infrequent_enabled:
            ignore = ignore_category_indices or {}
            for i in range(len(cols)):
                infrequent = self._infrequent_indices[i]
                if infrequent is not None:
                    ints[i] = xp.where(masks[i], ints[i], int(infrequent[0]))
                    if self.handle_unknown in ("infrequent_if_exist", "warn"):
                        masks[i] = xp.ones_like(masks[i])
                mapping = self._default_to_infrequent_mappings[i]
                if mapping is not None:
                    table = _device.to_device(np.asarray(mapping, dtype=np.int64), xp)
                    if i in ignore:  # the missing-value category keeps its number (it may lie past the table)
                        update = ints[i] != ignore[i]
                        ints[i] = xp.where(update, table[xp.where(update, ints[i], 0)], ints[i])
                    else:
                        ints[i] = table[ints[i]]
        return xp.stack(ints, axis=1), xp.stack(masks, axis=1), xp

    def inverse_transform(self, X):
        """Back to the original categories (on the host: the result is usually an object array)."""
        X = host_form(X)
        if hasattr(X, "get"):  # a CuPy sparse matrix
            X = _device.sparse_to_host(X)
        return super().inverse_transform(X)


def _is_nan_value(value: Any) -> bool:
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return False


class OneHotEncoder(_DeviceEncoderMixin, _skp.OneHotEncoder):
    """Encode categorical features as a one-hot numeric array (``sklearn.preprocessing.OneHotEncoder``).

    Parameters, attributes and behaviour are scikit-learn's; see the module docstring for where the work runs.
    ``sparse_output=True`` gives a SciPy CSR matrix for host output and a ``cupyx.scipy.sparse`` CSR matrix for
    device output.

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import OneHotEncoder
    >>> enc = OneHotEncoder(sparse_output=False).fit(np.array([[1, 10], [2, 10], [1, 20]]))
    >>> [c.tolist() for c in enc.categories_]
    [[1, 2], [10, 20]]
    >>> enc.transform(np.array([[2, 20]])).tolist()
    [[0.0, 1.0, 0.0, 1.0]]
    """

    def transform(self, X):
        """One-hot encode X (a CSR matrix when ``sparse_output``)."""
        check_is_fitted(self)
        transform_output = _get_output_config("transform", estimator=self)["dense"]
        if transform_output != "default" and self.sparse_output:
            name = transform_output.capitalize()
            raise ValueError(f"{name} output does not support sparse data. Set sparse_output=False to output "
                             f"{transform_output} dataframes or disable {name} output via"
                             '` ohe.set_output(transform="default").')  # fmt: skip
        if self.handle_unknown == "warn":
            warn_on_unknown, handle_unknown = True, "infrequent_if_exist"
        else:
            warn_on_unknown = self.drop is not None and self.handle_unknown in {"ignore", "infrequent_if_exist"}
            handle_unknown = self.handle_unknown
        found = self._device_transform(X, handle_unknown=handle_unknown, warn_on_unknown=warn_on_unknown)
        if found is None:
            return _to_output_namespace(super().transform(host_form(X)), X)
        X_int, X_mask, xp = found
        n_samples = X_int.shape[0]
        if self._drop_idx_after_grouping is not None:
            to_drop = np.array([len(c) if d is None else d
                                for d, c in zip(self._drop_idx_after_grouping, self.categories_, strict=True)],
                               dtype=np.int64)  # fmt: skip
            to_drop = _device.to_device(to_drop, xp)[None, :]
            X_mask = X_mask & (X_int != to_drop)
            X_int = X_int - (X_int > to_drop)
        offsets = _device.to_device(np.cumsum([0] + list(self._n_features_outs[:-1]), dtype=np.int64), xp)
        columns = X_int + offsets[None, :]
        n_out = int(sum(self._n_features_outs))
        host_out = input_namespace(X) is None
        if self.sparse_output:
            indices = columns[X_mask].astype(np.int32)
            indptr = xp.zeros(n_samples + 1, dtype=np.int32)
            indptr[1:] = xp.cumsum(X_mask.sum(axis=1), dtype=np.int64).astype(np.int32)
            data = xp.ones(indices.shape[0], dtype=self.dtype)
            if host_out or xp is np:
                import scipy.sparse as sp

                return sp.csr_matrix((_device.to_host(data), _device.to_host(indices), _device.to_host(indptr)),
                                     shape=(n_samples, n_out))  # fmt: skip
            import cupyx.scipy.sparse as csp

            return csp.csr_matrix((data, indices, indptr), shape=(n_samples, n_out))
        out = xp.zeros((n_samples, n_out), dtype=self.dtype)
        rows = xp.broadcast_to(xp.arange(n_samples, dtype=np.int64)[:, None], X_int.shape)
        out[rows[X_mask], columns[X_mask]] = 1
        return self._output(out, X)


class OrdinalEncoder(_DeviceEncoderMixin, _skp.OrdinalEncoder):
    """Encode categorical features as an integer array (``sklearn.preprocessing.OrdinalEncoder``).

    Parameters (``unknown_value``, ``encoded_missing_value``, ``min_frequency``, ``max_categories``, ...),
    attributes and behaviour are scikit-learn's; see the module docstring for where the work runs.

    Examples
    --------
    >>> import numpy as np
    >>> from riptide.ml.preprocessing import OrdinalEncoder
    >>> enc = OrdinalEncoder().fit(np.array([[3.0], [1.0], [np.nan]]))
    >>> enc.transform(np.array([[1.0], [3.0], [np.nan]])).ravel().tolist()
    [0.0, 1.0, nan]
    """

    def transform(self, X):
        """Ordinal codes of X (``encoded_missing_value`` for missing, ``unknown_value`` for unknown values)."""
        check_is_fitted(self, "categories_")
        found = self._device_transform(X, handle_unknown=self.handle_unknown,
                                       ignore_category_indices=self._missing_indices)  # fmt: skip
        if found is None:
            return _to_output_namespace(super().transform(host_form(X)), X)
        X_int, X_mask, xp = found
        out = X_int.astype(self.dtype)
        for cat_idx, missing_idx in self._missing_indices.items():
            missing = X_int[:, cat_idx] == missing_idx
            fill = xp.asarray(self.encoded_missing_value).astype(out.dtype)
            out[:, cat_idx] = xp.where(missing, fill, out[:, cat_idx])
        if self.handle_unknown == "use_encoded_value":
            out = xp.where(X_mask, out, xp.asarray(self.unknown_value).astype(out.dtype))
        return self._output(out, X)
