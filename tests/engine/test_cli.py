"""kingme bestmove / endgame / match / bench engine from the command line."""

from __future__ import annotations

import pytest

from kingme.cli import main


def test_bestmove_prints_the_whole_capture_route(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", "--fen", "B:W14,23:B9", "--level", "club", "--seed", "x"]) == 0
    assert capsys.readouterr().out.strip() == "9x18x27"


def test_bestmove_verbose_prints_depth_score_nodes_and_principal_variation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", "--level", "strong", "--verbose", "--variant", "casual"]) == 0
    out = capsys.readouterr().out
    for field in ("move:", "depth:", "score:", "nodes:", "pv:"):
        assert field in out


def test_endgame_prints_the_exact_value_of_the_position_and_of_every_move(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["endgame", "--fen", "W:WK19,K23:B12,K28"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == "W:WK19,K23:B12,K28: white wins in 61 plies"
    assert "  23-27        white wins in 61 plies" in lines
    assert "  19-16        white loses in 2 plies" in lines
    assert lines[-1].startswith("410,095 positions solved in ")
    bars = err.splitlines()[1:]  # not a terminal: a line per step of each bar
    listed = [line for line in bars if "positions listed" in line]
    assert bars[: len(listed)] == listed  # the listing first, then the solving
    full = "[" + "#" * 30 + "] 410,095/410,095"
    assert listed[-1].startswith(f"{full} positions listed") and bars[-1].startswith(f"{full} positions solved")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["bestmove", "--level", "expert"], "unknown level 'expert'"),
        (["bestmove", "--fen", "B:W99:B1"], "99"),
        (["bestmove", "--variant", "polish"], "unknown variant"),
        (["bestmove", "--fen", "B:W14:B9", "--seed", "   "], "seed"),
        (["match", "club", "casual", "--openings", "0"], "argument --openings: must be a whole number from 1 to 157"),
        (["endgame", "--fen", "W:W30,27,26,K22:B21,20,K9"], "7 pieces: exact solving takes at most 6"),
        (["endgame", "--fen", "W:W1:B12"], "white man on square 1"),
        (["endgame", "--fen", "W:WK19:B12", "--variant", "polish"], "unknown variant"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(argv: list[str], message: str, capsys) -> None:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_bestmove_on_a_blocked_position_says_the_game_is_over(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bestmove", "--fen", "B:W5,6,9,10:B1", "--level", "master"]) == 2
    assert "the game is over" in capsys.readouterr().err


def test_match_prints_wins_draws_losses_and_elo(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "beginner", "random", "--openings", "1", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "games: 2" in out and "Elo difference:" in out


def test_match_refuses_an_engine_command_with_a_line_break_before_printing_or_writing(tmp_path, capsys) -> None:
    record = tmp_path / "match.txt"
    assert main(["match", "random", "--engine", "kingme\nengine", "--record", str(record)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and not record.exists()
    assert err.count("\n") == 1 and "the engine command 'kingme\\nengine' holds '\\n'" in err
