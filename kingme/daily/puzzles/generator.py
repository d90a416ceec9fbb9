"""Finding puzzles in engine games: positions where exactly one move wins and it is not obvious.

Games are played by the engine itself at weak levels (they leave shots on the board), each from
the standard position with the seed ``puzzles-N``, so a run is deterministic: the same budget
finds the same puzzles in the same order. A position becomes a puzzle when, in order of cost:

1. it has at least two legal moves and the solver is not ahead in material (at most a king's
   extra worth), at most a man behind;
2. a search at ``scan_depth`` finds a decisive score for the side to move;
3. scoring every move at ``scan_depth``, exactly one is decisive and every other stays near level;
4. a shallow search (``SHALLOW_DEPTH``) does not find it — not an obvious capture;
5. at the verification depth, the move is the only decisive one, every other a man below it,
   and so is every further solver move of the line (the defender answering with the engine's
   best reply), until the solver is a man up after the defender's best reply or the defender
   has no move left.

At most one puzzle is taken from each game, so the collection does not repeat one shot.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from kingme.daily.puzzles.analysis import (
    DECISIVE,
    MARGIN,
    NODE_BUDGET,
    QUIET,
    SHALLOW_DEPTH,
    VERIFY_DEPTH,
    Scored,
    best_reply,
    score_moves,
)
from kingme.daily.puzzles.model import Puzzle
from kingme.engine.analysis import analyse
from kingme.engine.levels import check_level
from kingme.engine.player import choose_move
from kingme.game import Game, Setup
from kingme.rules import Board, Color, Move

Progress = Callable[[int, int], None]

_MAN, _KING = 100, 130
_COLOUR = {"black": "Black", "white": "White"}


@dataclass(frozen=True)
class GeneratorBudget:
    """How much work a run may do; all counted in games, plies and depth, never in time."""

    games: int = 4000
    first_game: int = 0
    levels: tuple[str, str] = ("casual", "casual")
    first_ply: int = 6
    last_ply: int = 90
    scan_depth: int = 8
    line_depth: int = VERIFY_DEPTH
    solver_moves: int = 4

    def __post_init__(self) -> None:
        for level in self.levels:
            check_level(level)


def material(board: Board, side: Color) -> int:
    """``side``'s material minus the other side's, in hundredths of a man."""
    own, opp = (board.black, board.white) if side == "black" else (board.white, board.black)
    kings = (own & board.kings).bit_count() - (opp & board.kings).bit_count()
    return _MAN * (own.bit_count() - opp.bit_count()) + (_KING - _MAN) * kings


def puzzle_id(fen: str, kind: str = "g") -> str:
    """A stable id from the position: the same position is the same puzzle in every run
    (``kind`` "g" for a generated puzzle, "e" for an ending from the tables)."""
    return f"{kind}-" + hashlib.sha256(fen.encode()).hexdigest()[:10]


def about_level(board: Board) -> bool:
    """Whether the side to move is at most a man behind and at most a king's worth of a man
    ahead: a puzzle wins something, it does not mop up."""
    return -_MAN <= material(board, board.turn) <= _KING - _MAN


def obvious(board: Board, key: Move) -> bool:
    """Whether a shallow reader (``SHALLOW_DEPTH``) already sees ``key`` win: no puzzle then."""
    shallow = score_moves(board, SHALLOW_DEPTH)
    return shallow[0].move == key and shallow[0].score >= DECISIVE


def _clear_win(scored: list[Scored]) -> bool:
    """Exactly one decisive move, every other near level."""
    return scored[0].score >= DECISIVE and (len(scored) == 1 or scored[1].score <= QUIET)


def _only_win(scored: list[Scored]) -> bool:
    """One decisive move, every other short of decisive and a man (``MARGIN``) below it, so the
    line passes verification (``kingme.daily.puzzles.verifier``) with room to spare."""
    best, runner_up = scored[0].score, scored[1].score if len(scored) > 1 else None
    return best >= DECISIVE and (runner_up is None or (runner_up < DECISIVE and runner_up <= best - MARGIN))


def winning_line(board: Board, key: Move, depth: int, solver_moves: int) -> list[Move] | None:
    """The line from ``board`` starting with ``key``, if every solver move is the only win."""
    board = board.copy()
    solver = board.turn
    start = material(board, solver)
    line: list[Move] = []
    for number in range(solver_moves):
        scored = score_moves(board, depth)
        if not (_clear_win(scored) if number == 0 else _only_win(scored)) or (number == 0 and scored[0].move != key):
            return None
        board.push(scored[0].move)
        line.append(scored[0].move)
        if not board.legal_moves():
            return line
        reply = best_reply(board, depth)
        board.push(reply)
        if material(board, solver) - start >= _MAN:
            return line
        line.append(reply)
    return None


def difficulty(board: Board, key: Move, plies: int) -> str:
    """How hard the shot is to see: the shallowest search depth at which ``key`` stands out as the
    only win (easy by 5 plies, hard beyond 7), made harder by a long line."""
    seen_at = next(
        (depth for depth in (4, 5, 6, 7) if _clear_win(scored := score_moves(board, depth)) and scored[0].move == key),
        None,
    )
    if seen_at is None or plies >= 9:
        return "hard"
    return "easy" if seen_at <= 5 and plies <= 3 else "medium"


def _title(board: Board, line: list[Move]) -> str:
    solver = board.turn
    end = board.copy()
    for move in line:
        end.push(move)
    colour = _COLOUR[solver]
    if not end.legal_moves():
        return f"{colour} to play and win the game"
    gained = (material(end, solver) - material(board, solver)) // _MAN
    return f"{colour} to play and win {'a man' if gained <= 1 else f'{gained} men'}"


def find_puzzle(board: Board, budget: GeneratorBudget) -> Puzzle | None:
    """The puzzle in ``board``'s position, if it is one (see the module's steps)."""
    if len(board.legal_moves()) < 2 or not about_level(board):
        return None
    game = Game(Setup("american", board.fen(), "puzzle-analysis"))
    if analyse(game, budget.scan_depth, NODE_BUDGET).score < DECISIVE:
        return None
    scored = score_moves(board, budget.scan_depth)
    if not _clear_win(scored):
        return None
    key = scored[0].move
    if obvious(board, key):
        return None
    line = winning_line(board, key, budget.line_depth, budget.solver_moves)
    if line is None:
        return None
    fen = board.fen()
    level = difficulty(board, key, len(line))
    return Puzzle(puzzle_id(fen), fen, tuple(map(str, line)), _title(board, line), "", level)


def game_positions(number: int, budget: GeneratorBudget) -> Iterator[Board]:
    """The positions of engine game ``number`` (seed ``puzzles-N``) from ``first_ply`` on."""
    game = Game(Setup(seed=f"puzzles-{number}"))
    while not game.is_over and len(game.moves) < budget.last_ply:
        if len(game.moves) >= budget.first_ply:
            yield game.board.copy()
        level = budget.levels[0] if game.turn == "black" else budget.levels[1]
        game.push(choose_move(game, level))


def generate(
    count: int, budget: GeneratorBudget, known: Iterable[Puzzle] = (), progress: Progress | None = None
) -> Iterator[tuple[int, Puzzle]]:
    """Up to ``count`` new puzzles from the games of ``budget``, each as soon as it is found with
    the number of its game (a stopped run resumes after it), skipping positions in ``known``."""
    seen = {puzzle.fen for puzzle in known}
    found = 0
    for number in range(budget.first_game, budget.first_game + budget.games):
        for board in game_positions(number, budget):
            puzzle = find_puzzle(board, budget)
            if puzzle is not None and puzzle.fen not in seen:
                seen.add(puzzle.fen)
                found += 1
                yield number, puzzle
                break
        if progress:
            progress(found, count)
        if found >= count:
            return
