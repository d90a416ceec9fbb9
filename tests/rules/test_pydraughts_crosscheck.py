"""Legal moves agree with an independent implementation, pydraughts (variant "english").

pydraughts numbers the English board as kingme does (Black on 1-12, moving first, "B:" in FEN)
and gives each move as its full list of squares (``steps_move``) plus the captured squares in
the order taken, so the two are compared as sets of (path, captures). Positions come from
seeded random games from the start, played until they end or reach 150 plies: about 6,700
positions (half with kings, 1,700 with captures), some 25 s on the 2-core development machine,
nearly all of it in pydraughts. Only American rules are compared: pydraughts has no casual variant.
"""

import random

import pytest

from kingme import Board

draughts = pytest.importorskip("draughts")

GAMES = 50
MAX_PLIES = 150


def theirs(fen):
    board = draughts.Board("english", fen)
    return {(tuple(m.steps_move), tuple(m.captures or ())) for m in board.legal_moves()}


def ours(board):
    return {(m.path, m.captures) for m in board.legal_moves()}


def random_positions(seed):
    rng = random.Random(seed)
    for _ in range(GAMES):
        board = Board()
        for _ in range(MAX_PLIES):
            yield board
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))


@pytest.mark.parametrize("seed", [2026, 7])
def test_legal_moves_agree_with_pydraughts_on_positions_from_random_games(seed):
    checked, kings, captures, multi = 0, 0, 0, 0
    for board in random_positions(seed):
        fen = board.fen()
        expected = theirs(fen)
        assert ours(board) == expected, fen
        checked += 1
        kings += bool(board.kings)
        captures += any(captured for _, captured in expected)
        multi += any(len(captured) > 1 for _, captured in expected)
    # The sample must reach the interesting cases, not only opening moves.
    assert checked >= 1500
    assert kings >= 300 and captures >= 300 and multi >= 20


@pytest.mark.parametrize(
    "fen",
    [
        "B:W6,7,14,15:BK11",
        "B:W6,7,14,15,22,K28:B1,3,K11,K19",
        "W:W9,10,K31:B5,6,13,14,22,23",
        "W:W11:B6,7",
        "B:W6,7,14,15:B2",
        "B:WK6,K7,K14,K15,K22,K23:BK1",
    ],
)
def test_legal_moves_agree_with_pydraughts_on_hand_picked_positions(fen):
    assert ours(Board(fen)) == theirs(fen)
