"""``review_game``: every move of a game judged by one engine search per position.

Position ``i`` of a game is the position after its ``i`` first moves (0: the start). Its search
gives two things at once: the evaluation *after* move ``i`` and the engine's move and line
*before* move ``i + 1``; so a game of ``n`` plies costs ``n + 1`` searches, not ``2n``. A move's
loss compares its mover's win chance before it (position ``i - 1``) and after it (position
``i``), and is nothing when the move is the engine's own: two searches of different positions see
different horizons, and the engine's move cannot be a mistake by the engine's own judgement.

Every search has a node budget (``BUDGETS``), never a time limit, and a fresh transposition
table: a review of a game is the same on every machine, on every run, and whichever worker does
which position — the server runs positions in several engine workers at once.

A search needs only its position: ``Position`` carries the position after the game's last
capture or man's move and the king moves since (which the repetition and 80-ply rules look back
on), so a worker never replays the whole game and positions can be searched in any order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from kingme.engine.analysis import analyse, endgame_tables
from kingme.game import Game, Setup
from kingme.review.budgets import Budget, ReviewError
from kingme.review.judgement import move_accuracy, side_accuracy, verdict, volatility_weights
from kingme.review.lines import proven_plies
from kingme.review.winchance import is_decided, win_chance
from kingme.rules import Board, Move

#: The longest game reviewed: real games end within 200 plies (self-play calls 220 a draw), and
#: 400 plies at the deep budget keep a worker busy for about ten minutes. The rules allow games of
#: thousands of plies; reviewing one would hold the queue for hours.
MAX_REVIEW_PLIES = 400
#: Iterations at most: the node budget ends every search long before.
MAX_DEPTH = 60
#: The verdicts counted in a game's summary.
COUNTED = ("inaccuracy", "mistake", "blunder")


def check_reviewable(game: Game) -> None:
    """``ReviewError`` for a game without moves or longer than ``MAX_REVIEW_PLIES``."""
    if not game.moves:
        raise ReviewError("the game has no moves to review")
    if len(game.moves) > MAX_REVIEW_PLIES:
        raise ReviewError(f"the game has {len(game.moves):,} plies; at most {MAX_REVIEW_PLIES} are reviewed")


@dataclass(frozen=True)
class Position:
    """A position of a game as a search needs it: the ``variant``, the position after the last
    capture or man's move (``fen``) and the king moves played since (``moves``)."""

    variant: str
    fen: str
    moves: tuple[str, ...]

    def game(self) -> Game:
        return Game(Setup(self.variant, self.fen), self.moves)


def positions(setup: Setup, moves: Sequence[Move]) -> list[Position]:
    """The ``len(moves) + 1`` positions of the game from ``setup`` through ``moves`` (legal)."""
    board = Board(setup.fen, setup.variant)
    start, quiet = board.fen(), list[str]()
    found = [Position(setup.variant, start, ())]
    for move in moves:
        king_moved = bool(board.kings >> (move.from_square - 1) & 1)
        board.push(move)
        if move.is_capture or not king_moved:
            start, quiet = board.fen(), []
        else:
            quiet.append(str(move))
        found.append(Position(setup.variant, start, tuple(quiet)))
    return found


@dataclass(frozen=True)
class Evaluation:
    """A position's value from Black's view (Black moves first): ``score`` in hundredths of a man,
    ``win`` Black's win chance (0…100) and ``table_plies`` a certain win in so many plies
    (positive: Black wins, negative: White wins; from the endgame tables, or a win the search saw
    to the end). ``score`` is ``None`` when the result is certain: then ``table_plies`` says in
    how many plies, or, in a finished game, is ``None`` too and ``win`` says who won."""

    score: int | None
    win: float
    table_plies: int | None

    def to_dict(self) -> dict[str, Any]:
        return {"score": self.score, "win": round(self.win, 1), "table_plies": self.table_plies}


@dataclass(frozen=True)
class PositionSearch:
    """One position searched: its ``evaluation`` (Black's view), who is to move, and the engine's
    move and line there (``None`` and ``()`` when the game is over)."""

    black_to_move: bool
    evaluation: Evaluation
    best: Move | None
    line: tuple[Move, ...]

    @property
    def mover_win(self) -> float:
        """The side to move's win chance."""
        return self.evaluation.win if self.black_to_move else 100.0 - self.evaluation.win


def _finished(game: Game) -> PositionSearch:
    """A position where the game is over by the rules: no search, its result."""
    assert game.result is not None
    winner = game.result.winner
    if winner is None:
        return PositionSearch(game.board.black_to_move, Evaluation(0, 50.0, None), None, ())
    return PositionSearch(
        game.board.black_to_move, Evaluation(None, 100.0 if winner == "black" else 0.0, None), None, ()
    )


def search_position(position: Position, budget: Budget) -> PositionSearch:
    """Search ``position`` within ``budget`` (the endgame tables decide where they hold it): the
    work one engine worker does for a review, a pure function of its arguments."""
    game = position.game()
    if game.is_over:
        return _finished(game)
    result = analyse(game, MAX_DEPTH, budget.nodes, table_bits=budget.table_bits, endings=True)
    black = game.board.black_to_move
    side = 1 if black else -1
    plies = proven_plies(game, result.pv, result.score, endgame_tables())
    if plies is not None:
        evaluation = Evaluation(None, 100.0 if side * plies > 0 else 0.0, side * plies)
    else:
        score = 0 if is_decided(result.score) else result.score  # a table win the 80-ply rule draws
        evaluation = Evaluation(side * score, win_chance(side * score), None)
    return PositionSearch(black, evaluation, result.move, result.pv)


def _same(a: Move, b: Move) -> bool:
    """Whether two moves leave the same position (two routes taking the same pieces do)."""
    return (a.from_square, a.to_square, set(a.captures)) == (b.from_square, b.to_square, set(b.captures))


@dataclass(frozen=True)
class PlyReview:
    """One move judged: ``ply`` (1 for the first move), its ``side``, the ``move`` played, the
    ``evaluation`` after it, the engine's ``best`` move before it when it differs, the engine's
    ``line`` from the position before, the points of win chance the mover ``loss``, the
    ``verdict``, the move's ``accuracy``; a ``forced`` move (the only legal one) is never judged
    and is left out of the side's accuracy."""

    ply: int
    side: str
    move: Move
    evaluation: Evaluation
    best: Move | None
    line: tuple[Move, ...]
    loss: float
    verdict: str | None
    accuracy: float
    forced: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "side": self.side,
            "move": str(self.move),
            "eval": self.evaluation.to_dict(),
            "best": str(self.best) if self.best else None,
            "line": [str(move) for move in self.line],
            "loss": round(self.loss, 1),
            "verdict": self.verdict,
            "accuracy": round(self.accuracy, 1),
            "forced": self.forced,
        }


@dataclass(frozen=True)
class GameReview:
    """The game's summary: the ``initial`` position's evaluation, each side's ``accuracy``
    (``None`` for a side without a judged move) and its ``counts`` of inaccuracies, mistakes and
    blunders."""

    initial: Evaluation
    accuracy: dict[str, float | None]
    counts: dict[str, dict[str, int]]

    def to_dict(self) -> dict[str, Any]:
        accuracy = {side: None if value is None else round(value, 1) for side, value in self.accuracy.items()}
        return {"accuracy": accuracy, "counts": self.counts}


def judge_move(ply: int, move: Move, before: PositionSearch, after: PositionSearch, forced: bool) -> PlyReview:
    """Move ``ply`` (``move``) judged from the searches of the positions before and after it."""
    best = before.best
    engine_move = best is not None and _same(best, move)
    mover_after = 100.0 - after.mover_win  # the side to move after the move is the mover's opponent
    loss = 0.0 if engine_move or forced else max(0.0, before.mover_win - mover_after)
    side = "black" if before.black_to_move else "white"
    shown_best = None if engine_move else best
    return PlyReview(
        ply,
        side,
        move,
        after.evaluation,
        shown_best,
        before.line,
        loss,
        None if forced else verdict(loss),
        move_accuracy(loss),
        forced,
    )


class Reviewer:
    """Builds a game's review from its positions' searches, given in order: ``add`` returns each
    move's ``PlyReview`` as soon as the search after it arrives, ``summary`` the ``GameReview``.
    The server searches several positions at once and feeds them in as they complete in order."""

    def __init__(self, game: Game) -> None:
        self.setup, self.moves = game.setup, list(game.moves)
        self.positions = positions(self.setup, self.moves)
        replay = Board(self.setup.fen, self.setup.variant)
        self._forced: list[bool] = []
        for move in self.moves:
            self._forced.append(len(replay.legal_moves()) == 1)
            replay.push(move)
        self.searches: list[PositionSearch] = []
        self.plies: list[PlyReview] = []

    def add(self, search: PositionSearch) -> PlyReview | None:
        """Take the next position's search; the move it completes, if any (the start completes none)."""
        self.searches.append(search)
        if len(self.searches) == 1:
            return None
        ply = len(self.searches) - 1
        review = judge_move(ply, self.moves[ply - 1], self.searches[-2], search, self._forced[ply - 1])
        self.plies.append(review)
        return review

    def summary(self) -> GameReview:
        """Each side's accuracy and verdict counts (every position searched)."""
        weights = volatility_weights([search.evaluation.win for search in self.searches])
        accuracy: dict[str, float | None] = {}
        counts: dict[str, dict[str, int]] = {}
        for side in ("black", "white"):
            judged = [(p, w) for p, w in zip(self.plies, weights, strict=True) if p.side == side and not p.forced]
            accuracy[side] = side_accuracy([p.accuracy for p, _ in judged], [w for _, w in judged])
            counts[side] = {name: sum(1 for p, _ in judged if p.verdict == name) for name in COUNTED}
        return GameReview(self.searches[0].evaluation, accuracy, counts)


#: Searches a position within a budget: ``search_position``, or its run in an engine worker.
Search = Callable[[Position, Budget], PositionSearch]


def review_game(game: Game, budget: Budget, search: Search = search_position) -> Iterator[PlyReview | GameReview]:
    """Every move of ``game`` judged, in order, then the summary; ``ReviewError`` before any search
    for a game without moves or too long."""
    check_reviewable(game)
    reviewer = Reviewer(game)
    for position in reviewer.positions:
        judged = reviewer.add(search(position, budget))
        if judged is not None:
            yield judged
    yield reviewer.summary()


#: A move proposed instead of a mistake counts as found when its mover's win chance is at most
#: this many points below the engine's best (lichess's margin; under an inaccuracy's 5).
FOUND_WITHIN = 4.0


@dataclass(frozen=True)
class Attempt:
    """A move proposed instead of a game's move: whether it is ``found`` (good enough), the points
    of win chance it ``loss``, and the engine's ``best`` move and ``line`` there."""

    found: bool
    loss: float
    best: Move | None
    line: tuple[Move, ...]

    def to_dict(self) -> dict[str, Any]:
        best = str(self.best) if self.best else None
        return {"found": self.found, "loss": round(self.loss, 1), "best": best, "line": [str(m) for m in self.line]}


def attempt_positions(game: Game, ply: int, text: str) -> tuple[Position, Position, Move]:
    """The positions before ply ``ply`` of ``game`` and after ``text`` played there instead, and
    the move ``text`` reads as; ``ReviewError`` for a ply the game does not have,
    ``IllegalMoveError`` for a move not legal there."""
    if not 1 <= ply <= len(game.moves):
        raise ReviewError(f"ply {ply} is not a move of this game, which has plies 1 to {len(game.moves)}")
    earlier = game.moves[: ply - 1]
    proposed = Game(game.setup, earlier).board.parse_move(text)
    before, after = positions(game.setup, [*earlier, proposed])[-2:]
    return before, after, proposed


def judge_attempt(proposed: Move, played: Move, before: PositionSearch, after: PositionSearch) -> Attempt:
    """``proposed`` instead of the game's move ``played``, judged from the searches of the position
    before and after it; the game's own move is never found."""
    loss = judge_move(1, proposed, before, after, forced=False).loss
    return Attempt(not _same(proposed, played) and loss <= FOUND_WITHIN, loss, before.best, before.line)
