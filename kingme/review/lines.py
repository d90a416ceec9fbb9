"""The analysis board's lines: the best few lines of a position, one search depth at a time.

The compiled search (``kingme.engine.search.search_root``) finds one best move; it cannot be
told to leave root moves out. It can, though, add a fixed offset to each root move's score (the
root noise of the weaker levels), and the offsets enter its alpha-beta windows exactly. An
offset of ``EXCLUDED`` puts a move below every score a search can give, so no other move loses
to it: line ``k`` is the search with the first moves of lines ``1 … k-1`` left out that way. An
excluded move costs next to nothing (its reply fails high at once against the real best). The
other way — searching each root move's child over the whole window for its exact score —
gives up every cutoff between root moves: about eight full searches where this makes three.

Each line has a work array (transposition table) of its own: with a shared one, the second
search would find the root position stored by the first at the same depth and take its answer,
which includes the move it must leave out.

``lines_at`` deepens from depth 1 to ``depth`` afresh and keeps nothing between calls: the
server runs each depth of a stream as its own call in whichever engine worker is free, and a
result depends on the position, the depth and the count of lines alone (node budgets, never a
clock). Deepening anew costs about as much again as the last depth (each depth of the search
costs about what all shallower ones together do).

A position the endgame tables hold is not searched: its moves are ranked by the tables (the
fastest win, a draw, the longest defence) and each line follows the tables' best moves.
Scores are given from Black's view (Black moves first; the page calls it Red), as the review
contract's EVAL is: a win the tables or the search prove is a win in so many plies instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kingme.engine import egdb
from kingme.engine import search as core
from kingme.engine.analysis import ENDGAME_ROOT_PIECES, SearchResult, analyse, endgame_tables, noise_codes
from kingme.engine.egdb import moves as egdb_moves
from kingme.game import Game, Setup
from kingme.rules import KingmeError, Move

#: The most lines a position is analysed with (the board shows three).
MAX_LINES = 3
#: The root offset that leaves a move out: below any score minus any other (mates are at most
#: ``MATE`` either way, so 2 × ``MATE`` apart at most), and far inside the search's integers.
EXCLUDED = -4 * core.MATE
#: Plies of a line past the search's principal variation that the endgame tables add (a table
#: line shows how the win goes on; longer would not fit on the board's side panel).
TABLE_LINE_PLIES = 12
#: The transposition table of each line's search: 2 ** 20 entries (16 MB), as the master level.
TABLE_BITS = 20


class PositionError(KingmeError):
    """A position the board cannot analyse: the game is already over there."""


@dataclass(frozen=True)
class Line:
    """One line: its moves (full routes, as the game's record writes them) and its value from
    Black's view — ``score`` in hundredths of a man, or ``win_plies`` when the tables or the
    search prove a win in so many plies (positive: Black wins; ``score`` is then ``None``)."""

    moves: tuple[str, ...]
    score: int | None
    win_plies: int | None


@dataclass(frozen=True)
class Lines:
    """The lines after a completed ``depth``, best first, with the nodes searched for them.

    ``final``: deeper searches cannot change them (every line is a proven win or loss, or the
    tables decided the position). ``exhausted``: a line's node budget ran out before ``depth``
    was complete; there are no lines then, and no deeper search is worth starting."""

    depth: int
    nodes: int
    lines: tuple[Line, ...]
    final: bool = False
    exhausted: bool = False


def position(fen: str) -> Game:
    """The game to analyse from ``fen`` (American rules); ``FenError`` for a bad FEN and
    ``PositionError`` when the side to move has no move."""
    game = Game(Setup(fen=fen))
    if game.is_over:
        raise PositionError(f"the position {game.setup.fen} has no move for the side to move: the game is over there")
    return game


def _black_view(game: Game, value: int) -> int:
    return value if game.board.black_to_move else -value


def _table_value(game: Game, tables: egdb.Tables | None) -> int:
    """The tables' value of ``game``'s position for its side to move (``UNKNOWN`` outside them)."""
    board = game.board
    if tables is None or board.piece_count() > tables.max_pieces:
        return egdb.UNKNOWN
    return int(egdb.within_rule(egdb_moves.value(tables, board), game.quiet_plies))


def proven_plies(game: Game, moves: tuple[Move, ...], score: int, tables: egdb.Tables | None) -> int | None:
    """Plies to the win (positive when the side to move in ``game`` wins) that ``score`` proves,
    or ``None`` for an ordinary score. Mate and table scores count their plies from the root; a
    table line is played out to where it enters the tables, whose count of quiet plies may draw
    it (the search's probe below the root does not see the count). Game
    review (``kingme.review.review``) gives its wins in plies this way too."""
    if abs(score) > core.MATE_BOUND:
        return (core.MATE - abs(score)) * (1 if score > 0 else -1)
    if abs(score) <= core.DECIDED_BOUND:
        return None
    walked = Game(game.setup, game.moves)
    for ply, move in enumerate(moves, start=1):
        walked.push(move)
        value = _table_value(walked, tables)
        if value == egdb.DRAW:
            return None  # the 80-ply count, which the search's probe did not see, draws it
        if value != egdb.UNKNOWN:
            mover_wins = egdb.is_win(value) == (ply % 2 == 0)
            return (ply + egdb.plies(value)) * (1 if mover_wins else -1)
    # The line stops short of the tables: a table score counts the plies to the table position
    # and its conversion from the root (``search._endgame_score``).
    return (core.DATABASE_WIN - abs(score)) * (1 if score > 0 else -1)


def _table_continuation(game: Game, tables: egdb.Tables) -> list[Move]:
    """The tables' best moves from ``game`` on while it stays in them, at most ``TABLE_LINE_PLIES``."""
    walked = Game(game.setup, game.moves)
    moves: list[Move] = []
    while len(moves) < TABLE_LINE_PLIES and not walked.is_over:
        if _table_value(walked, tables) == egdb.UNKNOWN:
            break
        best = egdb_moves.best_move(tables, walked.board)
        if best is None:
            break
        moves.append(walked.push(best))
    return moves


def _table_lines(game: Game, count: int, tables: egdb.Tables) -> tuple[Line, ...] | None:
    """The best ``count`` moves of a position the tables hold, by their value; ``None`` when
    the tables do not hold it."""
    if _table_value(game, tables) == egdb.UNKNOWN:
        return None
    board = game.board

    def rank(move: Move) -> tuple[int, int]:
        value = egdb_moves.move_value(tables, board, move)
        if egdb.is_win(value):
            return 0, egdb.plies(value)
        return (1, 0) if value == egdb.DRAW else (2, -egdb.plies(value))

    ranked = sorted(game.legal_moves(), key=rank)[:count]
    lines = []
    for move in ranked:
        kind, plies = rank(move)
        after = Game(game.setup, [*game.moves, move])
        moves = (move, *_table_continuation(after, tables))
        win = None if kind == 1 else _black_view(game, abs(plies) if kind == 0 else -abs(plies))
        lines.append(Line(tuple(str(m) for m in moves), 0 if win is None else None, win))
    return tuple(lines)


def _tables_for(game: Game) -> egdb.Tables | None:
    return endgame_tables() if game.board.piece_count() <= ENDGAME_ROOT_PIECES else None


def lines_at(fen: str, depth: int, count: int = MAX_LINES, nodes: int = 10_000_000) -> Lines:
    """The best ``count`` (1 … ``MAX_LINES``) lines of the position ``fen`` after searching
    ``depth`` plies, each line's search within ``nodes``; see the module docstring for how.
    A module-level function of plain arguments, so the engine pool can run it."""
    if not 1 <= count <= MAX_LINES:
        raise ValueError(f"the board shows 1 to {MAX_LINES} lines, not {count}")
    game = position(fen)
    tables = _tables_for(game)
    known = _table_lines(game, count, tables) if tables is not None else None
    if known is not None:
        return Lines(depth, 0, known, final=True)
    codes = noise_codes(game)
    excluded: dict[int, int] = {}
    lines: list[Line] = []
    total = 0
    for _ in range(min(count, len(codes))):
        found: SearchResult = analyse(
            game, depth, nodes, noise=dict(excluded), table_bits=TABLE_BITS, endings=tables is not None
        )
        total += found.nodes
        if found.nodes >= nodes:
            return Lines(depth, total, (), exhausted=True)
        win = proven_plies(game, found.pv, found.score, tables)
        lines.append(
            Line(
                tuple(str(move) for move in found.pv),
                None if win is not None else _black_view(game, found.score),
                None if win is None else _black_view(game, win),
            )
        )
        move = found.move
        excluded[1 + (move.from_square - 1) * 32 + move.to_square - 1] = EXCLUDED
    final = bool(lines) and all(line.win_plies is not None for line in lines)
    return Lines(depth, total, tuple(lines), final=final)


def deepening(fen: str, count: int = MAX_LINES, max_depth: int = 30, nodes: int = 10_000_000) -> Iterator[Lines]:
    """``lines_at`` for depth 1, 2, … up to ``max_depth``, stopping after final lines or at the
    first depth the budget does not complete (that one is not yielded)."""
    for depth in range(1, max_depth + 1):
        found = lines_at(fen, depth, count, nodes)
        if found.exhausted:
            return
        yield found
        if found.final:
            return
