"""The search as Python sees it: a game in, a ``SearchResult`` out.

This is the bridge between the readable world (``Game``, ``Move``) and the compiled core: it
builds the work array, hands the core the keys of the game's positions since the last capture
or man move (so repetitions and the no-progress count inside the search match the game's own
rules), and maps the chosen root move back to the rules core's ``Move`` with its full route.
"""

from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kingme.engine import egdb, movegen
from kingme.engine import search as core
from kingme.engine.egdb import moves as egdb_moves
from kingme.engine.egdb import storage
from kingme.engine.egdb.database import SMALL_PIECES
from kingme.game import Game
from kingme.rules import Board, Move
from kingme.rules.fen import parse_fen

#: The tables are consulted from this many pieces down: a search from more rarely reaches them,
#: and the first use loads them (or builds the small set), which an opening should not wait for.
ENDGAME_ROOT_PIECES = 12
#: What the search is given when no endgame tables are used: never probed.
NO_TABLES = (np.full(1, -1, dtype=np.int64), np.zeros(1, dtype=np.uint8))


@dataclass(frozen=True)
class SearchResult:
    """The chosen move, its score for the side to move (hundredths of a man, noise included),
    the deepest completed iteration, the nodes searched and the principal variation."""

    move: Move
    score: int
    depth: int
    nodes: int
    pv: tuple[Move, ...]


def _recent_keys(game: Game) -> list[int]:
    """Keys of the positions since the last capture or man move, oldest first, the current one
    excluded (``deepen`` keeps the last ones the no-progress rule can still reach)."""
    position = parse_fen(game.setup.fen)
    black, white, kings, black_to_move = position.black, position.white, position.kings, position.black_to_move
    keys: list[int] = []
    for move in game.moves:
        own, opp = (black, white) if black_to_move else (white, black)
        keys.append(int(core.position_key(own, opp, kings, black_to_move)))
        origin, target = 1 << (move.from_square - 1), 1 << (move.to_square - 1)
        captured = sum(1 << (s - 1) for s in move.captures)
        if move.captures or not kings & origin:
            keys.clear()
        own, opp, kings = (int(v) for v in movegen.play(own, opp, kings, black_to_move, origin, target, captured))
        black, white = (opp, own) if black_to_move else (own, opp)
        black_to_move = not black_to_move
    return keys


def _as_move(board: Board, origin: int, target: int, captured: int) -> Move:
    """The rules core's move with these from/to bits and captures (the first route, when
    several routes take the same pieces)."""
    wanted = (origin.bit_length(), target.bit_length(), {i + 1 for i in range(32) if captured >> i & 1})
    for move in board.legal_moves():
        if (move.from_square, move.to_square, set(move.captures)) == wanted:
            return move
    raise AssertionError(f"engine move {wanted} is not legal in {board.fen()}")  # the cross-check tests forbid it


def _principal_variation(board: Board, first: Move, work: np.ndarray, length: int) -> tuple[Move, ...]:
    board = board.copy()
    line = [first]
    board.push(first)
    seen = {board.key()}
    while len(line) < length:
        own, opp = board.sides()
        code = int(core.table_move(work, core.position_key(own, opp, board.kings, board.black_to_move)))
        if code == 0:
            break
        origin, target = (code - 1) // 32 + 1, (code - 1) % 32 + 1
        matches = [m for m in board.legal_moves() if m.from_square == origin and m.to_square == target]
        if not matches:
            break
        board.push(matches[0])
        line.append(matches[0])
        if board.key() in seen:
            break
        seen.add(board.key())
    return tuple(line)


class TableShelf:
    """The endgame tables one process plays with, from one directory: the largest complete set
    there, loaded on first use (the small set built there when missing), and then any larger
    set that appears while the process runs — a build in the background (``kingme serve``) or
    by hand finishing — taken up at the next call, so engine workers switch without a restart.

    Looking costs a ``stat`` of each larger set's file per call (microseconds, against a search
    of milliseconds), the file a build writes last, by rename: a set is never taken up half
    built. Taking one up is a ``load`` (seconds at six pieces, mostly the set file's checksum),
    paid once by the search that first asks. A set file that fails to load is not tried again
    until it changes."""

    def __init__(self, directory: Path, first_use: int = SMALL_PIECES) -> None:
        self.directory = directory
        self._first_use = first_use
        self._tables: egdb.Tables | None = None
        self._loaded = False
        #: Each larger set's file as last tried (``_marker``), so a bad one is not tried again.
        self._tried: dict[int, tuple[int, int, int] | None] = {}

    def tables(self) -> egdb.Tables | None:
        """The largest set loaded so far; ``None`` when not even the small set could be had (an
        unwritable directory: the engine then searches)."""
        if not self._loaded:
            self._loaded = True
            self._tables = self._first_load()
        elif self._held() < egdb.MAX_PIECES:
            self._take_up_larger()
        return self._tables

    def _held(self) -> int:
        return self._tables.max_pieces if self._tables is not None else 0

    def _first_load(self) -> egdb.Tables | None:
        for pieces in range(egdb.MAX_PIECES, self._first_use, -1):
            self._tried[pieces] = self._marker(pieces)
            with contextlib.suppress(egdb.DatabaseError, OSError):
                return egdb.load(self.directory, pieces)
        try:
            return egdb.load_or_build(self.directory, self._first_use)
        except (egdb.DatabaseError, OSError):
            return None

    def _take_up_larger(self) -> None:
        for pieces in range(egdb.MAX_PIECES, self._held(), -1):
            marker = self._marker(pieces)
            if marker is None or marker == self._tried.get(pieces):
                continue
            self._tried[pieces] = marker
            with contextlib.suppress(egdb.DatabaseError, OSError):
                self._tables = egdb.load(self.directory, pieces)
                return

    def _marker(self, pieces: int) -> tuple[int, int, int] | None:
        """The set file's identity (inode, time, size), ``None`` while there is none."""
        try:
            status = storage.set_path(self.directory, pieces).stat()
        except OSError:
            return None
        return status.st_ino, status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=1)
def _shelf(directory: Path) -> TableShelf:
    return TableShelf(directory)


def endgame_tables() -> egdb.Tables | None:
    """The engine's endgame tables: the largest complete set in ``egdb.default_directory()``,
    loaded once per process and replaced by a larger one when it appears (``TableShelf``); the
    small set (at most 4 pieces) is built there on first use when missing. ``None`` when not
    even that can be had (an unwritable home): the engine then searches."""
    return _shelf(egdb.default_directory()).tables()


def _database_result(board: Board, quiet: int, pieces: int, tables: egdb.Tables) -> SearchResult | None:
    """The database's move when the root position is in the tables: the fastest conversion of a
    win (so a won ending is won, never drawn by the 80-ply rule or a repetition), else a draw,
    else the longest defence. Its score is the table's value after the game's ``quiet`` plies
    of the 80-ply count (``egdb.within_rule``): a win too far from conversion for the count is
    a draw, though its fastest conversion is still the move (no move does better, and the
    defender may slip). The search's own probes need no count: below the root a table position
    is only reached by a capture, which starts the count afresh."""
    if pieces > tables.max_pieces:
        return None
    value = egdb.within_rule(egdb_moves.value(tables, board), quiet)
    best = egdb_moves.best_move(tables, board)
    if value == egdb.UNKNOWN or best is None:
        return None
    return SearchResult(best, core.table_score(value, 0), 0, 0, (best,))


def analyse(
    game: Game,
    depth: int,
    nodes: int,
    noise: dict[int, int] | None = None,
    full_eval: bool = True,
    quiescence: bool = True,
    table_bits: int = 20,
    endings: bool = False,
) -> SearchResult:
    """Search the side to move's best move in ``game`` (not finished) within the budgets.

    ``noise`` maps root move codes (see ``noise_codes``) to an offset added to their scores.
    With ``endings``, the endgame tables (``endgame_tables()``) give the move at a root they
    hold and exact values below it.
    """
    board = game.board
    pieces = board.piece_count()
    tables = None
    if endings and board.variant.captures_compulsory and pieces <= ENDGAME_ROOT_PIECES:
        tables = endgame_tables()
    if tables is not None:
        known = _database_result(board, game.quiet_plies, pieces, tables)
        if known is not None:
            return known
    own, opp = board.sides()
    compulsory = board.variant.captures_compulsory
    work, bits, score, done = deepen(
        own,
        opp,
        board.kings,
        board.black_to_move,
        game.quiet_plies,
        _recent_keys(game),
        depth,
        nodes,
        noise=noise,
        full_eval=full_eval,
        quiescence=quiescence,
        compulsory=compulsory,
        table_bits=table_bits,
        tables=tables,
    )
    best = _as_move(board, *bits) if bits is not None else board.legal_moves()[0]
    return SearchResult(best, score, done, int(work[core.NODES_AT]), _principal_variation(board, best, work, done))


def deepen(
    own: int,
    opp: int,
    kings: int,
    black: bool,
    quiet: int,
    keys: list[int],
    depth: int,
    nodes: int,
    *,
    noise: dict[int, int] | None = None,
    full_eval: bool = True,
    quiescence: bool = True,
    compulsory: bool = True,
    table_bits: int = 20,
    tables: egdb.Tables | None = None,
) -> tuple[np.ndarray, tuple[int, int, int] | None, int, int]:
    """Iterative deepening on bitboards, the loop behind ``analyse`` and self-play: the work
    array (which holds the principal variation), the best root move as (from, to, captured)
    bits (``None`` if no iteration got through its first move), its score, and the deepest
    completed iteration. ``keys`` are the positions since the last capture or man move, oldest
    first, the current one excluded; ``quiet`` counts the plies since then."""
    offsets, values = (tables.offsets, tables.values) if tables is not None else NO_TABLES
    work = core.new_work(table_bits)
    work[core.BUDGET_AT] = nodes
    work[core.COMPULSORY_AT] = compulsory
    work[core.FULL_EVAL_AT] = full_eval
    work[core.QUIESCENCE_AT] = quiescence
    recent = keys[-core.MAX_GAME_KEYS :]
    work[core.KEYS_AT : core.KEYS_AT + len(recent)] = recent
    work[core.GAME_KEYS_AT] = len(recent)
    work[core.ENDGAME_PIECES_AT] = tables.max_pieces if tables is not None else 0
    for code, offset in (noise or {}).items():
        work[core.NOISE_AT + code] = offset
    best: tuple[int, int, int] | None = None
    score = done = 0
    for iteration in range(1, depth + 1):
        work[core.BEST_AT] = 0
        value = core.search_root(own, opp, kings, black, iteration, quiet, work, offsets, values)
        aborted = bool(work[core.ABORT_AT])
        if work[core.BEST_AT]:  # a partial iteration counts once its first root move is finished
            origin, target, captured = (int(v) for v in work[core.BEST_AT : core.BEST_AT + 3])
            best = (origin, target, captured)
            score = value if not aborted else score
        if aborted:
            break
        done = iteration
        if abs(value) > core.MATE_BOUND:
            break
    return work, best, score, done


def noise_codes(game: Game) -> list[int]:
    """The codes (``1 + from * 32 + to``, 0-based squares) of the root moves, which ``analyse``'s
    ``noise`` is keyed by; moves sharing both squares share one code."""
    return sorted({1 + (m.from_square - 1) * 32 + m.to_square - 1 for m in game.board.legal_moves()})
