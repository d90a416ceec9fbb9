"""The tactics suite: well-formed positions with one winning move, which the top levels find."""

from __future__ import annotations

import pytest

from kingme.engine.tactics import load_tactics, solves
from kingme.game import Game, Setup

TACTICS = load_tactics()


def test_the_suite_has_a_dozen_positions_with_several_themes() -> None:
    assert len(TACTICS) >= 12
    assert len({t.theme for t in TACTICS}) >= 4
    assert any("two-for-one" in t.theme for t in TACTICS)


@pytest.mark.parametrize("tactic", TACTICS, ids=lambda t: t.name)
def test_each_solution_and_its_line_are_legal(tactic) -> None:
    game = Game(Setup(fen=tactic.fen))
    assert tactic.line[0] == tactic.solution
    for move in tactic.line:
        assert str(game.push(move)) == move


@pytest.mark.parametrize("tactic", TACTICS[:4], ids=lambda t: t.name)
def test_the_strong_level_finds_the_shot(tactic) -> None:
    assert solves(tactic, "strong")
