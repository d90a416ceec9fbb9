"""Exact endgame values: checked against a plain fixed-point computation, and on First Position."""

from __future__ import annotations

import pytest

from kingme.engine import endgame
from kingme.engine.endgame import EndgameTooLarge, Phase, Value, solve
from kingme.rules import Board

FIRST_POSITION = "W:WK19,K23:B12,K28"


def _reachable(start: Board) -> dict[str, tuple[Board, list[str]]]:
    """Every position reachable from ``start`` with its successors, by FEN (the rules core's moves)."""
    graph: dict[str, tuple[Board, list[str]]] = {}
    todo = [start]
    while todo:
        board = todo.pop()
        if board.fen() in graph:
            continue
        after = []
        for move in board.legal_moves():
            child = board.copy()
            child.push(move)
            after.append(child.fen())
            todo.append(child)
        graph[board.fen()] = (board, after)
    return graph


def _fixed_point(graph: dict[str, tuple[Board, list[str]]]) -> dict[str, Value]:
    """The definition, applied until nothing changes: a win has a lost successor (the nearest
    one counts), a loss has only won successors (the farthest counts), the rest draw."""
    values: dict[str, Value | None] = {fen: None for fen in graph}
    changed = True
    while changed:
        changed = False
        for fen, (_, after) in graph.items():
            known = [values[f] for f in after]
            losses = [v.plies for v in known if v and v.outcome == "loss"]
            if losses:
                value: Value | None = Value("win", min(losses) + 1)
            elif all(v and v.outcome == "win" for v in known):
                value = Value("loss", max((v.plies for v in known if v), default=-1) + 1)
            else:
                value = None
            if value != values[fen]:
                values[fen] = value
                changed = True
    return {fen: value or Value("draw", 0) for fen, value in values.items()}


@pytest.mark.parametrize(
    ("fen", "variant"),
    [
        ("W:WK19:B12", "american"),  # a king hunting a man
        ("B:W26:B19", "casual"),  # two men racing to crown, captures optional
        ("W:W22:BK9", "american"),
    ],
)
def test_every_reachable_value_matches_the_definition(fen: str, variant: str) -> None:
    start = Board(fen, variant)
    graph = _reachable(start)
    table = solve(start)
    assert len(table) == len(graph)
    expected = _fixed_point(graph)
    assert {value.outcome for value in expected.values()} == {"win", "loss", "draw"}
    assert {f: table.value(board) for f, (board, _) in graph.items()} == expected


def test_first_position_is_won_and_the_book_move_is_the_quickest_win() -> None:
    board = Board(FIRST_POSITION)
    table = solve(board)
    assert table.value(board) == Value("win", 61)
    wins = {}
    for move in board.legal_moves():
        after = board.copy()
        after.push(move)
        value = table.value(after)
        if value.outcome == "loss":
            wins[str(move)] = value.plies + 1
    assert min(wins, key=wins.__getitem__) == "23-27"
    assert wins == {"23-27": 61, "23-18": 65, "23-26": 65, "19-15": 69}


def test_with_black_to_move_first_position_is_only_a_draw() -> None:
    # "If Black has the move the ending is a draw" (Lasker): the whole win rests on the tempo.
    board = Board("B" + FIRST_POSITION[1:])
    assert solve(board).value(board) == Value("draw", 0)


def test_too_many_pieces_or_positions_are_refused() -> None:
    with pytest.raises(EndgameTooLarge, match="7 pieces"):
        solve(Board("W:W30,27,26,K22:B21,20,K9"))
    with pytest.raises(EndgameTooLarge, match="more than 1,000 positions"):
        solve(Board(FIRST_POSITION), max_positions=1_000)


def test_a_position_that_cannot_be_reached_has_no_value() -> None:
    table = solve(Board("W:WK19:B12"))
    with pytest.raises(KeyError, match="cannot be reached"):
        table.value(Board("W:WK19,K23:B12"))


def test_solving_reports_the_listing_the_indexing_then_the_solving_and_batches_change_no_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    start = Board("W:WK19:B12")
    whole = solve(start)
    monkeypatch.setattr(endgame, "_LISTING_BATCH", 50)  # many batches, each reported
    monkeypatch.setattr(endgame, "_SOLVING_BATCH", 3)  # a stage's positions examined in many batches
    monkeypatch.setattr(endgame, "_INDEXING_BATCH", 7)  # and indexed in many
    heard: list[tuple[Phase, int, int]] = []
    table = solve(start, progress=lambda phase, done, total: heard.append((phase, done, total)))
    listed = [(done, total) for phase, done, total in heard if phase == "listed"]
    indexed = [(done, total) for phase, done, total in heard if phase == "indexed"]
    solved = [(done, total) for phase, done, total in heard if phase == "solved"]
    phases = [phase for phase, _, _ in heard]
    assert phases == ["listed"] * len(listed) + ["indexed"] * len(indexed) + ["solved"] * len(solved)
    assert indexed == [(done, len(whole)) for done in range(7, len(whole), 7)] + [(len(whole), len(whole))]
    assert len(listed) > len(whole) // 50 - 1 and all(done <= total for done, total in listed)
    assert listed[-1] == (len(whole), len(whole))
    assert [done for done, _ in solved] == sorted({done for done, _ in solved})  # rising, no repeats
    assert solved[-1] == (len(whole), len(whole))
    graph = _reachable(start)
    assert {f: table.value(board) for f, (board, _) in graph.items()} == {
        f: whole.value(board) for f, (board, _) in graph.items()
    }
