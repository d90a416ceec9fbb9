"""Annotating games: each move's cost by a judge's scores, and ``kingme annotate``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingme.cli import main
from kingme.engine.annotate import DECIDED, Judgement, annotated, judge_game
from kingme.game import Game, Setup
from kingme.game.pdn import game_to_pdn, game_to_pdn_game
from kingme.rules.pdn import read_pdn

#: Black to move; 10-15 hangs the man to the forced 19x10.
HANGING = "B:W19,30:B10,1"


def _judge_by(scores: dict[int, int | None], best: str = "") -> object:
    """A judge that scores the position after ``ply`` moves as ``scores[ply]`` and prefers
    ``best`` (or the first legal move)."""

    def judge(game: Game) -> Judgement:
        move = game.board.parse_move(best) if best and best in {m.notation for m in game.legal_moves()} else None
        return Judgement(move or game.legal_moves()[0], scores[len(game.moves)])

    return judge


def test_a_move_costs_the_judges_score_before_it_less_the_value_of_where_it_leads() -> None:
    game = Game(Setup(), ["11-15", "23-19", "8-11"])
    verdicts = judge_game(game, _judge_by({0: 5, 1: 30, 2: -10, 3: 50}, best="9-13"))  # type: ignore[arg-type]
    assert [(v.mover, v.score, v.value) for v in verdicts] == [
        ("black", 5, -30),
        ("white", 30, 10),
        ("black", -10, -50),
    ]
    assert [v.cost for v in verdicts] == [35, 20, 40]


def test_the_judges_own_move_costs_nothing_whatever_the_scores_say() -> None:
    game = Game(Setup(), ["9-13"])
    (verdict,) = judge_game(game, _judge_by({0: 40, 1: 90}, best="9-13"))  # type: ignore[arg-type]
    assert verdict.cost == 0


def test_a_forced_move_unscored_by_the_judge_is_worth_what_it_leads_to() -> None:
    # White's 19x10 is the only legal move: the judge gives no score there, so Black's 10-15,
    # which walks into it, is charged through the position after the capture.
    game = Game(Setup(fen=HANGING), ["10-15", "19x10"])
    assert len(Game(game.setup, game.moves[:1]).legal_moves()) == 1
    verdicts = judge_game(game, _judge_by({0: 0, 1: None, 2: -100}))  # type: ignore[arg-type]
    assert (verdicts[1].score, verdicts[1].value) == (100, 100)
    assert (verdicts[0].value, verdicts[0].cost) == (-100, 100)


def test_a_thrown_away_win_costs_ten_men_and_the_comment_says_who_wins() -> None:
    game = Game(Setup(), ["11-15", "23-19"])
    verdicts = judge_game(game, _judge_by({0: 0, 1: 30000, 2: 0}))  # type: ignore[arg-type]
    assert verdicts[1].cost == DECIDED
    pdn = annotated(game_to_pdn_game(game), verdicts, threshold=30)
    assert pdn.comments[0] == (1, "White wins; lost 10.00, best 9-13")
    assert pdn.comments[1][1].startswith("+0.00; lost 10.00, best ")


def _pdn_file(tmp_path: Path, *games: Game) -> Path:
    path = tmp_path / "games.pdn"
    path.write_text("\n".join(game_to_pdn(game, {"Black": "one", "White": "two"}) for game in games))
    return path


def test_annotate_lists_costly_moves_and_writes_the_games_back_with_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blunder = Game(Setup(fen=HANGING), ["10-15", "19x10", "1-5"])
    path, output = _pdn_file(tmp_path, blunder), tmp_path / "annotated.pdn"
    assert main(["annotate", str(path), "--nodes", "20000", "--output", str(output)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("game 1: one (Black) - two (White), *; lost: Black ")
    assert "  1. 10-15 (black): lost " in out
    (written,) = read_pdn(output.read_text())
    assert written.moves == [str(move) for move in blunder.moves]
    assert len(written.comments) == 3 and "lost" in written.comments[0][1]
    # The first plies of a ballot game were dealt, not chosen: --skip charges them to nobody.
    assert main(["annotate", str(path), "--nodes", "20000", "--skip", "1"]) == 0
    assert "10-15" not in capsys.readouterr().out


def test_annotate_run_again_skips_the_games_already_written_and_refuses_another_files_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = Game(Setup(), ["11-15"]), Game(Setup(), ["9-13"])
    path, output = _pdn_file(tmp_path, first, second), tmp_path / "annotated.pdn"
    done = game_to_pdn(first, {"Black": "one", "White": "two"})
    output.write_text(done)
    assert main(["annotate", str(path), "--nodes", "2000", "--output", str(output)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 of 2 games already annotated") and "game 2:" in out and "game 1:" not in out
    assert output.read_text().startswith(done)
    assert [game.moves for game in read_pdn(output.read_text())] == [["11-15"], ["9-13"]]
    (tmp_path / "other").mkdir()
    other = _pdn_file(tmp_path / "other", second)
    before = output.read_text()
    assert main(["annotate", str(other), "--nodes", "2000", "--output", str(output)]) == 2
    assert "holds other games" in capsys.readouterr().err
    assert output.read_text() == before


def test_annotate_refuses_a_bad_pdn_file_before_searching(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text('[Event "x"]\n\n1. 11-15 11-15 *\n')
    assert main(["annotate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "PDN game 1" in err and err.count("\n") == 1


def test_annotate_refuses_an_output_it_cannot_write_before_searching(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _pdn_file(tmp_path, Game(Setup(), ["11-15"]))
    for output, message in ((tmp_path, "is a directory"), (path / "annotated.pdn", "not a directory")):
        assert main(["annotate", str(path), "--output", str(output)]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1
