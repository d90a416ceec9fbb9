"""The files of a database: one per material, checksummed, written so a crash leaves no half file.

A file ``<material>.kmdb`` (for example ``2K1M-1K0M.kmdb``) is a 36-byte header followed by the
table compressed with zlib::

    magic b"KMEGDB\\x00\\x01" | format version u32 | the four piece counts u8 | table length u64
    | compressed length u64 | CRC-32 of the compressed bytes u32          (little-endian)

It is written to ``<name>.tmp``, flushed to disk, renamed over the final name and the directory
flushed too, so a crash leaves either the whole previous state or the whole new file; a stray
``.tmp`` is ignored and overwritten. On reading, the header, the file's length, the checksum and
the decompressed length are all checked, and any mismatch raises ``CorruptTable`` naming the
file: a damaged file is never read as values.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import numpy as np

from kingme.engine.egdb.index import Material
from kingme.rules.errors import KingmeError

MAGIC = b"KMEGDB\x00\x01"
FORMAT_VERSION = 1
SUFFIX = ".kmdb"
_HEADER = struct.Struct("<8sI4BQQI")


class DatabaseError(KingmeError):
    """The endgame database cannot answer: a file is missing or damaged."""


class MissingTable(DatabaseError):
    """A material's file is not in the database directory (not built yet)."""


class CorruptTable(DatabaseError):
    """A material's file is truncated, altered or not a kingme table."""


def table_path(directory: Path, material: Material) -> Path:
    return directory / f"{material.name}{SUFFIX}"


def write_table(directory: Path, material: Material, table: np.ndarray) -> int:
    """Store ``table`` crash-safely; returns the file's size in bytes."""
    payload = zlib.compress(table.tobytes(), 6)
    header = _HEADER.pack(
        MAGIC,
        FORMAT_VERSION,
        material.black_kings,
        material.black_men,
        material.white_kings,
        material.white_men,
        table.size,
        len(payload),
        zlib.crc32(payload),
    )
    final = table_path(directory, material)
    temporary = final.with_name(final.name + ".tmp")
    with open(temporary, "wb") as file:
        file.write(header)
        file.write(payload)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, final)
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    return _HEADER.size + len(payload)


def read_table(directory: Path, material: Material, into: np.ndarray) -> None:
    """Fill ``into`` (``material.size`` bytes) from the material's file, or raise
    ``MissingTable`` / ``CorruptTable``; ``into`` is left untouched on error."""
    path = table_path(directory, material)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MissingTable(f"{path}: missing (build it with `kingme egdb build`)") from None
    if len(data) < _HEADER.size:
        raise CorruptTable(f"{path}: truncated ({len(data)} bytes, not even a header)")
    magic, version, bk, bm, wk, wm, length, compressed, checksum = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise CorruptTable(f"{path}: not a kingme endgame table")
    if version != FORMAT_VERSION:
        raise CorruptTable(f"{path}: format version {version}, this kingme reads {FORMAT_VERSION}")
    if (bk, bm, wk, wm) != (material.black_kings, material.black_men, material.white_kings, material.white_men):
        raise CorruptTable(f"{path}: holds material {bk}K{bm}M-{wk}K{wm}M, not {material.name}")
    if length != material.size or length != into.size:
        raise CorruptTable(f"{path}: {length} positions where {material.size} are expected")
    if len(data) != _HEADER.size + compressed:
        raise CorruptTable(f"{path}: {len(data)} bytes where the header announces {_HEADER.size + compressed}")
    payload = memoryview(data)[_HEADER.size :]
    if zlib.crc32(payload) != checksum:
        raise CorruptTable(f"{path}: checksum mismatch (the file was altered or damaged)")
    try:
        raw = zlib.decompress(payload)
    except zlib.error as error:
        raise CorruptTable(f"{path}: cannot decompress ({error})") from None
    if len(raw) != length:
        raise CorruptTable(f"{path}: decompresses to {len(raw)} bytes where {length} are expected")
    into[:] = np.frombuffer(raw, dtype=np.uint8)
