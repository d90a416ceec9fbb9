"""``kingme review``: a game of a PDN file judged move by move, as a table or as JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from async_support import in_thread

from kingme.cli import main, review_bench
from kingme.game import Game, Setup
from kingme.game.pdn import game_to_pdn
from kingme.review.budgets import BUDGETS
from kingme.review.review import review_game

#: Black wins in the tables, but 10-14 hangs the man to 18x9: king against king, a draw.
BLUNDER = Game(Setup(fen="B:WK18:B10,K1"), ["10-14", "18x9"])
OPENING = Game(moves=["11-15", "23-19", "8-11"])


@pytest.fixture
def games(tmp_path: Path) -> Path:
    path = tmp_path / "games.pdn"
    path.write_text(game_to_pdn(OPENING, {"Black": "Ann"}) + "\n" + game_to_pdn(BLUNDER, {"Black": "Bo"}) + "\n")
    return path


def test_the_table_shows_each_move_its_verdict_the_engines_move_and_the_accuracy(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(games), "--game", "2"]) == 0
    out = capsys.readouterr().out
    assert "game 2 of" in out and "Bo (Black)" in out and "300,000 nodes a position, 2 plies" in out
    blunder = next(line for line in out.splitlines() if "10-14" in line)
    assert "blunder" in blunder and "1-5 (lost 50.0)" in blunder and "+0.00" in blunder
    assert "forced" in next(line for line in out.splitlines() if "18x9" in line)
    assert "Black: accuracy 9.5; 0 inaccuracies, 0 mistakes, 1 blunder" in out
    assert "White: no judged move" in out


def test_json_holds_the_same_review_as_the_web_page_and_a_win_chance_per_ply(
    games: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["review", str(games), "--json"]) == 0
    review = json.loads(capsys.readouterr().out)
    *plies, summary = review_game(OPENING, BUDGETS["standard"])
    assert review["plies"] == [ply.to_dict() for ply in plies]
    assert {"accuracy": review["accuracy"], "counts": review["counts"]} == summary.to_dict()
    assert review["budget"] == {"name": "standard", "nodes": BUDGETS["standard"].nodes}
    assert review["graph"] == [review["initial"]["win"]] + [ply["eval"]["win"] for ply in review["plies"]]
    assert len(review["graph"]) == 4


def test_a_table_win_is_written_as_a_win_in_plies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "win.pdn"
    path.write_text(game_to_pdn(Game(Setup(fen="B:WK18:B10,K1"), ["1-5"])))
    assert main(["review", str(path)]) == 0
    assert "Black in " in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1. 11-15 23-19 2. 11-16 *", "11-16"),
        ('[Event "nothing"]\n*', "no moves"),
        ("1. 11-15 [ *", "line"),
    ],
)
def test_a_bad_game_is_one_line_on_stderr_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text(text)
    assert main(["review", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and words in captured.err and len(captured.err.splitlines()) == 1


def test_a_missing_file_or_a_directory_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(tmp_path / "none.pdn")]) == 2
    assert "none.pdn" in capsys.readouterr().err
    assert main(["review", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err


def test_a_game_the_file_does_not_hold_is_refused(games: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", str(games), "--game", "3"]) == 2
    assert "holds 2 games; --game must be 1 to 2" in capsys.readouterr().err


@pytest.mark.parametrize("options", [["--budget", "forever"], ["--game", "0"]])
def test_bad_options_are_refused(games: Path, capsys: pytest.CaptureFixture[str], options: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["review", str(games), *options])
    assert stop.value.code == 2
    assert options[0] in capsys.readouterr().err


def test_the_review_bench_prints_its_figures(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(review_bench, "ANALYSIS_PLIES", (0,))  # the analysis board's part, shortened
    monkeypatch.setattr(review_bench, "ANALYSIS_MARKS", (0.2,))
    # In a thread of its own: the bench calls asyncio.run (see async_support).
    assert in_thread(main, ["bench", "review", "--plies", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count("first verdict after") == 2  # the standard and the deep budget
    assert "reviews of 1 ply a second" in out
    assert re.search(r"analysis board after 0 plies: first lines after \d+\.\d\d s; depth \d+ after 0\.2 s", out)


def test_the_review_bench_reviews_at_most_its_games_plies(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["bench", "review", "--plies", "61"])
    assert "the bench game has 60" in capsys.readouterr().err
