"""``DataFrame.to_csv/to_parquet/to_orc/to_json/to_feather`` and ``Series.to_csv/to_json``: the writers as methods.

Each method hands the object to its format's module (imported on first use, so ``import riptide`` stays fast and
this mixin never imports the frame classes).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FrameIOMethods", "SeriesIOMethods"]


class FrameIOMethods:
    """Writers of :class:`riptide.DataFrame`."""

    __slots__ = ()

    def to_csv(self, path_or_buf: Any = None, **kwargs: Any) -> str | None:
        """Write as CSV (pandas' text, byte for byte); returns the text when ``path_or_buf`` is None.

        >>> import riptide as rt
        >>> print(rt.DataFrame({"a": [1, 2], "b": [0.5, None]}).to_csv(index=False), end="")
        a,b
        1,0.5
        2,
        """
        from riptide.io.csv import to_csv

        return to_csv(self, path_or_buf, **kwargs)

    def to_parquet(self, path: Any = None, engine: str = "auto", compression: str | None = "snappy",
                   index: bool | None = None, partition_cols: list | None = None, **kwargs: Any) -> bytes | None:  # fmt: skip
        """Write as Parquet (categoricals as Arrow dictionaries); returns the bytes when ``path`` is None."""
        from riptide.io.parquet import to_parquet

        return to_parquet(self, path, engine=engine, compression=compression, index=index,
                          partition_cols=partition_cols, **kwargs)  # fmt: skip

    def to_orc(self, path: Any = None, *, engine: str = "pyarrow", index: bool | None = None,
               engine_kwargs: dict | None = None) -> bytes | None:  # fmt: skip
        """Write as ORC; returns the bytes when ``path`` is None."""
        from riptide.io.orc import to_orc

        return to_orc(self, path, engine=engine, index=index, engine_kwargs=engine_kwargs)

    def to_feather(self, path: Any, **kwargs: Any) -> None:
        """Write as Feather (Arrow IPC file)."""
        from riptide.io.feather import to_feather

        return to_feather(self, path, **kwargs)

    def to_json(self, path_or_buf: Any = None, **kwargs: Any) -> str | None:
        """Write as JSON (pandas' text); returns the text when ``path_or_buf`` is None."""
        from riptide.io.json import to_json

        return to_json(self, path_or_buf, **kwargs)


class SeriesIOMethods:
    """Writers of :class:`riptide.Series`."""

    __slots__ = ()

    def to_csv(self, path_or_buf: Any = None, **kwargs: Any) -> str | None:
        """Write as CSV, as ``pandas.Series.to_csv``; returns the text when ``path_or_buf`` is None."""
        from riptide.io.csv import to_csv

        return to_csv(self, path_or_buf, **kwargs)

    def to_json(self, path_or_buf: Any = None, **kwargs: Any) -> str | None:
        """Write as JSON, as ``pandas.Series.to_json``; returns the text when ``path_or_buf`` is None."""
        from riptide.io.json import to_json

        return to_json(self, path_or_buf, **kwargs)
