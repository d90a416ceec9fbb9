"""Endgame puzzles drawn from the endgame tables: positions where exactly one move wins.

The generator of engine games (``generator``) finds tactical shots; this finds the other kind of
puzzle, the ending where every move but one lets the win slip, which no search of the usual
depth can prove but the tables answer at once. A seeded random position of a chosen size
(``kingme.engine.egdb.bench.random_position``) makes a puzzle when, by the tables
(``analysis.table_scores``, the verifier's exact judge):

1. no capture is compulsory (a forced capture is no puzzle) and there are at least two moves;
2. material is about level, as for a generated puzzle (the solver at most a man behind and at
   most a king's worth of a man ahead), so the ending is a study, not a mop-up;
3. exactly one move wins — every other draws or loses, so there are no slower wins to list;
4. a shallow search (``SHALLOW_DEPTH``) does not already see that move win.

The line then goes on with the defender's longest defence as long as the solver again has
exactly one winning move, for at most ``solver_moves`` of them, and ends on a solver's move. So
it passes the verifier's exact verdict by construction: each solver's move is the only win (and
so the quickest), each defender's move the longest defence by distance to conversion. Without
the tables the verifier solves the ending instead and measures defences by distance to the end,
where a longest defence can differ; the one-move line (``solver_moves=1``) never depends on it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from kingme.daily.puzzles.analysis import DECISIVE, table_scores
from kingme.daily.puzzles.generator import about_level, difficulty, obvious, puzzle_id
from kingme.daily.puzzles.model import Puzzle
from kingme.engine import egdb
from kingme.engine.egdb.bench import random_position
from kingme.rules import Board, Move


def _only_win(tables: egdb.Tables, board: Board, quiet: int) -> Move | None:
    """The one move that wins, when exactly one does."""
    wins = [s.move for s in table_scores(tables, board, quiet) if s.score >= DECISIVE]
    return wins[0] if len(wins) == 1 else None


def _quiet_after(board: Board, move: Move, quiet: int) -> int:
    """The 80-ply count after ``move``: a king's step adds one, anything else starts afresh."""
    return quiet + 1 if (board.kings >> (move.from_square - 1)) & 1 and not move.captures else 0


def ending_line(tables: egdb.Tables, board: Board, solver_moves: int) -> list[Move] | None:
    """The line from ``board`` (see the module's steps), or ``None`` when no move or more than
    one wins there."""
    key = _only_win(tables, board, 0)
    if key is None:
        return None
    line = [key]
    quiet = _quiet_after(board, key, 0)
    board = board.copy()
    board.push(key)
    while len(line) < 2 * solver_moves - 1 and board.legal_moves():
        defence = table_scores(tables, board, quiet)[0].move
        defended = board.copy()
        defended.push(defence)
        defended_quiet = _quiet_after(board, defence, quiet)
        reply = _only_win(tables, defended, defended_quiet)
        if reply is None:
            break
        line += [defence, reply]
        quiet = _quiet_after(defended, reply, defended_quiet)
        defended.push(reply)
        board = defended
    return line


def ending_puzzle(tables: egdb.Tables, board: Board, solver_moves: int = 3) -> Puzzle | None:
    """The puzzle in ``board``, an ending the tables hold, if it is one (see the module's steps)."""
    moves = board.legal_moves()
    if len(moves) < 2 or any(move.captures for move in moves) or not about_level(board):
        return None
    line = ending_line(tables, board, solver_moves)
    if line is None or obvious(board, line[0]):
        return None
    fen = board.fen()
    title = f"{board.turn.capitalize()} to play and win"
    return Puzzle(puzzle_id(fen, "e"), fen, tuple(map(str, line)), title, "", difficulty(board, line[0], len(line)))


def ending_puzzles(tables: egdb.Tables, pieces: int, seed: int, solver_moves: int = 3) -> Iterator[Puzzle]:
    """Endgame puzzles of ``pieces`` pieces from random positions (``seed``), endlessly: the
    caller takes as many as it wants. A position found twice is returned once."""
    rng = random.Random(f"ending puzzles {pieces} {seed}")
    seen: set[str] = set()
    while True:
        board = Board()
        board.black, board.white, board.kings, board.black_to_move = random_position(rng, pieces)
        puzzle = ending_puzzle(tables, board, solver_moves)
        if puzzle is not None and puzzle.fen not in seen:
            seen.add(puzzle.fen)
            yield puzzle
