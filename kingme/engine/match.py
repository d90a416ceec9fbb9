"""Matches between two levels over the standard 3-move ballot openings.

The openings are the 3-move ballots of American checkers as pydraughts 0.6.7 ships them
(``draughts/ballot_files/3move_english.json``, its ``standard`` list of 157 openings, in file
order), copied to ``data/three_move_ballots.txt`` so that kingme does not need pydraughts to run.
Each opening is played twice, once with each level as Black, with the game's seed
naming the opening and the colours, so a match is exactly repeatable.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources

from kingme.engine.levels import check_level
from kingme.engine.player import choose_move, warm_up
from kingme.game import Game, Setup


def ballot_openings() -> list[tuple[str, list[str]]]:
    """The 3-move ballots: (name, three moves) in the file's order."""
    text = resources.files("kingme.engine").joinpath("data/three_move_ballots.txt").read_text()
    openings = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            number, *moves = line.split()
            openings.append((number, moves))
    return openings


@dataclass(frozen=True)
class GameTask:
    opening: tuple[str, ...]
    black: str
    white: str
    seed: str
    variant: str = "american"


def play_game(task: GameTask) -> str | None:
    """Play one game to its end under the rules; the winning colour, or ``None`` for a draw."""
    game = Game(Setup(task.variant, seed=task.seed), list(task.opening))
    while not game.is_over:
        game.push(choose_move(game, task.black if game.turn == "black" else task.white))
    return game.result.winner  # type: ignore[union-attr]


def _to_elo(score: float) -> float:
    if score <= 0 or score >= 1:
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


@dataclass(frozen=True)
class MatchResult:
    """Wins, draws and losses of level ``a`` against level ``b``."""

    a: str
    b: str
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """``a``'s share of the points (a draw is half a point)."""
        return (self.wins + self.draws / 2) / self.games

    def elo_interval(self) -> tuple[float, float, float]:
        """Elo difference of ``a`` over ``b`` and its 95% interval (low, high), from the standard
        error of the per-game score; a bound is infinite where the score interval reaches 0% or
        100%."""
        n, p = self.games, self.score
        variance = (self.wins * (1 - p) ** 2 + self.draws * (0.5 - p) ** 2 + self.losses * p**2) / n
        margin = 1.96 * math.sqrt(variance / n)
        return _to_elo(p), _to_elo(p - margin), _to_elo(p + margin)

    def elo(self) -> tuple[float, float]:
        """Elo difference and the half-width of its 95% interval (infinite if a bound is)."""
        elo, low, high = self.elo_interval()
        half_width = (high - low) / 2
        return elo, half_width if math.isfinite(half_width) else math.inf

    def describe_elo(self) -> str:
        """The Elo difference in words: ``+255 ± 155 (95%)``, or the finite bound when the
        interval is open."""
        elo, low, high = self.elo_interval()
        if math.isfinite(low) and math.isfinite(high):
            return f"{elo:+.0f} ± {(high - low) / 2:.0f} (95%)"
        if math.isfinite(low):
            return f"{elo:+.0f}, at least {low:+.0f} (95%)" if math.isfinite(elo) else f"at least {low:+.0f} (95%)"
        if math.isfinite(high):
            return f"{elo:+.0f}, at most {high:+.0f} (95%)" if math.isfinite(elo) else f"at most {high:+.0f} (95%)"
        return "not measurable: one side took every point"


def _tasks(a: str, b: str, openings: int, variant: str) -> Iterator[GameTask]:
    for number, moves in ballot_openings()[:openings]:
        yield GameTask(tuple(moves), a, b, f"ballot-{number}-a-black", variant)
        yield GameTask(tuple(moves), b, a, f"ballot-{number}-b-black", variant)


def run_match(
    a: str,
    b: str,
    openings: int,
    workers: int = 2,
    variant: str = "american",
    progress: Callable[[str], None] | None = None,
) -> MatchResult:
    """Play ``openings`` ballots twice each (colours reversed) between levels ``a`` and ``b``;
    ``progress`` is told about each game as it ends."""
    check_level(a)
    check_level(b)
    tasks = list(_tasks(a, b, openings, variant))
    winners: list[str | None] = []
    with contextlib.ExitStack() as stack:
        if workers > 1:
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(workers, initializer=warm_up))
            results: Iterator[str | None] = pool.imap(play_game, tasks, chunksize=1)
        else:
            results = map(play_game, tasks)
        for task, winner in zip(tasks, results, strict=True):
            winners.append(winner)
            if progress:
                outcome = "draw" if winner is None else f"{task.black if winner == 'black' else task.white} wins"
                progress(f"game {len(winners)}/{len(tasks)} ({task.seed}, {task.black} black): {outcome}")
    # Tasks alternate: ``a`` is Black in the even ones and White in the odd ones.
    a_colours = ["black" if i % 2 == 0 else "white" for i in range(len(tasks))]
    wins = sum(1 for colour, winner in zip(a_colours, winners, strict=True) if winner == colour)
    draws = winners.count(None)
    return MatchResult(a, b, wins, draws, len(tasks) - wins - draws)
