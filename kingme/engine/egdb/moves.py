"""Moves judged by the database: what a hint or the computer plays in a database position."""

from __future__ import annotations

from kingme.engine.egdb.database import Tables
from kingme.engine.egdb.probe import DRAW, LOSS, WIN, is_loss, is_win, plies, probe
from kingme.rules import Board, Move


def value(tables: Tables, board: Board) -> int:
    """``probe`` of a board (see the package docstring for the value)."""
    return probe(tables.offsets, tables.values, board.black, board.white, board.kings, board.black_to_move)


def move_value(tables: Tables, board: Board, move: Move) -> int:
    """The value of playing ``move`` for the side playing it: the reply's loss is its win and
    the other way round; a capture or a man's move converts (one ply), a king's step takes one
    ply more than the reply's distance."""
    child = board.copy()
    child.push(move)
    reply = value(tables, child)
    king_step = (board.kings >> (move.from_square - 1)) & 1 and not move.captures
    distance = plies(reply) + 1 if king_step else 1
    if is_loss(reply):
        return WIN + distance
    if is_win(reply):
        return LOSS + distance
    return reply


def best_move(tables: Tables, board: Board) -> Move | None:
    """The fastest conversion that keeps a win, else a drawing move, else the longest defence
    (the first such move in ``legal_moves`` order); ``None`` without a legal move."""

    def preference(move: Move) -> tuple[int, int]:
        result = move_value(tables, board, move)
        if is_win(result):
            return 0, plies(result)
        if result == DRAW:
            return 1, 0
        return (2, -plies(result)) if result >= LOSS else (3, 0)

    return min(board.legal_moves(), key=preference, default=None)
