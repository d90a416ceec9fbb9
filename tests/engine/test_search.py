"""The search and evaluation: colour-blind, budget-bound, and reading captures to the end."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kingme.engine import choose_move, network
from kingme.engine.addresses import address_of, prefetch
from kingme.engine.analysis import analyse
from kingme.engine.evaluation import evaluate
from kingme.engine.movegen import MOVE_SIZE, generate, moves_base, play
from kingme.engine.search import (
    FUTILITY_DEPTH,
    FUTILITY_MARGIN,
    INFINITY,
    LOWER,
    TRUNCATION_MOST,
    TRUNCATION_STEP,
    UPPER,
    _forcing,
    _futility,
    _store,
    _transposition_cutoff,
    _truncation,
    new_work,
    position_key,
    search_root,
)
from kingme.game import Game, Setup
from kingme.rules import Board
from tests.engine.random_positions import random_board


def _scratch() -> np.ndarray:
    """What the search lends the evaluation network."""
    return network.scratch()


def _turned(mask: int) -> int:
    return int(f"{mask:032b}"[::-1], 2)


def test_the_evaluation_is_the_same_for_either_colour_on_the_turned_board() -> None:
    rng = random.Random("symmetry")
    for _ in range(500):
        board = random_board(rng, "american")
        own, opp = board.sides()
        for full in (False, True):
            here = evaluate(own, opp, board.kings, board.black_to_move, full, _scratch())
            there = evaluate(
                _turned(own), _turned(opp), _turned(board.kings), not board.black_to_move, full, _scratch()
            )
            assert here == there, board.fen()


def test_a_search_never_exceeds_its_node_budget_and_reports_what_it_did() -> None:
    result = analyse(Game(), depth=30, nodes=20_000)
    assert result.nodes <= 20_000
    assert 1 <= result.depth < 30
    assert result.pv[0] == result.move


def test_a_shallow_search_still_reads_a_forced_capture_sequence_to_the_end() -> None:
    # Black's double jump takes White's last two pieces: a won game, which depth 1 only sees
    # because the search goes on while captures are available.
    game = Game(Setup(fen="B:W14,23:B9"))
    result = analyse(game, depth=1, nodes=1_000)
    assert str(result.move) == "9x18x27"
    assert result.score > 25_000


def test_the_side_ahead_in_material_gets_a_positive_score() -> None:
    game = Game(Setup(fen="B:W22-32:B1-12"))
    assert analyse(game, depth=6, nodes=100_000).score > 50


def test_two_kings_drive_a_lone_king_out_of_the_double_corner_and_win() -> None:
    game = Game(Setup(fen="B:WK32:BK14,K19", seed="endgame"))
    while not game.is_over:
        game.push(choose_move(game, "strong"))
    assert game.result is not None and game.result.winner == "black"
    assert len(game.moves) < 40  # well inside the 80-ply no-progress limit


def test_a_scout_node_far_outside_its_window_is_searched_shallower_but_never_below_one_ply() -> None:
    alpha, beta = 0, 1
    assert _truncation(beta + TRUNCATION_STEP - 1, alpha, beta, 8) == 0  # close: full depth
    assert _truncation(beta + TRUNCATION_STEP, alpha, beta, 8) == 1  # a step above: a ply less
    assert _truncation(alpha - 2 * TRUNCATION_STEP, alpha, beta, 8) == 2  # as far below: two
    assert _truncation(beta + 100 * TRUNCATION_STEP, alpha, beta, 8) == TRUNCATION_MOST
    assert _truncation(beta + 100 * TRUNCATION_STEP, alpha, beta, 2) == 1  # one ply is always left


def test_a_scout_node_hopelessly_below_alpha_near_the_leaves_prunes_its_quiet_moves() -> None:
    alpha = 0
    below = alpha - FUTILITY_MARGIN  # a man under alpha with one ply left: futile
    assert _futility(below, alpha, 1) == alpha  # fails low with the margin's bound
    assert _futility(below + 1, alpha, 1) == -INFINITY  # within the margin: searched
    assert _futility(below, alpha, 2) == -INFINITY  # the margin grows with the plies left
    assert _futility(alpha - 2 * FUTILITY_MARGIN, alpha, 2) == alpha
    assert _futility(-100 * FUTILITY_MARGIN, alpha, FUTILITY_DEPTH + 1) == -INFINITY  # too deep


def test_a_quiet_move_that_crowns_or_threatens_a_capture_is_never_futile() -> None:
    board = Game(Setup(fen="B:W18:B1,10,27")).board
    own, opp = board.sides()
    work, base = new_work(10), moves_base(0)
    forcing = {}
    for k in range(generate(own, opp, 0, True, True, work, base)):
        origin, target, captured = work[base + k * MOVE_SIZE : base + k * MOVE_SIZE + 3]
        replier, mover, new_kings = play(own, opp, 0, True, origin, target, captured)  # seen from White
        name = f"{int(origin).bit_length()}-{int(target).bit_length()}"
        forcing[name] = bool(_forcing(mover, replier, new_kings, new_kings != 0, True))
    assert forcing == {
        "1-5": False,
        "1-6": False,
        "10-14": True,  # threatens 14x23 over 18
        "10-15": True,  # threatens 15x22 over 18
        "27-31": True,  # crowns
        "27-32": True,
    }


def test_the_table_cuts_a_node_off_when_it_already_proves_one_of_its_moves_good_enough() -> None:
    own, opp = Board().sides()
    kings, black, ply, depth, beta = 0, True, 1, 5, 100
    base = moves_base(ply)

    def cuts(flag: int, stored_depth: int, score: int) -> bool:
        work = new_work(10)
        generate(own, opp, kings, black, True, work, base)
        last = base + 6 * MOVE_SIZE  # the seventh and last of the start position's moves
        child = play(own, opp, kings, black, work[last], work[last + 1], work[last + 2])
        _store(work, position_key(*child, not black), stored_depth, flag, score, 0, ply + 1)
        return bool(
            _transposition_cutoff(
                work, address_of(work, np.int64), base, 7, own, opp, kings, black, depth, beta, ply, 0
            )
        )

    assert cuts(UPPER, depth - 1, -beta)  # the reply is proved to score at most -beta: a cutoff
    assert not cuts(UPPER, depth - 2, -beta)  # searched too shallow to count
    assert not cuts(LOWER, depth - 1, -beta)  # only a lower bound for the opponent: no proof
    assert not cuts(UPPER, depth - 1, -beta + 1)  # not bad enough for the opponent


def _leaf_score(fen: str) -> tuple[int, int]:
    """The static evaluation of a position and what the search makes of it as a leaf (depth 0),
    both for the side to move."""
    from kingme.engine import search as core
    from kingme.engine.analysis import NO_TABLES

    board = Game(Setup(fen=fen)).board
    own, opp = board.sides()
    work = new_work(10)
    work[core.BUDGET_AT], work[core.COMPULSORY_AT] = 10_000, 1
    work[core.FULL_EVAL_AT], work[core.QUIESCENCE_AT] = 1, 1
    leaf = core.search_root(own, opp, board.kings, board.black_to_move, 0, 0, work, *NO_TABLES)
    return evaluate(own, opp, board.kings, board.black_to_move, True, _scratch()), int(leaf)


def test_a_quiet_leaf_whose_opponent_threatens_a_capture_is_searched_one_ply_more() -> None:
    # White to move has no capture, but its man on 22 is lost: it cannot move (17 and 18 are
    # Black's), cannot jump (13 and 15 are taken), and Black jumps it next move whatever White
    # plays. Scored as it stands the leaf misses that; given one ply the search sees it.
    static, leaf = _leaf_score("W:W22,32:B13,15,17,18")
    assert leaf < static - 50


def test_a_quiet_leaf_without_a_threat_is_scored_as_it_stands() -> None:
    static, leaf = _leaf_score("W:W22,32:B1,2,3")
    assert leaf == static


def test_the_search_refuses_arrays_it_would_read_wrongly() -> None:
    """The recursion reads its work array and the endgame tables by address, so the arrays
    handed to it are checked first: a wrong one is refused by name, never read."""
    from kingme.engine.analysis import NO_TABLES

    board = Board()
    own, opp = board.sides()
    offsets, values = NO_TABLES

    def search(work: np.ndarray, offsets: np.ndarray, values: np.ndarray) -> int:
        return search_root(own, opp, board.kings, True, 2, 0, work, offsets, values)

    for stranger in (np.zeros(len(new_work(8)), dtype=np.int64), np.zeros(5, dtype=np.int64)):
        with pytest.raises(ValueError, match="the work array does not come from new_work"):
            search(stranger, offsets, values)
    with pytest.raises(ValueError, match="expected a contiguous array of int64, got int32"):
        search(new_work(8), offsets.astype(np.int32), values)
    with pytest.raises(ValueError, match="expected a contiguous array of uint8"):
        search(new_work(8), offsets, np.zeros(8, dtype=np.uint8)[::2])
    assert search(new_work(8), offsets, values) == search(new_work(8), offsets, values)


def test_a_prefetch_is_only_a_hint_and_changes_no_number() -> None:
    words = np.arange(64, dtype=np.int64)
    prefetch(address_of(words, np.int64) + 8 * 40)
    prefetch(0)  # an address outside the program's memory: ignored, not a fault
    assert words.tolist() == list(range(64))
