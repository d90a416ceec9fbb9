"""Building, loading and checking a database directory: the Python side of the package."""

from __future__ import annotations

import fcntl
import os
import random
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kingme.engine.egdb import build as builder
from kingme.engine.egdb import storage, verify
from kingme.engine.egdb.index import MATERIAL_IDS, Material, materials
from kingme.engine.egdb.probe import DRAW_CODE, MAX_PLIES
from kingme.engine.egdb.storage import DatabaseError

#: The most pieces ``build`` and ``load`` accept (2.6 billion positions, about 2.9 GB in memory).
MAX_PIECES = 6
#: Sets this small are built on first use by ``load_or_build`` (seconds), not shipped.
SMALL_PIECES = 4
#: Positions handed to compiled code at a time, so progress is reported between them (and a
#: stopped build stops between them: 2 million six-piece positions are about a second of work).
_CHUNK = 2_000_000
#: The file ``take_build_lock`` locks in a database directory (empty, and left there).
LOCK_NAME = "build.lock"


class TooManyPieces(DatabaseError):
    """More pieces than the database can hold or than was asked for."""


class BuildBusy(DatabaseError):
    """Another process is building into the directory: it holds the directory's build lock."""


@dataclass(frozen=True, eq=False)
class Tables:
    """Every table of at most ``max_pieces`` pieces in one array: ``values[offsets[id] + index]``
    is the byte of position ``index`` of material ``id`` (``offsets[id]`` is -1 if absent)."""

    offsets: np.ndarray
    values: np.ndarray
    max_pieces: int


@dataclass(frozen=True)
class MaterialReport:
    """What building (or finding already built) one material's table gave."""

    material: Material
    wins: int
    losses: int
    draws: int
    longest: int
    #: Positions the 80-ply rule turned from a win or a loss into a draw (``None`` for a table
    #: kept from an earlier build: the file does not record it).
    capped: int | None
    seconds: float
    file_bytes: int
    reused: bool


@dataclass(frozen=True)
class BuildEstimate:
    """What solving a sample of one largest-size table's slices cost, scaled to the whole table."""

    material: Material
    sampled: int
    slices: int
    seconds: float

    @property
    def estimated(self) -> float:
        """CPU seconds the whole table should take (solving only; writing adds about a tenth)."""
        return self.seconds * self.slices / self.sampled


#: ``progress(material, slices done in it, its slices)`` during build and verify.
Progress = Callable[[Material, int, int], None]


class BuildCount:
    """How many positions of a set are done, from ``Progress`` calls: each material's slices
    weighted by its positions, so that the share done (``positions(...) / total``) moves as
    the work does — a 6-piece table is 100,000 times a 3-piece one. What the command's
    progress bar and a server's report of its background build show."""

    def __init__(self, max_pieces: int) -> None:
        self.total = 0
        self._before: dict[Material, int] = {}
        for material in materials(max_pieces):
            self._before[material] = self.total
            self.total += material.size

    def positions(self, material: Material, done: int, total: int) -> int:
        """Positions done once ``done`` of ``material``'s ``total`` slices are."""
        return self._before[material] + material.size * done // max(total, 1)


def default_directory() -> Path:
    """``$KINGME_EGDB_DIR``, else ``$XDG_DATA_HOME/kingme/egdb`` (``~/.local/share/kingme/egdb``)."""
    if os.environ.get("KINGME_EGDB_DIR"):
        return Path(os.environ["KINGME_EGDB_DIR"])
    data = os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
    return Path(data) / "kingme" / "egdb"


def largest_built(directory: Path) -> int:
    """The most pieces whose every table file is in ``directory`` (0 when not even the 2-piece
    set is): the set ``load`` would be asked for. Only looks for the files (a ``stat`` each, a
    missing one ends the look at its size), so it is cheap enough for a status page; ``load``
    checks them."""
    for pieces in range(MAX_PIECES, 1, -1):
        if all(storage.table_path(directory, material).exists() for material in materials(pieces)):
            return pieces
    return 0


def take_build_lock(directory: Path) -> int:
    """An open descriptor of ``directory``'s ``build.lock``, locked (``fcntl.flock``, exclusive,
    made with the directory when missing): one build at a time in a directory, whoever runs it
    — ``kingme egdb build``, or the background build of one of several ``kingme serve`` sharing
    the directory. The lock lasts until every copy of the descriptor is closed, so a child
    process handed a copy holds it as long as it runs, and a process that dies releases its
    own. ``BuildBusy`` when another holds it, ``OSError`` when the directory cannot be made or
    written. (``load_or_build`` takes no lock: two processes building the small set at once
    both rename whole files, and a player never waits for a lock.)"""
    directory.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(descriptor)
        raise BuildBusy(
            f"{directory}: another process is building endgame tables there (a `kingme serve` or"
            " `kingme egdb build`); wait for it to end, or stop it"
        ) from None
    except OSError:
        os.close(descriptor)
        raise
    return descriptor


@contextmanager
def build_lock(directory: Path) -> Iterator[None]:
    """``take_build_lock`` for the length of a block."""
    descriptor = take_build_lock(directory)
    try:
        yield
    finally:
        os.close(descriptor)


def _check_pieces(max_pieces: int) -> None:
    if not 2 <= max_pieces <= MAX_PIECES:
        raise TooManyPieces(f"{max_pieces} pieces: a database holds from 2 to {MAX_PIECES}")


def _offsets(found: list[Material]) -> tuple[np.ndarray, int]:
    """Each material's offset in the one array of a set (-1 for the others), and its length."""
    offsets = np.full(MATERIAL_IDS, -1, dtype=np.int64)
    total = 0
    for material in found:
        offsets[material.id] = total
        total += material.size
    return offsets, total


def _empty_tables(max_pieces: int) -> tuple[list[Material], Tables]:
    found = materials(max_pieces)
    offsets, total = _offsets(found)
    return found, Tables(offsets, np.zeros(total, dtype=np.uint8), max_pieces)


def _table(tables: Tables, material: Material) -> np.ndarray:
    start = int(tables.offsets[material.id])
    return tables.values[start : start + material.size]


def _descriptor(tables: Tables, material: Material) -> np.ndarray:
    return np.array(
        [
            material.black_kings,
            material.black_men,
            material.white_kings,
            material.white_men,
            tables.offsets[material.id],
        ],
        dtype=np.int64,
    )


def _chunks(material: Material) -> list[np.ndarray]:
    order = builder.slice_order(material)
    per_chunk = max(1, _CHUNK * order.size // max(1, material.size))
    return [order[i : i + per_chunk] for i in range(0, order.size, per_chunk)]


def load(directory: Path, max_pieces: int) -> Tables:
    """Every table of at most ``max_pieces`` pieces from ``directory``; ``MissingTable`` or
    ``CorruptTable`` if one is absent or damaged (nothing half-loaded is returned). The set file
    ``build`` leaves (``storage.map_set``) is mapped instead when it matches the material files:
    processes that load the same set then share its memory."""
    _check_pieces(max_pieces)
    found = materials(max_pieces)
    for material in found:  # a set still being built is refused before any file is read
        if not storage.table_path(directory, material).exists():
            raise storage.missing_table(directory, material)
    checksums = [storage.table_checksum(directory, material) for material in found]
    if None not in checksums:
        offsets, total = _offsets(found)
        mapped = storage.map_set(directory, max_pieces, total, [int(c) for c in checksums if c is not None])
        if mapped is not None:
            return Tables(offsets, mapped, max_pieces)
    found, tables = _empty_tables(max_pieces)
    for material in found:
        storage.read_table(directory, material, _table(tables, material))
    return tables


def load_or_build(directory: Path, max_pieces: int) -> Tables:
    """``load``, first building whatever tables of at most ``SMALL_PIECES`` pieces are missing
    or damaged: the small set needs no separate step (about 10 CPU seconds, once). Larger sets
    must be built with ``kingme egdb build``; their absence raises ``MissingTable`` as in ``load``.
    Two processes doing this at once both build and each rename a whole file: no harm."""
    _check_pieces(max_pieces)
    try:
        return load(directory, max_pieces)
    except DatabaseError:
        build(directory, min(max_pieces, SMALL_PIECES))
    return load(directory, max_pieces)


def build(
    directory: Path, max_pieces: int, progress: Progress | None = None, *, cap: int = MAX_PLIES
) -> list[MaterialReport]:
    """Build every table of at most ``max_pieces`` pieces into ``directory``, keeping the ones
    already there (checked, and rebuilt if damaged or of an older format): an interrupted build
    resumes. Last, the set file that ``load`` maps is written (``storage.write_set``).

    Wins and losses beyond ``cap`` plies to conversion are stored as draws: the 80-ply rule's
    ``MAX_PLIES`` for every table the engine reads; a smaller cap lets tests watch the cap at
    work on small sets, where no distance reaches 80 (the files do not record it)."""
    _check_pieces(max_pieces)
    directory.mkdir(parents=True, exist_ok=True)
    found, tables = _empty_tables(max_pieces)
    reports = []
    for material in found:
        started = time.perf_counter()
        table = _table(tables, material)
        capped = None
        try:
            storage.read_table(directory, material, table)
            reused = True
        except DatabaseError:
            capped = _solve(tables, material, progress, cap)
            reused = False
        if reused and progress:
            progress(material, 1, 1)
        file_bytes = 0 if reused else storage.write_table(directory, material, table)
        if reused:
            file_bytes = storage.table_path(directory, material).stat().st_size
        counts = np.bincount(table, minlength=256)
        reports.append(
            MaterialReport(
                material,
                wins=int(counts[2:129].sum()),
                losses=int(counts[129:].sum()),
                draws=int(counts[1]),
                longest=_longest(counts),
                capped=capped,
                seconds=time.perf_counter() - started,
                file_bytes=file_bytes,
                reused=reused,
            )
        )
    checksums = [storage.table_checksum(directory, material) for material in found]
    storage.write_set(directory, max_pieces, tables.values, [int(c) for c in checksums if c is not None])
    return reports


def _longest(counts: np.ndarray) -> int:
    """The largest distance to conversion in a table's byte histogram."""
    wins = np.flatnonzero(counts[2:129])
    losses = np.flatnonzero(counts[129:])
    return int(max(wins[-1] + 1 if wins.size else 0, losses[-1] if losses.size else 0))


def _solve(tables: Tables, material: Material, progress: Progress | None, cap: int) -> int:
    """Solve ``material`` into ``tables``; returns how many positions the 80-ply rule draws."""
    descriptor = _descriptor(tables, material)
    stats = np.zeros(builder.STAT_SIZE, dtype=np.int64)
    chunks = _chunks(material)
    total = sum(chunk.size for chunk in chunks)
    done = 0
    for chunk in chunks:
        builder.solve_slices(tables.offsets, tables.values, descriptor, chunk, stats, cap)
        if stats[builder.STAT_UNSOLVED_EXIT]:
            raise DatabaseError(f"{material.name}: a move leads to a position not solved yet (build order bug)")
        done += chunk.size
        if progress:
            progress(material, done, total)
    return int(stats[builder.STAT_CAPPED])


def estimate_build(
    directory: Path, max_pieces: int, per_mille: int, progress: Progress | None = None
) -> list[BuildEstimate]:
    """The CPU time of building the ``max_pieces``-piece tables, from solving ``per_mille`` of
    every such table's slices (at least one; a kings-only table has only one) with the smaller
    tables loaded from ``directory`` (``MissingTable`` if absent). Positions a sampled slice
    reaches in unsolved tables of its size read as draws, so the values are not kept and the
    figure is a guide: how much work there is, not how it comes out."""
    _check_pieces(max_pieces)
    found, tables = _empty_tables(max_pieces)
    estimates = []
    for material in found:
        if material.pieces < max_pieces:
            storage.read_table(directory, material, _table(tables, material))
        else:
            _table(tables, material)[:] = DRAW_CODE
    rng = random.Random(1)
    largest = [material for material in found if material.pieces == max_pieces]
    for number, material in enumerate(largest, start=1):
        order = builder.slice_order(material)
        sample = np.sort(np.array(rng.sample(order.tolist(), max(1, order.size * per_mille // 1000))))
        descriptor = _descriptor(tables, material)
        stats = np.zeros(builder.STAT_SIZE, dtype=np.int64)
        builder.solve_slices(tables.offsets, tables.values, descriptor, sample[:0], stats, MAX_PLIES)  # compiled
        started = time.process_time()
        builder.solve_slices(tables.offsets, tables.values, descriptor, sample, stats, MAX_PLIES)
        estimates.append(BuildEstimate(material, sample.size, order.size, time.process_time() - started))
        if progress:
            progress(material, number, len(largest))
    return estimates


def verify_tables(
    tables: Tables, progress: Progress | None = None, *, cap: int = MAX_PLIES, only: Collection[Material] = ()
) -> dict[Material, int]:
    """How many positions of each material disagree with their successors (all 0 when sound),
    a win or a loss beyond ``cap`` plies counting as a draw (as in ``build``); ``only`` checks
    those materials alone (all when empty), the rest of the set still read as their successors."""
    wrong = {}
    for material in materials(tables.max_pieces):
        if only and material not in only:
            continue
        descriptor = _descriptor(tables, material)
        count = 0
        chunks = _chunks(material)
        total = sum(chunk.size for chunk in chunks)
        done = 0
        for chunk in chunks:
            count += verify.check_slices(tables.offsets, tables.values, descriptor, chunk, cap)
            done += chunk.size
            if progress:
                progress(material, done, total)
        wrong[material] = count
    return wrong
