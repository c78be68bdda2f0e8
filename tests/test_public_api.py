"""Every name a riptide package exports in ``__all__`` resolves, and the top level is pandas-shaped."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import riptide

_SKIP_PREFIXES = ("riptide.benchmarks.",)  # benchmark cases import their peers (polars) lazily


def _packages() -> list[str]:
    names = ["riptide"]
    for info in pkgutil.walk_packages(riptide.__path__, prefix="riptide."):
        if info.ispkg and not info.name.startswith(_SKIP_PREFIXES):
            names.append(info.name)
    return sorted(names)


PACKAGES = _packages()


def test_packages_found():
    assert {"riptide", "riptide.core", "riptide.frame", "riptide.core.column"} <= set(PACKAGES)


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_resolve(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        pytest.skip(f"{name} has no __all__")
    assert len(exported) == len(set(exported)), f"{name}.__all__ has duplicates"
    missing = [attr for attr in exported if not hasattr(module, attr)]
    assert not missing, f"{name}.__all__ names that do not resolve: {missing}"


@pytest.mark.parametrize("name", ["riptide", "riptide.frame", "riptide.core.column"])
def test_main_packages_declare_all(name):
    assert isinstance(getattr(importlib.import_module(name), "__all__", None), list | tuple)


def test_top_level_api():
    for attr in ["DataFrame", "Series", "Index", "RangeIndex", "from_pandas", "from_arrow", "get_option",
                 "set_option", "option_context", "__version__"]:  # fmt: skip
        assert attr in riptide.__all__
        assert getattr(riptide, attr) is not None
    assert isinstance(riptide.__version__, str)


def test_submodules_all_resolve():
    """Modules (not only packages) that declare __all__ export real names too."""
    problems = {}
    for info in pkgutil.walk_packages(riptide.__path__, prefix="riptide."):
        if info.name.startswith(_SKIP_PREFIXES) or info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        exported = getattr(module, "__all__", None) or []
        missing = [attr for attr in exported if not hasattr(module, attr)]
        if missing:
            problems[info.name] = missing
    assert not problems, problems
