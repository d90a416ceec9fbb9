"""The opening book: the master level plays its move, a build resumes, a bad file is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingme.cli import main
from kingme.engine import book as book_module
from kingme.engine import choose_move, player
from kingme.engine.ballots import ballot_openings
from kingme.engine.book import Book, BookError, build
from kingme.game import Game, Setup

BALLOT_001 = Game(moves=ballot_openings()[0][1]).board.fen()


def test_master_plays_the_book_move_where_the_book_has_the_position_and_strong_searches(monkeypatch) -> None:
    game = Game(moves=ballot_openings()[0][1])
    unusual = next(m for m in game.legal_moves() if m != choose_move(game, "master"))
    monkeypatch.setattr(player, "stored_book", lambda: Book.from_text(f"{BALLOT_001} {unusual} 0 30 99"))
    assert choose_move(game, "master") == unusual
    assert player.think(game, "master").nodes == 0  # answered from the book
    assert player.think(game, "strong").nodes > 0  # strong plays no book (the ladder's step to master)
    assert player.think(game, "master", nodes=2_000, book=False).nodes > 0  # benchmarks time the search
    casual = Game(Setup("casual"), ballot_openings()[0][1])
    assert player.think(casual, "master").nodes > 0  # the book is for American checkers only


def test_a_build_appends_each_search_at_once_and_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    first = build(path, ballots=2, plies=3, nodes=2_000)
    assert first > 0
    assert build(path, ballots=2, plies=3, nodes=2_000) == 0  # nothing left to do
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:25])  # a line cut short by a stop
    assert build(path, ballots=2, plies=3, nodes=2_000) == 1  # only that search again
    book = Book.from_text(path.read_text())
    assert len(book) == first
    game = Game(moves=ballot_openings()[0][1])
    assert str(book.move(game.board)) in {str(m) for m in game.legal_moves()}


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (f"{BALLOT_001} 23-18 0 9", "expected FEN MOVE SCORE DEPTH NODES, found 4 fields"),
        ("W:W33:B1 23-18 0 9 1000", "line 2: "),
        (f"{BALLOT_001} 9-14 0 9 1000", "line 2: "),
        (f"{BALLOT_001} 23-18 zero 9 1000", "must be whole numbers"),
    ],
)
def test_a_bad_line_is_refused_with_its_line_number(line: str, problem: str) -> None:
    with pytest.raises(BookError, match="line 2") as refused:
        Book.from_text(f"# comment\n{line}\n", "book")
    assert problem in str(refused.value)


def test_the_shipped_book_reads_and_every_move_is_legal() -> None:
    book_module.stored_book.cache_clear()
    book = book_module.stored_book()  # raises BookError if any line is bad
    assert isinstance(book, Book)


def test_a_build_with_a_bigger_budget_searches_again_and_its_lines_replace_the_old_ones(tmp_path: Path) -> None:
    path = tmp_path / "book.txt"
    # One ply: the ballot's own position, the same for both budgets (deeper main lines may part).
    added = build(path, ballots=1, plies=1, nodes=1_000)
    assert build(path, ballots=1, plies=1, nodes=3_000) == added
    book = Book.from_text(path.read_text())
    assert len(book) == added
    entry = book.get(Game(moves=ballot_openings()[0][1]).board)
    assert entry is not None and entry.nodes == 3_000


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--ballots", "158"],
            "--ballots: must be a whole number from 1 to 157 (there are 157 standard 3-move ballots)",
        ),
        (["--plies", "0"], "--plies: must be a whole number of at least 1"),
        (["--nodes", "many"], "--nodes: must be a whole number of at least 1"),
        (["--workers", "0"], "--workers: must be a whole number of at least 1"),
    ],
)
def test_book_build_refuses_a_bad_option_with_its_name(arguments: list[str], message: str, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["book", "build", *arguments])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err


def test_book_build_names_a_bad_book_file_and_leaves_it_as_it_was(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "book.txt"
    bad.write_text("garbage line\n")
    assert main(["book", "build", "--file", str(bad), "--ballots", "1", "--plies", "1", "--nodes", "10"]) == 2
    assert "book.txt, line 1: expected FEN MOVE SCORE DEPTH NODES, found 2 fields" in capsys.readouterr().err
    assert bad.read_text() == "garbage line\n"
    assert main(["book", "build", "--file", str(tmp_path), "--ballots", "1", "--plies", "1", "--nodes", "10"]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_a_build_in_two_processes_writes_the_same_book_as_one(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    assert build(one, ballots=3, plies=2, nodes=1_000) == build(two, ballots=3, plies=2, nodes=1_000, workers=2)
    # The same lines, perhaps in another order: each ballot's line is written when it ends.
    assert sorted(one.read_text().splitlines()) == sorted(two.read_text().splitlines())
