"""choose_move and hint: legal, repeatable, pure, and strict about their input."""

from __future__ import annotations

import subprocess
import sys

import pytest

import kingme
from kingme.engine import LEVELS, choose_move, hint
from kingme.engine.randomplay import pick_by_steps
from kingme.engine.seeding import SeededStream
from kingme.game import Game, Setup
from kingme.rules import KingmeError

OPENING = ["11-15", "23-19", "8-11", "22-17"]
# The black king on 11 jumps to 2 (and stops) or to 18, then on to 9 or to 25.
BRANCHING_FEN = "B:W7,12,14,15,16,20,22,31,K3,K4,K30:B6,K11"


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_game_level_and_seed_always_give_the_same_move(level: str) -> None:
    first = choose_move(Game(moves=OPENING), level)
    assert choose_move(Game(moves=OPENING), level) == first
    assert first in Game(moves=OPENING).legal_moves()


def test_a_fresh_process_chooses_the_same_moves() -> None:
    here = [str(choose_move(Game(moves=OPENING), level)) for level in LEVELS]
    code = (
        "import kingme, kingme.engine as e\n"
        f"print(' '.join(str(e.choose_move(kingme.Game(moves={OPENING!r}), l)) for l in e.LEVELS))"
    )
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert there == here


def test_the_seed_changes_the_choices_of_the_random_level() -> None:
    moves = {str(choose_move(Game(Setup(seed=f"seed-{i}")), "random")) for i in range(30)}
    assert len(moves) > 3


def test_choose_move_never_changes_the_game() -> None:
    game = Game(moves=OPENING)
    before = game.record()
    for level in LEVELS:
        choose_move(game, level)
    assert game.record() == before and game.board.fen() == Game(moves=OPENING).board.fen()


def test_an_unknown_level_is_refused_with_the_list_of_levels() -> None:
    with pytest.raises(KingmeError, match=r"unknown level 'grandmaster'.*random, beginner"):
        choose_move(Game(), "grandmaster")


@pytest.mark.parametrize("level", ["random", "master"])
def test_a_finished_game_is_refused(level: str) -> None:
    game = Game(Setup.named("double-jump"), ["9x18x27"])
    with pytest.raises(KingmeError, match="the game is over"):
        choose_move(game, level)
    with pytest.raises(KingmeError, match="the game is over"):
        hint(game)


def test_a_resigned_game_is_refused() -> None:
    game = Game()
    game.resign()
    with pytest.raises(KingmeError, match="over"):
        choose_move(game, "club")


def test_hint_gives_the_whole_capture_route_and_leaves_the_game_alone() -> None:
    game = Game(Setup.named("double-jump"))
    before = game.record()
    assert str(hint(game)) == "9x18x27"
    assert game.record() == before


def test_the_random_level_picks_each_jump_in_turn_among_the_continuations() -> None:
    board = kingme.Board(BRANCHING_FEN)
    moves = board.legal_moves()
    counts: dict[str, int] = {}
    for i in range(400):
        move = pick_by_steps(moves, SeededStream(f"walk-{i}"))
        counts[str(move)] = counts.get(str(move), 0) + 1
    assert set(counts) == {str(m) for m in moves}
    # Half the time the first jump goes to 2; choosing among whole routes would give it a third.
    assert abs(counts["11x2"] / 400 - 1 / 2) < 0.07
    assert abs(counts["11x18x9"] / 400 - 1 / 4) < 0.07


def test_the_random_level_can_stop_a_casual_capture_after_any_jump() -> None:
    game = Game(Setup("casual", "B:W14,23:B9"))
    chosen = {str(choose_move(Game(Setup("casual", "B:W14,23:B9", f"s{i}")), "random")) for i in range(40)}
    assert {"9x18", "9x18x27"} <= chosen
    assert chosen <= {str(m) for m in game.legal_moves()}


SMALL_ENDGAME = "B:W21,22,K30:B9,10,K3"


@pytest.mark.parametrize("variant", ["american", "casual"])
@pytest.mark.parametrize("level", [level for level in LEVELS if level != "master"])
def test_every_level_plays_a_game_legally_to_its_end(level: str, variant: str) -> None:
    game = Game(Setup(variant, SMALL_ENDGAME, "smoke"))
    while not game.is_over:
        game.push(choose_move(game, level))  # push refuses an illegal move
    assert game.result is not None


@pytest.mark.parametrize("variant", ["american", "casual"])
def test_master_plays_legal_moves_against_random_in_both_variants(variant: str) -> None:
    game = Game(Setup(variant, seed="smoke"))
    for _ in range(6):
        game.push(choose_move(game, "master" if game.turn == "black" else "random"))
    assert len(game.moves) == 6
