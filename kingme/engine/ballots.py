"""The 3-move ballots: the standard openings of American checkers matches.

They are the ballots as pydraughts 0.6.7 ships them (``draughts/ballot_files/3move_english.json``,
its ``standard`` list of 157 openings, in file order), copied to ``data/three_move_ballots.txt``
so that kingme does not need pydraughts to run. Matches, self-play, the opening book and the
engine benchmark all start from them.
"""

from __future__ import annotations

from importlib import resources

from kingme.game import Game


def ballot_openings() -> list[tuple[str, list[str]]]:
    """The 3-move ballots: (name, three moves) in the file's order."""
    text = resources.files("kingme.engine").joinpath("data/three_move_ballots.txt").read_text()
    openings = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            number, *moves = line.split()
            openings.append((number, moves))
    return openings


def ballot_positions(count: int) -> list[Game]:
    """The positions after the first ``count`` ballots (White to move): the benchmark's."""
    return [Game(moves=moves) for _, moves in ballot_openings()[:count]]
