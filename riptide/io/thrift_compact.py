"""A small generic codec for the Thrift *compact protocol*: any struct to a tree and back, no IDL needed.

Parquet keeps its metadata (the file footer's ``FileMetaData``, page headers, column and offset indexes, bloom filter
headers) as Thrift structs in the compact protocol. riptide needs to *edit* such metadata, not to interpret all of
it: :mod:`riptide.io.parquet_parallel` stitches row groups encoded separately into one file and has to shift a
handful of file offsets in the footers. A schema-driven codec would have to know every struct of ``parquet.thrift``
(and be updated whenever the format grows a field); this one decodes whatever is on the wire into a tree of
``(field id, type, value)`` and re-encodes that tree, so unknown and future fields pass through untouched and the
caller only names the field ids it changes (read from the Apache Parquet format spec's ``parquet.thrift``).

The tree:

* a struct (or union) is a :class:`Struct`: its fields in wire order, each a :class:`Field` ``(id, type, value)``;
* a list or set is a :class:`List` ``(element type, items)`` (the element type is kept so that an empty list is
  re-encoded as it was read);
* a map is a :class:`Map` ``(key type, value type, [(key, value), ...])``;
* integers are ``int``, doubles ``float``, binary and strings ``bytes`` (strings are not decoded: Parquet's
  ``binary`` statistics are not UTF-8), booleans ``bool``, UUIDs their 16 ``bytes``.

Wire format (from the Thrift compact protocol specification): integers of 16 bits and more are ZigZag'ed ULEB128
varints; a field header is one byte ``delta << 4 | type`` when the id grows by 1..15 over the previous field's,
else the type byte followed by the id as a ZigZag varint; boolean fields carry their value in the type (1 true,
2 false) and have no payload, while boolean *elements* are one byte each (1 true, anything else false; written
as 1 / 2); a list header is ``size << 4 | element type`` for sizes up to 14, else ``0xF0 | element type`` and the
size as a varint; a map is its size as a varint, then (when not empty) one byte ``key type << 4 | value type``;
a struct ends with a zero byte. Decoding never trusts sizes from the input: truncated or malformed bytes raise
:class:`ThriftError` rather than ``IndexError`` or a huge allocation.

The encoder writes the fields in the order they are in the tree and picks the short header form whenever it
applies, which is what the Thrift libraries (and so Arrow's Parquet writer) do, so ``encode_struct(decode_struct(b))``
gives ``b`` back byte for byte for the metadata those libraries write (tested).
"""

from __future__ import annotations

import struct as _struct
from typing import Any, NamedTuple

__all__ = [
    "BINARY",
    "BOOL",
    "DOUBLE",
    "I8",
    "I16",
    "I32",
    "I64",
    "LIST",
    "MAP",
    "SET",
    "STRUCT",
    "UUID",
    "Field",
    "List",
    "Map",
    "Struct",
    "ThriftError",
    "decode_struct",
    "encode_struct",
]

# compact-protocol type codes (field types; element types are the same numbers)
BOOL = 1  # BOOLEAN_TRUE; BOOLEAN_FALSE (2) is read as BOOL too, the value says which
_BOOL_FALSE = 2
I8 = 3
I16 = 4
I32 = 5
I64 = 6
DOUBLE = 7
BINARY = 8
LIST = 9
SET = 10
MAP = 11
STRUCT = 12
UUID = 13

_MAX_DEPTH = 64  # nesting guard: Parquet's deepest struct is a handful of levels


class ThriftError(ValueError):
    """Bytes that are not a valid compact-protocol struct (truncated, unknown type, absurd size)."""


class Field(NamedTuple):
    """One field of a :class:`Struct`: its Thrift field id, its compact type code and its decoded value."""

    id: int
    type: int
    value: Any


class List:
    """A Thrift list (or set): the element type code and the decoded elements."""

    __slots__ = ("elem_type", "items")

    def __init__(self, elem_type: int, items: list | None = None):
        self.elem_type = elem_type
        self.items = [] if items is None else items

    def __eq__(self, other: object) -> bool:
        return isinstance(other, List) and self.elem_type == other.elem_type and self.items == other.items

    def __repr__(self) -> str:
        return f"List({self.elem_type}, {self.items!r})"


class Map:
    """A Thrift map: key and value type codes and the decoded ``(key, value)`` pairs, in wire order."""

    __slots__ = ("items", "key_type", "value_type")

    def __init__(self, key_type: int, value_type: int, items: list | None = None):
        self.key_type = key_type
        self.value_type = value_type
        self.items = [] if items is None else items

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Map) and (self.key_type, self.value_type) == (other.key_type, other.value_type)
                and self.items == other.items)  # fmt: skip

    def __repr__(self) -> str:
        return f"Map({self.key_type}, {self.value_type}, {self.items!r})"


class Struct:
    """A decoded Thrift struct: its :class:`Field` s in wire order, looked up and edited by field id.

    >>> s = Struct()
    >>> s.set(3, I64, 10); s.set(1, I32, 2)
    >>> [f.id for f in s.fields], s.get(3), s.get(7, "absent")
    ([1, 3], 10, 'absent')
    >>> decode_struct(encode_struct(s))[0] == s
    True
    """

    __slots__ = ("fields",)

    def __init__(self, fields: list[Field] | None = None):
        self.fields = [] if fields is None else fields

    def _find(self, field_id: int) -> int:
        for i, f in enumerate(self.fields):
            if f.id == field_id:
                return i
        return -1

    def __contains__(self, field_id: int) -> bool:
        return self._find(field_id) >= 0

    def get(self, field_id: int, default: Any = None) -> Any:
        """The value of field ``field_id``, or ``default`` when the struct does not have it."""
        i = self._find(field_id)
        return self.fields[i].value if i >= 0 else default

    def set(self, field_id: int, type_code: int, value: Any) -> None:
        """Give field ``field_id`` this type and value: replaced in place, or inserted in field-id order."""
        i = self._find(field_id)
        if i >= 0:
            self.fields[i] = Field(field_id, type_code, value)
            return
        at = next((k for k, f in enumerate(self.fields) if f.id > field_id), len(self.fields))
        self.fields.insert(at, Field(field_id, type_code, value))

    def remove(self, field_id: int) -> None:
        """Drop field ``field_id`` (nothing happens when it is absent)."""
        i = self._find(field_id)
        if i >= 0:
            del self.fields[i]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Struct) and self.fields == other.fields

    def __repr__(self) -> str:
        return "Struct(" + ", ".join(f"{f.id}:{f.value!r}" for f in self.fields) + ")"


# ---------------------------------------------------------------------------------------------------- decoding


class _Reader:
    __slots__ = ("buf", "end", "pos")

    def __init__(self, buf: bytes, pos: int, end: int):
        self.buf = buf
        self.pos = pos
        self.end = end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise ThriftError("truncated Thrift data")
        b = self.buf[self.pos]
        self.pos += 1
        return b

    def varint(self) -> int:
        result = 0
        shift = 0
        buf, pos, end = self.buf, self.pos, self.end
        while True:
            if pos >= end:
                raise ThriftError("truncated Thrift data (inside a varint)")
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                self.pos = pos
                return result
            shift += 7
            if shift > 63:
                raise ThriftError("Thrift varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise ThriftError(f"Thrift binary of {n} bytes runs past the end of the data")
        out = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n
        return out

    def size(self) -> int:
        n = self.varint()
        if n > self.end - self.pos:  # every element takes at least one byte, except booleans in fields
            raise ThriftError(f"Thrift container of {n} elements in {self.end - self.pos} bytes")
        return n

    def value(self, t: int, depth: int) -> Any:
        if t == I64 or t == I32 or t == I16:
            return self.zigzag()
        if t == BINARY:
            return self.take(self.varint())
        if t == STRUCT:
            return self.struct(depth + 1)
        if t == LIST or t == SET:
            header = self.byte()
            n = header >> 4
            if n == 15:
                n = self.size()
            elem = header & 0x0F
            if elem == _BOOL_FALSE:
                elem = BOOL
            return List(elem, [self.element(elem, depth + 1) for _ in range(n)])
        if t == MAP:
            n = self.size()
            if n == 0:
                return Map(BINARY, BINARY, [])
            kinds = self.byte()
            kt, vt = kinds >> 4, kinds & 0x0F
            kt, vt = (BOOL if kt == _BOOL_FALSE else kt), (BOOL if vt == _BOOL_FALSE else vt)
            return Map(kt, vt, [(self.element(kt, depth + 1), self.element(vt, depth + 1)) for _ in range(n)])
        if t == I8:
            b = self.byte()
            return b - 256 if b > 127 else b
        if t == DOUBLE:
            return _struct.unpack("<d", self.take(8))[0]
        if t == UUID:
            return self.take(16)
        raise ThriftError(f"unknown Thrift compact type {t}")

    def element(self, t: int, depth: int) -> Any:
        if t == BOOL:
            return self.byte() == 1
        return self.value(t, depth)

    def struct(self, depth: int = 0) -> Struct:
        if depth > _MAX_DEPTH:
            raise ThriftError("Thrift structs nested too deeply")
        fields = []
        last = 0
        while True:
            header = self.byte()
            if header == 0:
                return Struct(fields)
            t = header & 0x0F
            delta = header >> 4
            field_id = last + delta if delta else self.zigzag()
            last = field_id
            if t == BOOL or t == _BOOL_FALSE:
                fields.append(Field(field_id, BOOL, t == BOOL))
            else:
                fields.append(Field(field_id, t, self.value(t, depth)))


def decode_struct(buf: Any, pos: int = 0, end: int | None = None) -> tuple[Struct, int]:
    """Decode the struct that starts at ``buf[pos]``: the :class:`Struct` and the position just past it.

    ``buf`` is ``bytes``, ``bytearray`` or a ``memoryview`` of bytes; ``end`` bounds the bytes it may use.

    >>> s, end = decode_struct(bytes([0x15, 0x04, 0x18, 0x02, 0x68, 0x69, 0x11, 0x00]))
    >>> s.get(1), s.get(2), s.get(3), end
    (2, b'hi', True, 8)
    """
    reader = _Reader(buf, pos, len(buf) if end is None else end)
    return reader.struct(), reader.pos


# ---------------------------------------------------------------------------------------------------- encoding


def _put_varint(out: bytearray, n: int) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _put_zigzag(out: bytearray, n: int, bits: int) -> None:
    if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
        raise ThriftError(f"{n} does not fit a Thrift i{bits}")
    _put_varint(out, ((n << 1) ^ (n >> (bits - 1))) & ((1 << bits) - 1))


def _put_value(out: bytearray, t: int, value: Any) -> None:
    if t == I64:
        _put_zigzag(out, value, 64)
    elif t == I32:
        _put_zigzag(out, value, 32)
    elif t == I16:
        _put_zigzag(out, value, 16)
    elif t == BINARY:
        value = bytes(value) if not isinstance(value, bytes | bytearray) else value
        _put_varint(out, len(value))
        out += value
    elif t == STRUCT:
        _put_struct(out, value)
    elif t == LIST or t == SET:
        n = len(value.items)
        if n < 15:
            out.append(n << 4 | value.elem_type)
        else:
            out.append(0xF0 | value.elem_type)
            _put_varint(out, n)
        for item in value.items:
            _put_element(out, value.elem_type, item)
    elif t == MAP:
        _put_varint(out, len(value.items))
        if value.items:
            out.append(value.key_type << 4 | value.value_type)
            for k, v in value.items:
                _put_element(out, value.key_type, k)
                _put_element(out, value.value_type, v)
    elif t == I8:
        if not -128 <= value < 128:
            raise ThriftError(f"{value} does not fit a Thrift i8")
        out.append(value & 0xFF)
    elif t == DOUBLE:
        out += _struct.pack("<d", value)
    elif t == UUID:
        if len(value) != 16:
            raise ThriftError("a Thrift uuid is 16 bytes")
        out += value
    else:
        raise ThriftError(f"unknown Thrift compact type {t}")


def _put_element(out: bytearray, t: int, value: Any) -> None:
    if t == BOOL or t == _BOOL_FALSE:
        out.append(1 if value else _BOOL_FALSE)
    else:
        _put_value(out, t, value)


def _put_struct(out: bytearray, s: Struct) -> None:
    last = 0
    for field_id, t, value in s.fields:
        wire_type = (BOOL if value else _BOOL_FALSE) if t in (BOOL, _BOOL_FALSE) else t
        delta = field_id - last
        if 0 < delta <= 15:
            out.append(delta << 4 | wire_type)
        else:
            out.append(wire_type)
            _put_zigzag(out, field_id, 16)
        last = field_id
        if wire_type not in (BOOL, _BOOL_FALSE):
            _put_value(out, t, value)
    out.append(0)


def encode_struct(s: Struct) -> bytes:
    """The compact-protocol bytes of struct ``s`` (the inverse of :func:`decode_struct`).

    >>> encode_struct(Struct([Field(1, I32, 2), Field(2, BINARY, b"hi"), Field(3, BOOL, True)])).hex()
    '1504180268691100'
    """
    out = bytearray()
    _put_struct(out, s)
    return bytes(out)
