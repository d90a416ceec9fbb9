"""The tactics suite: positions with one winning shot each, and a runner.

``data/tactics.json`` holds positions where exactly one move wins material — a sacrifice that
forces the opponent to capture and opens a two-for-one, a breakthrough to the king row, or a
long multi-jump. Each was found in engine self-play, then verified: the solution scores at
least 0.8 of a man above every other move at a search far deeper than the strong level's,
and the line was read through by hand (the ``line`` field is the verified principal
variation). ``kingme bench engine`` reports how many each level solves.
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
