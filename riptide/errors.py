"""riptide's own warnings (pandas' exceptions are raised as they are: riptide mirrors pandas' error types).

:class:`HostFallbackWarning` says that an operation left the device: riptide computed it on the host (through
pandas or Python) because the device path does not cover that input yet - the answer is still pandas', only slower.
It warns once per operation and reason, so a loop does not flood the output; silence it as any warning::

    import warnings, riptide as rt
    warnings.simplefilter("ignore", rt.errors.HostFallbackWarning)
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

__all__ = ["HostFallbackWarning", "warn_host_fallback", "warn_once", "user_stacklevel"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class HostFallbackWarning(UserWarning):
    """An operation ran on the host (pandas/Python) instead of the device; the result is the same."""


_warned: set[Any] = set()


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning raised by the caller point at the first line outside riptide
    (the user's call), however deep inside riptide the caller is."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn_once(key: Any, message: str, category: type[Warning] = HostFallbackWarning) -> None:
    """Warn ``message`` once per ``key`` (hashable; the host-fallback warnings of every module share one record),
    pointing at the user's line.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(2):
    ...         warn_once(("doctest", "warn_once"), "said once")
    >>> [str(w.message) for w in caught]
    ['said once']
    """
    if key in _warned:
        return
    if len(_warned) > 10_000:  # keys may hold ids of user objects: keep the record bounded
        _warned.clear()
    _warned.add(key)
    warnings.warn(message, category, stacklevel=user_stacklevel())


def warn_host_fallback(operation: str, reason: str) -> None:
    """Warn, once per (operation, reason), that ``operation`` runs on the host because of ``reason``; the warning
    points at the user's line.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     for _ in range(3):
    ...         warn_host_fallback("Series + offset", "BusinessDay is not computed on the device")
    >>> len(caught), str(caught[0].message)
    (1, 'riptide: Series + offset runs on the host: BusinessDay is not computed on the device')
    """
    warn_once((operation, reason), f"riptide: {operation} runs on the host: {reason}")
