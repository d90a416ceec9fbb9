"""Re-solving stored puzzles: every solver's move must win, and no other move may.

A puzzle is rejected when, at any point of its line where the solver is to move, the line's
move does not win decisively at the verification depth, or another move does too (a second
solution). The defender's replies need no check of their own: a better defence would show up
as the solver's previous move no longer winning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kingme.engine.puzzles.analysis import DECISIVE, VERIFY_DEPTH, score_moves
from kingme.engine.puzzles.model import Puzzle
from kingme.rules import Board

Progress = Callable[[int, int], None]


def first_failure(fen: str, line: Sequence[str], depth: int = VERIFY_DEPTH) -> tuple[int, str] | None:
    """The first ply of ``line`` where the solver's move is not the only win, and why; else ``None``."""
    board = Board(fen)
    for ply, text in enumerate(line):
        move = board.parse_move(text)
        if ply % 2 == 0:
            number = ply // 2 + 1
            scored = score_moves(board, depth)
            score = next(s.score for s in scored if s.move == move)
            if score < DECISIVE:
                return ply, f"solver's move {number} ({move}) does not win at depth {depth} (score {score})"
            other = next((s for s in scored if s.move != move and s.score >= DECISIVE), None)
            if other:
                return ply, f"second solution at solver's move {number}: {other.move} also wins (score {other.score})"
        board.push(move)
    return None


def check_line(fen: str, line: Sequence[str], depth: int = VERIFY_DEPTH) -> str | None:
    """Why the line from ``fen`` is not a sound one-solution puzzle, or ``None`` if it is."""
    failure = first_failure(fen, line, depth)
    return failure[1] if failure else None


def check_puzzle(puzzle: Puzzle, depth: int = VERIFY_DEPTH) -> str | None:
    """Why ``puzzle`` is rejected, or ``None`` when it verifies."""
    return check_line(puzzle.fen, puzzle.solution, depth)


def verify(
    puzzles: Iterable[Puzzle], progress: Progress | None = None, depth: int = VERIFY_DEPTH
) -> list[tuple[str, str]]:
    """``(id, reason)`` for every puzzle that fails, after solving each one again."""
    puzzles = list(puzzles)
    failures = []
    for done, puzzle in enumerate(puzzles, start=1):
        reason = check_puzzle(puzzle, depth)
        if reason is not None:
            failures.append((puzzle.id, reason))
        if progress:
            progress(done, len(puzzles))
    return failures
