"""What every riptide estimator shares beyond scikit-learn's ``BaseEstimator``: device-aware state and output.

* **Fitted attributes follow the input, like every other output**: a model fitted on a CuPy array or a riptide
  object on the GPU keeps CuPy attributes; a model fitted on NumPy or pandas shows NumPy attributes (``labels_``,
  ``coef_``), as scikit-learn code expects, even when the work ran on the GPU. :meth:`DeviceEstimatorMixin._publish`
  makes those host copies at the end of ``fit`` and keeps the device arrays aside, so that a later ``predict`` on the
  GPU does not copy them back; :meth:`DeviceEstimatorMixin._fitted` hands an attribute to a later call in that
  call's namespace (a fitted GPU model predicting on a riptide CPU frame copies its few parameters, never the data).
* **Pickles are host-only.** ``__getstate__`` stores every device array as NumPy and remembers which ones were on
  the device; ``__setstate__`` puts them back on the GPU when one is in use, and leaves them as NumPy otherwise,
  so a model fitted on the GPU unpickles on a laptop.
* **Output follows the input** (see :mod:`riptide.ml._validation`): CuPy in, CuPy out; NumPy/pandas in, NumPy out.
  scikit-learn's ``set_output`` still applies on top: ``transform="pandas"``/``"polars"`` build the host
  container from a host copy, and ``transform="riptide"`` (registered here with scikit-learn's container adapters
  when ``riptide.ml`` is imported) returns a riptide DataFrame with the estimator's output feature names and, for
  riptide or pandas input, the input's index. It works for scikit-learn's own transformers too.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as np
from sklearn.utils._set_output import ADAPTERS_MANAGER, _get_output_config, get_columns

from riptide import _device
from riptide.ml._validation import input_namespace, to_output

__all__ = ["DeviceEstimatorMixin"]

_DEVICE_KEY = "_riptide_device_attributes"
_DEVICE_COPIES = "_riptide_device_copies"  # name -> (host attribute, its device original), see _publish


class DeviceEstimatorMixin:
    """Device-aware pickling and output for estimators; put it first among the bases."""

    def __getstate__(self) -> dict:
        state = dict(super().__getstate__())
        state.pop(_DEVICE_COPIES, None)  # a cache of device arrays: rebuilt by the next fit, never pickled
        on_device = [key for key, value in state.items() if _device.is_device_array(value)]
        for key in on_device:
            state[key] = _device.to_host(state[key])
        if on_device:
            state[_DEVICE_KEY] = on_device
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        on_device = state.pop(_DEVICE_KEY, ())
        if on_device and _device.is_gpu():
            for key in on_device:
                state[key] = _device.to_device(state[key])
        super().__setstate__(state)

    def _publish(self, X: Any) -> Any:
        """End of ``fit(X)``: for host input X, every fitted array attribute (``name_``) that lives on the device
        is replaced by its NumPy copy, and the device array is kept aside for :meth:`_fitted`. Returns self.

        >>> from riptide.ml.cluster import KMeans
        >>> type(KMeans(n_clusters=1, n_init=1).fit([[0.0], [2.0]]).cluster_centers_).__module__
        'numpy'
        """
        if input_namespace(X) is not None:
            self.__dict__.pop(_DEVICE_COPIES, None)
            return self
        copies = {}
        for name, value in list(vars(self).items()):
            if name.endswith("_") and not name.startswith("_") and _device.is_device_array(value):
                host = _device.to_host(value)
                if host.ndim == 0:
                    host = host[()]  # a NumPy scalar, as scikit-learn's 0-d results are
                setattr(self, name, host)
                copies[name] = (host, value)
        self.__dict__[_DEVICE_COPIES] = copies
        return self

    def _fitted(self, name: str, xp: types.ModuleType) -> Any:
        """Fitted attribute ``name`` in namespace ``xp`` (a copy only when it lives on the other device)."""
        value = getattr(self, name)
        kept = self.__dict__.get(_DEVICE_COPIES, {}).get(name)
        if kept is not None and kept[0] is value and _device.namespace_of(kept[1]) is xp:
            return kept[1]  # the device original of a published host attribute the user has not replaced
        return value if value is None or np.isscalar(value) else _device.to_device(value, xp)

    def _home_namespace(self, name: str) -> types.ModuleType:
        """Where to compute from fitted attribute ``name`` when no input says where: the namespace of its device
        original when :meth:`_publish` kept one (a host-input fit that ran on the GPU), else its own."""
        value = getattr(self, name)
        kept = self.__dict__.get(_DEVICE_COPIES, {}).get(name)
        if kept is not None and kept[0] is value:
            return _device.namespace_of(kept[1])
        return _device.namespace_of(value)

    def _output(self, result: Any, X: Any, method: str = "transform") -> Any:
        """``result`` in the form the caller of ``method(X)`` expects (see the module docstring)."""
        result = to_output(result, X)
        if method == "transform" and _get_output_config(method, self)["dense"] not in ("default", "riptide"):
            result = _device.to_host(result)  # pandas / polars containers are built on the host
        return result


class _RiptideAdapter:
    """scikit-learn container adapter: ``set_output(transform="riptide")`` returns riptide DataFrames."""

    container_lib = "riptide"

    def create_container(self, X_output: Any, X_original: Any, columns: Any, inplace: bool = False) -> Any:
        import pandas as pd

        from riptide.frame import DataFrame, Series

        columns = get_columns(columns)
        if isinstance(X_output, DataFrame):
            frame = X_output
        else:
            if isinstance(X_original, DataFrame | Series | pd.DataFrame | pd.Series):
                index = X_original.index
            else:
                index = None
            xp = input_namespace(X_output) or np
            array = xp.asarray(X_output)
            frame = DataFrame({j: array[:, j] for j in range(array.shape[1])}, index=index)
        if columns is not None:
            frame = self.rename_columns(frame, columns)
        return frame

    def is_supported_container(self, X: Any) -> bool:
        from riptide.frame import DataFrame

        return isinstance(X, DataFrame)

    def rename_columns(self, X: Any, columns: Any) -> Any:
        X.columns = list(columns)
        return X

    def hstack(self, Xs: list) -> Any:
        import riptide

        return riptide.concat(Xs, axis=1)


if "riptide" not in ADAPTERS_MANAGER.adapters:
    ADAPTERS_MANAGER.register(_RiptideAdapter())
