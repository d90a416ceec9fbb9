"""The start position is where every game begins."""

import kingme


def test_start_position_has_seven_moves_for_black():
    board = kingme.Board()
    assert board.turn == "black"
    assert [str(m) for m in board.legal_moves()] == ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"]
