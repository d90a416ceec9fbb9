"""The tactics suite: positions with one winning shot each, and a runner.

``data/tactics.json`` holds positions where exactly one move wins material — a sacrifice that
forces the opponent to capture and opens a two-for-one, a breakthrough to the king row, or a
sacrifice that forces a triple jump. Most were found in engine self-play, the triple jumps by
searching random positions for a sacrifice after which every forced reply allows a three-piece
jump. Each was then verified: the solution scores at least 0.8 of a man above every other move
at a search of 3,000,000 nodes (12 times the strong level's budget), recorded under
``verified``; ``line`` is the verified principal variation, and the jump shots' lines were read
through by hand. ``kingme bench engine`` reports how many each level solves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from kingme.engine.player import choose_move
from kingme.game import Game, Setup


@dataclass(frozen=True)
class Tactic:
    """A position (``fen``, side to move to play and win) and its one winning move."""

    name: str
    theme: str
    fen: str
    solution: str
    line: tuple[str, ...]

    def game(self) -> Game:
        return Game(Setup(fen=self.fen, seed="tactics"))


def load_tactics() -> list[Tactic]:
    data = json.loads(resources.files("kingme.engine").joinpath("data/tactics.json").read_text())
    return [Tactic(d["name"], d["theme"], d["fen"], d["solution"], tuple(d["line"])) for d in data]


def solves(tactic: Tactic, level: str) -> bool:
    """Whether ``level`` plays the solution (the whole route, for a capture)."""
    return str(choose_move(tactic.game(), level)) == tactic.solution
