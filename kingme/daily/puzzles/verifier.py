"""Re-solving stored puzzles: every solver's move must win, and no other move come close.

A puzzle is rejected when, at any point of its line where the solver is to move, the line's
move does not win at least a man at the verification depth (unless it is still the only good
move, ``AHEAD`` with every other move a man below it), or another move wins a man too and
scores within a man of it (a second solution; see ``WINS`` and ``MARGIN``) and the puzzle does
not list it among the moves that also win (``Puzzle.also_wins``; each listed one must still win
a man, so the list cannot hide a move that has stopped winning). The defender's
replies need no check of their own: a better defence would show up as the solver's previous
move no longer winning. Small endings the search cannot prove are judged exactly — from the
engine's endgame tables when it has them for the ending, else solved — and there the defence is
checked too (see ``judge``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

from kingme.daily.puzzles.analysis import (
    AHEAD,
    DECISIVE,
    DEEPER_DEPTHS,
    MARGIN,
    VERIFY_DEPTH,
    WINS,
    Scored,
    database_tables,
    exact_scores,
    exact_table,
    score_moves,
    table_scores,
)
from kingme.daily.puzzles.model import Puzzle
from kingme.engine.search import MATE
from kingme.rules import Board

Progress = Callable[[int, int], None]
#: ``scores(board, quiet)``: each legal move's exact score, best first (``exact_scores`` or
#: ``table_scores``), ``quiet`` the plies of the 80-ply count since the puzzle's start.
ExactScores = Callable[[Board, int], list[Scored]]


@dataclass(frozen=True)
class Verdict:
    """What verification found: the first failing ply and why (or ``None``), and, when the line
    was judged exactly, the other moves that win too, more slowly, at each solver's move checked."""

    failure: tuple[int, str] | None
    slower: tuple[tuple[str, ...], ...] = ()


def judge(
    fen: str,
    line: Sequence[str],
    depth: int = VERIFY_DEPTH,
    also_wins: Sequence[Sequence[str]] = (),
    exact: bool = False,
) -> Verdict:
    """Check ``line`` from ``fen``: each solver's move must be the only win, besides the moves
    ``also_wins`` lists for it (full paths, one list per solver's move, or none), which must win.

    The search at ``depth`` judges first; a line it rejects is searched again at each of
    ``DEEPER_DEPTHS`` in turn while it still fails, and the deepest verdict stands (a deeper
    search sees more of a quiet win and tells a second solution apart more surely; only the few
    lines in doubt pay for it). An ending none of them can prove is then judged exactly: from
    the engine's endgame tables when they hold it (a lookup per move: the six-piece classics in
    seconds), else solved when small enough (``exact_table``; First and Second Position are, in
    minutes for six pieces).

    ``exact`` skips the search: a study of an ending (``Puzzle.slower``) is judged exactly
    whatever the search would say, as only that judgement lists its slower wins — and with the
    larger tables the search, probing them, proves some of these lines by itself.
    """
    if exact:
        failure: tuple[int, str] | None = (0, "the ending is too large to judge exactly")
    else:
        failure = _search_failure(Board(fen), line, depth, also_wins)
        for deeper in (d for d in DEEPER_DEPTHS if d > depth):
            if failure is None:
                break
            failure = _search_failure(Board(fen), line, deeper, also_wins)
        if failure is None:
            return Verdict(None)
    tables = database_tables(Board(fen))
    if tables is not None:
        return _exact_verdict(partial(table_scores, tables), ", converting in", Board(fen), line)
    table = exact_table(Board(fen))
    if table is None:
        return Verdict(failure)
    return _exact_verdict(lambda board, _: exact_scores(table, board), " in", Board(fen), line)


def _search_failure(
    board: Board, line: Sequence[str], depth: int, also_wins: Sequence[Sequence[str]]
) -> tuple[int, str] | None:
    """Every solver's move must win at ``depth`` (or be the only good move), and beat by
    ``MARGIN`` every other move that wins and is not listed in ``also_wins``; every listed move
    must win too."""
    for ply, text in enumerate(line):
        move = board.parse_move(text)
        if ply % 2 == 0:
            number = ply // 2 + 1
            scored = score_moves(board, depth)
            score = next(s.score for s in scored if s.move == move)
            only_good = score >= AHEAD and all(s.score <= score - MARGIN for s in scored if s.move != move)
            if score < WINS and not only_good:
                return ply, f"solver's move {number} ({move}) does not win at depth {depth} (score {score})"
            listed = set(also_wins[ply // 2]) if also_wins else set()
            lost = next((s for s in scored if str(s.move) in listed and s.score < WINS), None)
            if lost:
                return ply, (
                    f"{lost.move}, listed as also winning at solver's move {number}, does not win at depth {depth} "
                    f"(score {lost.score})"
                )
            unlisted = (s for s in scored if s.move != move and str(s.move) not in listed)
            other = next((s for s in unlisted if s.score >= WINS and s.score > score - MARGIN), None)
            if other:
                than = "more than" if other.score > score else f"within {MARGIN} of"
                return ply, (
                    f"second solution at solver's move {number}: {other.move} also wins ({other.score}), "
                    f"{than} {move}'s {score}"
                )
        board.push(move)
    return None


def _exact_verdict(scores: ExactScores, measure: str, board: Board, line: Sequence[str]) -> Verdict:
    """Every solver's move must be the quickest win, with no other move as quick (slower wins are
    the same technique with waste, not a second solution), and every defender's move must hold
    out longest, by ``scores`` (whose distance ``measure`` names in a second solution's reason:
    " in" plies to the end, or ", converting in")."""
    slower: list[tuple[str, ...]] = []
    quiet = 0
    for ply, text in enumerate(line):
        move = board.parse_move(text)
        number = ply // 2 + 1
        scored = scores(board, quiet)
        score = next(s.score for s in scored if s.move == move)
        if ply % 2 == 0:
            if score < DECISIVE:
                outcome = "a draw" if score == 0 else "a loss"
                reason = f"solver's move {number} ({move}) does not win: it is {outcome} with best play"
                return Verdict((ply, reason), tuple(slower))
            other = next((s for s in scored if s.move != move and s.score >= score), None)
            if other:
                reason = (
                    f"second solution at solver's move {number}: {other.move} wins{measure} {MATE - other.score} plies"
                )
                return Verdict((ply, reason), tuple(slower))
            slower.append(tuple(str(s.move) for s in scored if s.move != move and s.score >= DECISIVE))
        elif scored[0].score > score:
            reason = f"defender's move {number} ({move}) is not the best defence: {scored[0].move} holds out longer"
            return Verdict((ply, reason), tuple(slower))
        king_step = (board.kings >> (move.from_square - 1)) & 1 and not move.captures
        quiet = quiet + 1 if king_step else 0
        board.push(move)
    return Verdict(None, tuple(slower))


def check_line(fen: str, line: Sequence[str], depth: int = VERIFY_DEPTH) -> str | None:
    """Why the line from ``fen`` is not a sound one-solution puzzle, or ``None`` if it is."""
    failure = judge(fen, line, depth).failure
    return failure[1] if failure else None


def check_puzzle(puzzle: Puzzle, depth: int = VERIFY_DEPTH) -> str | None:
    """Why ``puzzle`` is rejected, or ``None`` when it verifies (its slower wins and the moves it
    lists as also winning included; the slower wins in any order, as the tables and the solver
    rank them by different distances). A puzzle listing slower wins is judged exactly."""
    verdict = judge(puzzle.fen, puzzle.solution, depth, puzzle.also_wins, exact=bool(puzzle.slower))
    if verdict.failure:
        return verdict.failure[1]
    if puzzle.slower and [set(moves) for moves in puzzle.slower] != [set(moves) for moves in verdict.slower]:
        return f"its slower wins {puzzle.slower} are not those of the exact solution {verdict.slower}"[:300]
    return None


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
