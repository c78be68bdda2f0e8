"""Where the bytes come from and go to: paths, globs, directories, compression, fsspec URLs, atomic writes.

Every reader and writer in :mod:`riptide.io` goes through this module, so that the rules are the same for all
formats:

* a path that does not exist raises :class:`FileNotFoundError` naming it (before pyarrow reports it in its own
  words); a glob (``*``, ``?``, ``[``) expands to the sorted list of matching files, and matching nothing is also
  a :class:`FileNotFoundError`;
* ``compression="infer"`` follows the file name's extension as pandas does (``.gz``, ``.bz2``, ``.zst``, ``.xz``,
  ``.zip``), and explicit names or ``{"method": ...}`` dicts are accepted;
* ``~`` is the user's home and a ``file://`` URL its local path, as pandas reads them;
* a URL with a scheme (``s3://``, ``memory://``, ...) opens through fsspec when it is installed;
* ``.zip`` targets hold one file, named as pandas names it (:func:`zip_member_name`);
* writers never leave a half-written file under the target name: :func:`atomic_target` yields a temporary file in
  the target's directory (same file system, so the final ``os.replace`` is atomic) and renames it only after the
  writer finished; on error the temporary file is removed and the target keeps its old content.
"""

from __future__ import annotations

import contextlib
import functools
import glob as _glob
import io
import os
import tempfile
from collections.abc import Iterator
from typing import Any

__all__ = [
    "atomic_target",
    "expand_paths",
    "infer_compression",
    "is_file_like",
    "is_url",
    "open_for_read",
    "stringify_path",
    "zip_member_name",
]

_EXTENSIONS = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".xz": "xz", ".zip": "zip", ".tar": "tar"}
_ARROW_CODECS = {"gzip": "gzip", "bz2": "bz2", "zstd": "zstd", "brotli": "brotli", "lz4": "lz4"}


def stringify_path(path: Any) -> Any:
    """``os.PathLike`` objects as their string, with ``~`` expanded and a ``file://`` URL as its local path (as
    pandas reads and writes them); anything else unchanged.

    >>> stringify_path("file:///tmp/a%20b.csv"), stringify_path("~") == os.path.expanduser("~")
    ('/tmp/a b.csv', True)
    """
    path = os.fspath(path) if isinstance(path, os.PathLike) else path
    if isinstance(path, str):
        if path.startswith("file://"):
            from urllib.parse import urlparse
            from urllib.request import url2pathname

            path = url2pathname(urlparse(path).path)
        if path.startswith("~"):
            path = os.path.expanduser(path)
    return path


def is_file_like(obj: Any) -> bool:
    """An open file or buffer (has ``read`` or ``write``), as opposed to a path."""
    return hasattr(obj, "read") or hasattr(obj, "write")


def is_url(path: Any) -> bool:
    """``scheme://...`` (other than ``file://``): opened through fsspec."""
    return isinstance(path, str) and "://" in path and not path.startswith("file://")


def _fsspec() -> Any:
    try:
        import fsspec
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("reading or writing a URL needs fsspec: pip install fsspec") from exc
    return fsspec


def infer_compression(path: Any, compression: Any) -> str | None:
    """The compression method: ``compression`` itself, or (for ``"infer"``) the one the extension names.

    >>> infer_compression("data.csv.gz", "infer"), infer_compression("data.csv", "infer")
    ('gzip', None)
    >>> infer_compression("x.csv", {"method": "zstd"})
    'zstd'
    """
    if isinstance(compression, dict):
        compression = compression.get("method")
    if compression == "infer":
        path = stringify_path(path)
        if not isinstance(path, str):
            return None
        return _EXTENSIONS.get(os.path.splitext(path)[1].lower())
    if compression is not None and compression not in _EXTENSIONS.values() and compression not in _ARROW_CODECS:
        raise ValueError(f"Unrecognized compression type: {compression}")
    return compression


def expand_paths(path: Any, extensions: tuple[str, ...] = ()) -> list[str]:
    """The files ``path`` names: itself, a glob's sorted matches, or a directory's data files (recursively).

    Files whose name starts with ``_`` or ``.`` (``_SUCCESS``, ``.crc``) are skipped in directories, as Spark and
    pyarrow skip them. Raises FileNotFoundError naming ``path`` when nothing matches.
    """
    path = stringify_path(path)
    if isinstance(path, list | tuple):
        return [p for item in path for p in expand_paths(item, extensions)]
    if is_url(path):
        if not any(ch in path for ch in "*?["):
            return [path]
        import fsspec.core

        fs, stripped = fsspec.core.url_to_fs(path)  # a glob in an object store: its matches, as URLs
        matches = sorted(fs.glob(stripped))
        if not matches:
            raise FileNotFoundError(f"No files match the pattern {path!r}")
        return [fs.unstrip_protocol(m) for m in matches]
    if any(ch in path for ch in "*?["):
        matches = sorted(_glob.glob(path, recursive=True))
        if not matches:
            raise FileNotFoundError(f"No files match the pattern {path!r}")
        return [p for m in matches for p in expand_paths(m, extensions)]
    if os.path.isdir(path):
        found = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) or "=" in d)
            for name in sorted(files):
                if name.startswith((".", "_")):
                    continue
                if extensions and not name.endswith(extensions) and "." in name:
                    continue
                found.append(os.path.join(root, name))
        return found
    if not os.path.exists(path):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: {path!r}")
    return [path]


def check_exists(path: Any) -> None:
    """Raise FileNotFoundError naming ``path`` when it is a local path that does not exist."""
    path = stringify_path(path)
    if isinstance(path, str) and not is_url(path) and not any(ch in path for ch in "*?[") and not os.path.exists(path):
        raise FileNotFoundError(f"[Errno 2] No such file or directory: {path!r}")


def open_for_read(source: Any, compression: Any = "infer") -> Any:
    """A binary file object with the (decompressed) bytes of a path, URL or file-like object.

    Text file objects (``io.StringIO``, files opened in text mode) are encoded as UTF-8.
    """
    source = stringify_path(source)
    if is_file_like(source):
        if isinstance(source, io.TextIOBase) or (hasattr(source, "read") and isinstance(source.read(0), str)):
            return io.BytesIO(source.read().encode("utf-8"))
        method = infer_compression(getattr(source, "name", None), compression)
        return _decompressing(source, method)
    method = infer_compression(source, compression)
    if is_url(source):
        return _decompressing(_fsspec().open(source, "rb").open(), method)
    check_exists(source)
    return _decompressing(open(source, "rb"), method)


def _decompressing(raw: Any, method: str | None) -> Any:
    if method is None:
        return raw
    if method == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=raw, mode="rb")
    if method == "bz2":
        import bz2

        return bz2.BZ2File(raw, mode="rb")
    if method == "xz":
        import lzma

        return lzma.LZMAFile(raw, mode="rb")
    if method in _ARROW_CODECS:
        import pyarrow as pa

        return pa.CompressedInputStream(pa.PythonFile(raw, mode="r"), method)
    if method == "zip":
        import zipfile

        archive = zipfile.ZipFile(raw)
        names = [n for n in archive.namelist() if not n.endswith("/")]
        if len(names) != 1:
            raise ValueError(f"Multiple files found in ZIP file. Only one file per ZIP: {names}")
        return archive.open(names[0])
    raise ValueError(f"Unrecognized compression type: {method}")


@contextlib.contextmanager
def naming_the_file(kind: str, name: Any) -> Iterator[None]:
    """Re-raise a decoder's error (pyarrow's ``ArrowInvalid``, an ``OSError``) with the file's kind and name in the
    message, as the issue asks of a truncated or corrupt file; a missing file stays ``FileNotFoundError``."""
    import pyarrow as pa

    try:
        yield
    except (pa.ArrowInvalid, OSError) as exc:
        if isinstance(exc, FileNotFoundError):
            raise
        raise type(exc)(f"could not read {kind} file {getattr(name, 'name', name)!r}: {exc}") from exc


def zip_member_name(path: Any, compression: Any = None) -> str:
    """The name of the one file a ``.zip`` written for ``path`` holds, as pandas names it: the dict's
    ``archive_name``, else the target's file name less ``.zip`` (``"zip"`` for a buffer without a name).

    >>> zip_member_name("out/data.csv.zip"), zip_member_name("x.csv", {"method": "zip", "archive_name": "in.csv"})
    ('data.csv', 'in.csv')
    """
    if isinstance(compression, dict) and compression.get("archive_name"):
        return str(compression["archive_name"])
    path = stringify_path(path)
    name = os.path.basename(path) if isinstance(path, str) else os.path.basename(str(getattr(path, "name", "") or ""))
    if name.lower().endswith(".zip"):
        name = name[:-4]
    return name or "zip"


@contextlib.contextmanager
def atomic_target(path: Any, compression: str | None = None, compression_arg: Any = None, *,
                  writeback: bool = False) -> Iterator[Any]:  # fmt: skip
    """A binary file to write ``path``'s new content to; it replaces ``path`` only when the block succeeds.

    ``writeback``: for a local path, the temporary file starts its bytes' writeback to disk as they are written
    (:class:`_StartingWriteback`), so that the final rename has little left to flush; a large writer asks for it.

    With ``compression`` (the method) the bytes written are compressed on the way (``"zip"``: one file, named by
    :func:`zip_member_name` from the caller's own ``compression_arg``, e.g. a dict with ``archive_name``). File-like targets are written directly (they are the caller's to manage);
    URLs are written through fsspec (object stores replace objects atomically).

    >>> import os, tempfile
    >>> target = os.path.join(tempfile.mkdtemp(), "out.txt")
    >>> with atomic_target(target) as f:
    ...     _ = f.write(b"done")
    >>> open(target, "rb").read()
    b'done'
    """
    path = stringify_path(path)
    member = zip_member_name(path, compression_arg)
    if is_file_like(path):
        if compression is None:
            yield path
            return
        with _compressing(path, compression, member) as stream:
            yield stream
        return
    if is_url(path):
        with _fsspec().open(path, "wb") as raw, _compressing(raw, compression, member) as stream:
            yield stream
        return
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise OSError(f"Cannot save file into a non-existent directory: '{os.path.dirname(path)}'")
    fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with (_StartingWriteback(io.FileIO(fd, "w")) if writeback else os.fdopen(fd, "wb")) as raw:
            with _compressing(raw, compression, member) as stream:
                yield stream
        if os.path.exists(path):  # keep the target's permissions, as an in-place write would
            os.chmod(temporary, os.stat(path).st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def start_writeback(file: Any, start: int, length: int) -> None:
    """Have the kernel start writing bytes ``[start, start + length)`` of ``file`` (an open binary file) to its disk,
    without waiting for them (Linux's ``sync_file_range(SYNC_FILE_RANGE_WRITE)``); nothing where that is missing or
    ``file`` is no OS file.

    A writer of a large file that starts each part's writeback as it goes spares the end its flush of everything at
    once: ext4 flushes a file renamed over an existing one (an atomic replace), which took 80-116 ms for 179 MB on
    the GPU host and 44-74 ms with the writeback started per 18 MB.

    Meant for a file the writer made itself (:func:`atomic_target`'s temporary file): asking a caller's file object
    for its descriptor or flushing it may change it (a spooled file rolls over to disk, a gzip stream gets a sync
    point).
    """
    sync_file_range = _sync_file_range()
    if sync_file_range is None:
        return
    try:
        fd = file.fileno()
    except Exception:  # no OS file behind it (io's UnsupportedOperation, or anything a file-like raises)
        return
    file.flush()  # (a failure here is a failed write: it propagates)
    sync_file_range(fd, start, length, 2)  # SYNC_FILE_RANGE_WRITE; a failure only means no early writeback


#: :class:`_StartingWriteback` starts the writeback of the bytes written every this many bytes.
WRITEBACK_BYTES = 16 << 20


class _StartingWriteback(io.BufferedWriter):
    """:func:`atomic_target`'s temporary file with ``writeback``: each :data:`WRITEBACK_BYTES` written have their
    writeback to disk started (:func:`start_writeback`) in the writing thread, while the writer goes on."""

    def __init__(self, raw: io.FileIO):
        super().__init__(raw)
        self._started = 0  # the end of the last range whose writeback was started

    def write(self, data: Any) -> int:
        written = super().write(data)
        end = self.tell()
        if end - self._started >= WRITEBACK_BYTES:
            start_writeback(self, self._started, end - self._started)
            self._started = end
        return written


@functools.cache
def _sync_file_range() -> Any:
    """libc's ``sync_file_range`` (Linux), or None."""
    import ctypes
    import ctypes.util
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).sync_file_range
    except (OSError, AttributeError):
        return None
    function.argtypes = (ctypes.c_int, ctypes.c_longlong, ctypes.c_longlong, ctypes.c_uint)
    function.restype = ctypes.c_int
    return function


@contextlib.contextmanager
def _compressing(raw: Any, method: str | None, member: str) -> Iterator[Any]:
    if method is None:
        yield raw
        return
    if method == "zip":  # one deflated file, as pandas writes it
        import zipfile

        with zipfile.ZipFile(raw, mode="w", compression=zipfile.ZIP_DEFLATED) as archive:
            with archive.open(member, mode="w") as stream:
                yield stream
        return
    if method == "gzip":
        import gzip

        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as stream:
            yield stream
    elif method == "bz2":
        import bz2

        with bz2.BZ2File(raw, mode="wb") as stream:
            yield stream
    elif method == "xz":
        import lzma

        with lzma.LZMAFile(raw, mode="wb") as stream:
            yield stream
    elif method in _ARROW_CODECS:
        import pyarrow as pa

        sink = pa.PythonFile(raw, mode="w")
        stream = pa.CompressedOutputStream(sink, method)
        try:
            yield stream
        finally:
            stream.close()  # flushes the codec; also closes ``sink`` but not ``raw`` (a PythonFile wrapper)
    else:
        raise ValueError(f"Unrecognized compression type: {method}")
