"""The files of a database: one per material, checksummed, written so a crash leaves no half file.

A file ``<material>.v2.kmdb`` (for example ``2K1M-1K0M.v2.kmdb``; the format version is in the
name) is a 36-byte header followed by the table compressed with zlib::

    magic b"KMEGDB\\x00\\x01" | format version u32 | the four piece counts u8 | table length u64
    | compressed length u64 | CRC-32 of the compressed bytes u32          (little-endian)

It is written to ``<name>.tmp``, flushed to disk, renamed over the final name and the directory
flushed too, so a crash leaves either the whole previous state or the whole new file; a write
stopped by an exception (a stopped build) removes its ``.tmp``, and a stray one (a killed
process) is ignored and overwritten. On reading, the header, the file's length, the checksum and
the decompressed length are all checked, and any mismatch raises ``CorruptTable`` naming the
file: a damaged file is never read as values.

The version is in the name so that files of another version sit beside these instead of being
overwritten: an older kingme (a running server, a match between versions) keeps reading its own
while this one builds its own. Version 1 (``<material>.kmdb``) held distances not capped at the
80-ply rule; it is never read, and a missing table says so when one is there.

Beside them, ``build`` leaves one *set file* per set, ``set-<N>.v2.kmraw``: every table of at
most N pieces uncompressed, in load order, so that ``load`` can map it into memory instead of
decompressing — every process that maps it shares one copy in the page cache (the server's
engine workers, a match's players), where decompressing gives each its own (about 3 GB at six
pieces). Its header::

    magic b"KMEGSET\x01" | format version u32 | pieces u32 | length u64 | CRC-32 of the values u32
    | the header CRC-32 of each material's file, in load order, u32 each        (little-endian)

It is derived data: a set file whose tables' checksums are not those of the material files now
in the directory (one was rebuilt), or whose values fail their checksum, is ignored and the
material files are read instead, so it can never give other values than they do.
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np

from kingme.engine.egdb.index import Material
from kingme.rules.errors import KingmeError

MAGIC = b"KMEGDB\x00\x01"
#: 2: distances capped at the 80-ply rule (a longer win or loss is stored as a draw). Version 1
#: files held uncapped distances, some of them wins that the rule draws; they are refused, and
#: ``build`` replaces them.
FORMAT_VERSION = 2
SUFFIX = ".kmdb"
_HEADER = struct.Struct("<8sI4BQQI")
SET_MAGIC = b"KMEGSET\x01"
_SET_HEADER = struct.Struct("<8sIIQI")


class DatabaseError(KingmeError):
    """The endgame database cannot answer: a file is missing or damaged."""


class MissingTable(DatabaseError):
    """A material's file is not in the database directory (not built yet)."""


class CorruptTable(DatabaseError):
    """A material's file is truncated, altered or not a kingme table."""


def table_path(directory: Path, material: Material) -> Path:
    return directory / f"{material.name}.v{FORMAT_VERSION}{SUFFIX}"


@contextmanager
def _written(final: Path) -> Iterator[BinaryIO]:
    """A file to write ``final``'s bytes into: ``<final>.tmp``, flushed to disk and renamed over
    ``final`` when the block ends, then the directory flushed, so a crash leaves either the old
    file or the whole new one. A block left by an exception (a full disk, or the ``SystemExit``
    that stops a background build on SIGTERM) removes the temporary file: a stopped build leaves
    no half-written 3 GB set file behind."""
    temporary = final.with_name(final.name + ".tmp")
    file = open(temporary, "wb")  # noqa: SIM115 - closed below; a failed open leaves nothing to remove
    try:
        with file:
            yield file
            file.flush()
            os.fsync(file.fileno())
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, final)
    descriptor = os.open(final.parent, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


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
    with _written(table_path(directory, material)) as file:
        file.write(header)
        file.write(payload)
    return _HEADER.size + len(payload)


def missing_table(directory: Path, material: Material) -> MissingTable:
    """The error for a material whose file is not in ``directory``, naming a file of format
    version 1 when one is there instead."""
    old = directory / f"{material.name}{SUFFIX}"  # version 1's name
    why = (
        f"; {old.name} beside it is of format version 1, whose distances are not capped at the 80-ply rule,"
        " and is not read"
        if old.exists()
        else ""
    )
    return MissingTable(f"{table_path(directory, material)}: missing{why} (build it with `kingme egdb build`)")


def read_table(directory: Path, material: Material, into: np.ndarray) -> None:
    """Fill ``into`` (``material.size`` bytes) from the material's file, or raise
    ``MissingTable`` / ``CorruptTable``; ``into`` is left untouched on error."""
    path = table_path(directory, material)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise missing_table(directory, material) from None
    if len(data) < _HEADER.size:
        raise CorruptTable(f"{path}: truncated ({len(data)} bytes, not even a header)")
    magic, version, bk, bm, wk, wm, length, compressed, checksum = _HEADER.unpack_from(data)
    if magic != MAGIC:
        raise CorruptTable(f"{path}: not a kingme endgame table")
    if version != FORMAT_VERSION:
        raise CorruptTable(
            f"{path}: format version {version}, this kingme reads only {FORMAT_VERSION}"
            " (distances capped at the 80-ply rule): rebuild it with `kingme egdb build`"
        )
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


def table_checksum(directory: Path, material: Material) -> int | None:
    """The CRC-32 of a material's file, when the file is whole and sound (its length and its
    payload's checksum what its header says), else ``None``: what ties a set file to the
    material files it was made from, and what keeps a damaged material file from going
    unnoticed behind a sound set file (reading the compressed files costs a fraction of
    decompressing them)."""
    try:
        data = table_path(directory, material).read_bytes()
    except FileNotFoundError:
        return None
    if len(data) < _HEADER.size:
        return None
    magic, version, *_, compressed, checksum = _HEADER.unpack_from(data)
    sound = magic == MAGIC and version == FORMAT_VERSION and len(data) == _HEADER.size + compressed
    return int(checksum) if sound and zlib.crc32(memoryview(data)[_HEADER.size :]) == checksum else None


def set_path(directory: Path, max_pieces: int) -> Path:
    return directory / f"set-{max_pieces}.v{FORMAT_VERSION}.kmraw"


def write_set(directory: Path, max_pieces: int, values: np.ndarray, checksums: list[int]) -> None:
    """Store ``values`` (every table of at most ``max_pieces`` pieces, in load order) as the set
    file, tied to the material files by their ``checksums``; crash-safe like a table."""
    header = _SET_HEADER.pack(SET_MAGIC, FORMAT_VERSION, max_pieces, values.size, zlib.crc32(values.data))
    with _written(set_path(directory, max_pieces)) as file:
        file.write(header + struct.pack(f"<{len(checksums)}I", *checksums))
        values.tofile(file)


def map_set(directory: Path, max_pieces: int, length: int, checksums: list[int]) -> np.ndarray | None:
    """The set file's values mapped into memory (copy-on-write, so the pages stay shared among
    processes unless one writes), or ``None`` when there is no set file for these material
    files: missing, made from other files, or damaged (then the material files are read)."""
    path = set_path(directory, max_pieces)
    start = _SET_HEADER.size + 4 * len(checksums)
    try:
        with open(path, "rb") as file:
            header = file.read(start)
    except FileNotFoundError:
        return None
    if len(header) < start or path.stat().st_size != start + length:
        return None
    magic, version, pieces, size, checksum = _SET_HEADER.unpack_from(header)
    recorded = list(struct.unpack_from(f"<{len(checksums)}I", header, _SET_HEADER.size))
    if (magic, version, pieces, size, recorded) != (SET_MAGIC, FORMAT_VERSION, max_pieces, length, checksums):
        return None
    values = np.asarray(np.memmap(path, dtype=np.uint8, mode="c", offset=start, shape=(length,)))
    return values if zlib.crc32(values.data) == checksum else None
