"""Column data stays on the device: basic operations move no column bytes to the host.

The only sanctioned device-to-host path for column data is ``riptide._transfer`` (through
``riptide._device.to_host``); these tests count the bytes that pass through it while a
pipeline of everyday operations runs on a GPU. Reading a scalar (a reduction result,
an output size) goes through ``int()``/``float()`` and is allowed. A second test makes
sure no module bypasses that path with ``.get()`` or ``cupy.asnumpy``.
"""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

import riptide as rt
from riptide import _device, _transfer

N = 1_000_000


@pytest.fixture
def host_bytes(monkeypatch):
    """Total bytes copied device -> host through riptide's transfer path during the test."""
    moved = {"bytes": 0}
    original = _transfer.device_to_host

    def counting(array, *args, **kwargs):
        moved["bytes"] += int(array.nbytes)
        return original(array, *args, **kwargs)

    monkeypatch.setattr(_transfer, "device_to_host", counting)
    return moved


@pytest.mark.gpu
def test_basic_operations_copy_no_column_data_to_host(host_bytes):
    rng = np.random.default_rng(0)
    df = rt.DataFrame(
        {
            "a": rng.random(N),
            "b": rng.integers(0, 100, N),
            "c": np.where(rng.random(N) < 0.1, np.nan, rng.random(N)),
        }
    )
    host_bytes["bytes"] = 0  # building the frame from host data is an upload, not what is measured

    filtered = df[df.a > 0.5]
    derived = filtered.assign(d=filtered.a * filtered.b + 1, e=filtered.c.fillna(0.0))
    derived["f"] = derived.d.where(derived.b > 10, -1.0).clip(0, 50)
    derived.loc[derived.e > 0.9, "e"] = 0.9
    cleaned = derived.dropna(subset=["c"])
    cumulative = cleaned.b.cumsum().shift(1).diff()
    membership = cleaned.b.isin([1, 2, 3, 50])
    as_float = cleaned.b.astype("float32")
    selected = cleaned.iloc[10:1000]
    results = [
        cleaned.a.sum(),
        cleaned.c.mean(),
        cleaned.b.max(),
        cleaned.e.std(),
        membership.sum(),
        cumulative.count(),
        as_float.min(),
        selected.b.median(),
        cleaned.b.nunique(),
        cleaned.a.idxmax(),
    ]
    _device.synchronize()
    assert all(r is not None for r in results)
    assert isinstance(cleaned.a.values, _device.xp().ndarray)
    assert host_bytes["bytes"] == 0, f"{host_bytes['bytes']} bytes of column data went to the host"


@pytest.mark.gpu
def test_to_pandas_is_the_transfer(host_bytes):
    s = rt.Series(np.arange(N, dtype=np.float64))
    host_bytes["bytes"] = 0
    s.to_pandas()
    assert host_bytes["bytes"] == N * 8


def test_no_module_bypasses_the_transfer_path():
    """Only _transfer.py may copy arrays to the host; elsewhere scalars are read with int()/float()."""
    package = pathlib.Path(rt.__file__).parent
    bypass = re.compile(r"\.get\(\)|asnumpy\(")
    offenders = []
    for path in package.rglob("*.py"):
        if path.name == "_transfer.py" or "benchmarks" in path.parts:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if bypass.search(line) and "# host-ok" not in line:
                offenders.append(f"{path.relative_to(package)}:{number}: {line.strip()}")
    assert not offenders, "device arrays copied to the host outside _transfer:\n" + "\n".join(offenders)
