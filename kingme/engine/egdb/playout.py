"""Endings played out under the full game rules: the computer against the tables' best defence.

This is what ``kingme bench endings`` runs and what the issue's "done when" asks: from random won
positions the computer (``kingme.engine.choose_move`` at a level, exactly as the player uses it,
tables included) must win every game against a defender that plays the database's longest
defence; from random drawn positions it must never lose against an opponent that wanders among
the moves that keep the draw (so the games visit many positions instead of one line). Games are
``Game`` objects, so the 80-ply rule and threefold repetition end them as they would any game.

Positions are drawn with a seeded ``random.Random``, so a run is reproducible given the seed and
the same tables; a share of them has a man that can crown on the first move.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from kingme.engine.egdb.bench import random_position
from kingme.engine.egdb.database import Tables
from kingme.engine.egdb.moves import best_move, move_value, value
from kingme.engine.egdb.probe import DRAW, is_win
from kingme.engine.player import choose_move
from kingme.game import Game, Setup
from kingme.rules import Board, Color, Move, opponent

#: The outcomes a sample can be drawn for: the side to move (the computer) wins, or draws.
OUTCOMES = ("won", "drawn")


@dataclass(frozen=True)
class Playout:
    """One ending played out: where it started, what the tables said, how the game ended."""

    fen: str
    outcome: str
    winner: Color | None
    reason: str
    plies: int
    longest_quiet: int
    computer: Color

    @property
    def kept(self) -> bool:
        """The computer won a won ending, or did not lose a drawn one."""
        if self.outcome == "won":
            return self.winner == self.computer
        return self.winner != opponent(self.computer)


@dataclass(frozen=True)
class Summary:
    """The playouts of one outcome, counted the way the benchmark prints them."""

    outcome: str
    playouts: tuple[Playout, ...]

    @property
    def kept(self) -> int:
        return sum(playout.kept for playout in self.playouts)

    @property
    def failures(self) -> list[Playout]:
        return [playout for playout in self.playouts if not playout.kept]

    def reasons(self) -> Counter[str]:
        """How the games ended: ``"won"``, ``"lost"`` or the drawing rule (``"repetition"``, ...)."""
        return Counter(_ending(playout) for playout in self.playouts)


def _ending(playout: Playout) -> str:
    if playout.winner is None:
        return playout.reason
    return "won" if playout.winner == playout.computer else "lost"


def _crowns_now(board: Board) -> bool:
    return any(board.is_crowning(move) for move in board.legal_moves())


def sample(tables: Tables, rng: random.Random, pieces: int, outcome: str, count: int) -> list[Board]:
    """``count`` positions of exactly ``pieces`` pieces whose side to move wins (``"won"``) or
    draws (``"drawn"``) by the tables; every second one has a move that crowns a man."""
    found: list[Board] = []
    while len(found) < count:
        board = Board()
        board.black, board.white, board.kings, board.black_to_move = random_position(rng, pieces)
        if not board.legal_moves() or (len(found) % 2 == 1 and not _crowns_now(board)):
            continue
        result = value(tables, board)
        if is_win(result) if outcome == "won" else result == DRAW:
            found.append(board)
    return found


def _tables_move(tables: Tables, board: Board) -> Move:
    """The tables' best move (the longest defence of a loss) in a position that has a move."""
    move = best_move(tables, board)
    assert move is not None, "a game that is not over has a move"
    return move


def _drawing_move(tables: Tables, board: Board, rng: random.Random) -> Move:
    """A random move that keeps the draw (the tables' best move if none does)."""
    keeping = [move for move in board.legal_moves() if move_value(tables, board, move) == DRAW]
    return rng.choice(keeping) if keeping else _tables_move(tables, board)


def play_out(tables: Tables, board: Board, outcome: str, level: str, rng: random.Random) -> Playout:
    """Play ``board`` to the end: the side to move is the computer at ``level``; the other side
    plays the longest defence (a won ending) or a random drawing move (a drawn one)."""
    game = Game(Setup(fen=board.fen(), seed="endings"))
    computer = game.turn
    longest_quiet = 0
    while not game.is_over:
        if game.turn == computer:
            move = choose_move(game, level)
        elif outcome == "won":
            move = _tables_move(tables, game.board)
        else:
            move = _drawing_move(tables, game.board, rng)
        game.push(move)
        longest_quiet = max(longest_quiet, game.quiet_plies)
    assert game.result is not None
    return Playout(
        board.fen(), outcome, game.result.winner, game.result.reason, len(game.moves), longest_quiet, computer
    )


def run(tables: Tables, pieces: int, count: int, seed: int, level: str = "master") -> list[Summary]:
    """``count`` won and ``count`` drawn endings of ``pieces`` pieces played out at ``level``."""
    summaries = []
    for outcome in OUTCOMES:
        rng = random.Random(f"{seed} {pieces} {outcome}")
        boards = sample(tables, rng, pieces, outcome, count)
        playouts = tuple(play_out(tables, board, outcome, level, rng) for board in boards)
        summaries.append(Summary(outcome, playouts))
    return summaries
