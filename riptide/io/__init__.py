"""Readers and writers: CSV, Parquet, ORC, JSON and Feather through pyarrow on the host, columns on the device.

One module per format (``csv``, ``parquet``, ``orc``, ``json``, ``feather``); :mod:`riptide.io._files` holds what they
share (paths, globs, compression, fsspec URLs, atomic writes) and :mod:`riptide.io._arrow` the Arrow-table <-> frame
bridge that gives every column pandas' dtype. ``rt.read_*`` are exported lazily from :mod:`riptide`;
``DataFrame.to_*`` come from :class:`riptide.io.methods.FrameIOMethods`.
"""

__all__: list[str] = []  # the readers are exported from the top level (rt.read_csv, ...)
