"""Global options: ``set_option``, ``get_option`` and ``option_context``.

The options are few on purpose; each is read where it matters (``device`` by
:mod:`riptide._device`, the ``display.*`` options by the repr code).

>>> import riptide as rt
>>> rt.get_option("display.max_rows")
60
>>> with rt.option_context("display.max_rows", 10):
...     rt.get_option("display.max_rows")
10
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["get_option", "set_option", "option_context", "describe_options"]


def _validate_device(value: Any) -> str:
    if value not in ("auto", "gpu", "cpu"):
        raise ValueError(f"option 'device' must be one of 'auto', 'gpu', 'cpu', got {value!r}")
    return value


def _validate_optional_bytes(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or value <= 0:
        raise ValueError(f"option 'memory_limit' must be a positive number of bytes or None, got {value!r}")
    return value


def _validate_display_limit(value: Any) -> int | None:
    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise ValueError(f"display options take a positive int or None (no limit), got {value!r}")
    return value


# name -> (default, validator, description)
_REGISTRY: dict[str, tuple[Any, Callable[[Any], Any], str]] = {
    "device": (
        os.environ.get("RIPTIDE_DEVICE", "auto"),
        _validate_device,
        "'gpu' (CuPy), 'cpu' (NumPy) or 'auto' (the GPU when CuPy finds one). Env: RIPTIDE_DEVICE.",
    ),
    "memory_limit": (
        None,
        _validate_optional_bytes,
        "Upper bound in bytes for CuPy's device memory pool (None: no limit). Env: RIPTIDE_MEMORY_LIMIT.",
    ),
    # The display options are pandas' (same names, defaults and meaning); the other pandas display options
    # (precision, max_colwidth, ...) apply as set in pandas, since pandas formats the rows shown.
    "display.max_rows": (60, _validate_display_limit, "Rows shown by repr before it truncates (None: all)."),
    "display.min_rows": (10, _validate_display_limit, "Rows shown by a truncated repr (None: max_rows)."),
    "display.max_columns": (20, _validate_display_limit, "Columns shown by repr before it elides some (None: all)."),
    "display.width": (80, _validate_display_limit,
                      "Characters per line; wider frames wrap into blocks (None: the terminal's width, if any)."),
}

if os.environ.get("RIPTIDE_MEMORY_LIMIT"):
    _REGISTRY["memory_limit"] = (int(os.environ["RIPTIDE_MEMORY_LIMIT"]),) + _REGISTRY["memory_limit"][1:]

_values: dict[str, Any] = {name: _REGISTRY[name][1](spec[0]) for name, spec in _REGISTRY.items()}
_listeners: dict[str, list[Callable[[Any], None]]] = {}


def _check_name(name: str) -> None:
    if name not in _REGISTRY:
        valid = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"no option named {name!r}; valid options: {valid}")


def get_option(name: str) -> Any:
    """Return the current value of option ``name``."""
    _check_name(name)
    return _values[name]


def set_option(name: str, value: Any) -> None:
    """Set option ``name``; the value is validated first, so a bad value changes nothing."""
    _check_name(name)
    value = _REGISTRY[name][1](value)
    _values[name] = value
    for listener in _listeners.get(name, ()):
        listener(value)


@contextlib.contextmanager
def option_context(name: str, value: Any) -> Iterator[None]:
    """Set an option inside a ``with`` block and restore it afterwards."""
    old = get_option(name)
    set_option(name, value)
    try:
        yield
    finally:
        set_option(name, old)


def on_change(name: str, listener: Callable[[Any], None]) -> None:
    """Call ``listener(value)`` whenever option ``name`` is set (used by _device)."""
    _check_name(name)
    _listeners.setdefault(name, []).append(listener)


def describe_options() -> str:
    """One line per option: name, current value, meaning."""
    return "\n".join(f"{name} = {_values[name]!r}: {spec[2]}" for name, spec in _REGISTRY.items())
