"""The casual variant (seed 002): captures are optional, a capture may stop after any jump,
and crowning still ends the move."""

import random

import pytest

from kingme import Board


def paths(board):
    return sorted(str(m) for m in board.legal_moves())


def test_american_rules_force_the_whole_capture():
    assert paths(Board("B:W14,23:B9")) == ["9x18x27"]


def test_casual_allows_an_ordinary_move_while_a_capture_exists():
    moves = paths(Board("B:W14,23:B9", variant="casual"))
    assert "9-13" in moves


def test_casual_allows_stopping_after_any_jump_of_a_route():
    assert paths(Board("B:W14,23:B9", variant="casual")) == ["9-13", "9x18", "9x18x27"]


def test_a_partial_capture_leaves_the_uncaptured_piece_on_the_board():
    board = Board("B:W14,23:B9", variant="casual")
    board.push_text("9x18")
    assert board.fen() == "W:W23:B18"


def test_crowning_still_ends_the_move_in_casual():
    # A white man on 11 jumps 7 and is crowned on 2; as a king it could go on over 6 to 9,
    # but crowning ends the move in both variants.
    assert paths(Board("W:W11:B6,7")) == ["11x2"]
    casual = paths(Board("W:W11:B6,7", variant="casual"))
    assert "11x2" in casual
    assert not any(move.startswith("11x2x") for move in casual)
    assert casual == ["11-8", "11x2"]


def test_casual_with_no_capture_available_is_the_same_as_american():
    assert paths(Board(variant="casual")) == paths(Board())


def test_casual_is_not_the_same_game_three_plies_deep():
    from kingme.cli.rules_commands import perft

    assert [perft(Board(variant="casual"), d) for d in (1, 2)] == [7, 49]
    assert perft(Board(variant="casual"), 3) > perft(Board(), 3)


# -- an independent check ------------------------------------------------------------------
#
# pydraughts has no casual variant, so both variants are compared with a deliberately naive
# generator written from the rules text: rows and columns, one direction at a time.


def _row_col(square):
    row = (square - 1) // 4
    return row, 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)


def _square(row, col):
    return row * 4 + col // 2 + 1 if 0 <= row < 8 and 0 <= col < 8 and (row + col) % 2 == 1 else None


def _directions(color, king):
    forward = 1 if color == "black" else -1
    return [(dr, dc) for dr in (1, -1) for dc in (1, -1) if king or dr == forward]


def _capture_routes(pieces, start, casual, path=None, taken=()):
    """Every capture route of the piece on ``start``; jumped pieces leave the board at once."""
    piece = pieces[start]
    path = path or (start,)
    crown_row = 7 if piece.color == "black" else 0
    row, col = _row_col(path[-1])
    routes, went_on = set(), False
    for dr, dc in _directions(piece.color, piece.king):
        over, land = _square(row + dr, col + dc), _square(row + 2 * dr, col + 2 * dc)
        if over is None or land is None or over in taken or over not in pieces:
            continue
        if pieces[over].color == piece.color or (land != start and land in pieces and land not in taken):
            continue
        went_on = True
        route = (path + (land,), taken + (over,))
        crowned = not piece.king and _row_col(land)[0] == crown_row
        if casual or crowned:
            routes.add(route)
        if not crowned:
            routes |= _capture_routes(pieces, start, casual, *route)
    if not went_on and taken and not casual:
        routes.add((path, taken))
    return routes


def naive_moves(board):
    pieces, casual = board.pieces(), not board.variant.captures_compulsory
    ordinary, captures = set(), set()
    for start, piece in pieces.items():
        if piece.color != board.turn:
            continue
        captures |= _capture_routes(pieces, start, casual)
        row, col = _row_col(start)
        for dr, dc in _directions(piece.color, piece.king):
            target = _square(row + dr, col + dc)
            if target is not None and target not in pieces:
                ordinary.add(((start, target), ()))
    if captures and not casual:
        return captures
    return ordinary | captures


def random_boards(variant, seed, games=25, plies=120):
    rng = random.Random(seed)
    for _ in range(games):
        board = Board(variant=variant)
        for _ in range(plies):
            yield board
            moves = board.legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))


@pytest.mark.parametrize("variant", ["american", "casual"])
def test_legal_moves_agree_with_a_naive_generator_written_from_the_rules(variant):
    checked = multi_jumps = 0
    for board in random_boards(variant, seed=12):
        ours = {(m.path, m.captures) for m in board.legal_moves()}
        assert ours == naive_moves(board), board.fen()
        checked += 1
        multi_jumps += any(len(path) > 2 for path, captured in ours if captured)
    assert checked > 1000 and multi_jumps > 10
