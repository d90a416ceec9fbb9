"""Tuning the evaluation: self-play data that resumes, features that are the evaluation, a fit
that learns from results."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from kingme.cli import main
from kingme.engine import evaluation as ev
from kingme.engine import selfplay, tuning
from kingme.engine.selfplay import Position
from tests.engine.random_positions import random_board


def test_a_self_play_game_is_a_pure_function_of_its_index() -> None:
    first = selfplay.play_game(3, nodes=300)
    assert first == selfplay.play_game(3, nodes=300)
    assert first != selfplay.play_game(4, nodes=300)
    assert {p.result for p in first} <= {0.0, 0.5, 1.0} and len({p.result for p in first}) == 1


def test_self_play_resumes_after_its_last_complete_batch(tmp_path: Path) -> None:
    path = tmp_path / "games-0.txt"
    assert selfplay.generate(path, games=2, nodes=200, batch=1) == 2
    whole = path.read_text()
    path.write_text(whole + "# batch 2\n1 2 0 b 0.5\n")  # a batch cut off by a crash
    assert selfplay.generate(path, games=3, nodes=200, batch=1) == 1
    batches = list(selfplay.read_batches([path]))
    assert [number for number, _ in batches] == [0, 1, 2]
    assert path.read_text().startswith(whole)


def test_self_play_records_the_score_of_each_searched_move_and_reads_it_back(tmp_path: Path) -> None:
    game = selfplay.play_game(3, nodes=300)
    searched = [p for p in game if p.score is not None]
    assert searched and len(searched) < len(game)  # forced moves are not searched
    path = tmp_path / "games-0.txt"
    selfplay.generate(path, games=1, nodes=300, batch=1)
    [(_, positions)] = list(selfplay.read_batches([path]))
    assert positions == selfplay.play_game(0, nodes=300)


def test_rows_written_before_scores_were_recorded_read_without_a_score(tmp_path: Path) -> None:
    path = tmp_path / "games-0.txt"
    path.write_text("# batch 0\n1 2 0 b 0.5\n# end 0\n")
    assert list(selfplay.read_batches([path])) == [(0, [Position(1, 2, 0, True, 0.5, None)])]


def test_search_labels_mix_the_scores_expected_result_with_the_games() -> None:
    empty = np.zeros(0)
    data = tuning.Dataset(
        np.zeros(4, dtype=np.int64), empty, empty, np.array([1.0, 0.5, 0.0]), empty, np.array([0.0, np.nan, 5000.0])
    )
    mixed = tuning.with_search_labels(data, 0.75, scale=100.0)
    # score 0 expects 0.5; no score keeps the result; a won score (clipped) expects about 1
    assert mixed.labels[0] == 0.75 * 0.5 + 0.25 * 1.0
    assert mixed.labels[1] == 0.5
    assert abs(mixed.labels[2] - 0.75) < 1e-3
    assert np.array_equal(data.labels, [1.0, 0.5, 0.0])  # the data itself is unchanged


def test_the_recorded_features_weighted_and_blended_are_the_evaluation() -> None:
    rng = random.Random("features")
    for _ in range(300):
        board = random_board(rng, "american")
        record = np.zeros(ev.FEATURE_COUNT)
        score = ev.evaluate_black(board.black, board.white, board.kings, board.black_to_move, True, record)
        pieces = min(bin(board.black | board.white).count("1"), ev.PHASE_PIECES)
        opening, ending = record @ ev.WEIGHTS
        blend = opening * pieces + ending * (ev.PHASE_PIECES - pieces)
        blended = int(blend / ev.PHASE_PIECES)  # towards zero
        if pieces > ev.HUNT_PIECES:  # the hand-set hunting terms are not features
            assert score == blended, board.fen()


def test_a_band_numbers_its_eight_squares_empty_own_or_opposing_in_base_three() -> None:
    black, white = 0xFF, 1 << 31  # Black's men on 1-8, one White man on 32
    record = np.zeros(ev.FEATURE_COUNT)
    ev.evaluate_black(black, white, 0, True, True, record)
    bands = record[ev.BAND_AT : ev.BAND_AT + ev.BANDS * ev.BAND_PATTERNS].reshape(ev.BANDS, ev.BAND_PATTERNS)
    full = sum(3**i for i in range(8))  # every square own: digit 1 eight times
    # (band, pattern): +1 for Black's view of the board, -1 for White's (its band 0 is its back
    # rows, seen from its side); the empty bands 2 to 4 are the same for both and cancel.
    seen = {(int(band), int(pattern)): bands[band, pattern] for band, pattern in np.argwhere(bands)}
    assert seen == {
        (0, full): 1,  # Black's two back rows, all its men
        (1, 40): 1,  # rows 2 and 3: its men on 5-8 (digit 1 on the band's first four squares)
        (5, 0): 1,
        (6, 2 * 3**7): 1,  # rows 7 and 8: White's man on 32, the band's last square
        (0, 1): -1,  # White's back rows: its man alone on its first square
        (1, 0): -1,
        (5, 6480): -1,  # White's rows 6 and 7 are the board's 3 and 2: Black's men on 5-8 (digits 2)
        (6, 2 * full): -1,  # Black's two back rows, seen by White across the board
    }


def _material_games(folder: Path) -> Path:
    """A games file of random positions each labelled by which side has more men."""
    rng = random.Random("fit")
    rows = []
    for number in range(20):
        rows.append(f"# batch {number}")
        for _ in range(40):
            board = random_board(rng, "american")
            black, white = bin(board.black & ~board.kings).count("1"), bin(board.white & ~board.kings).count("1")
            result = 1.0 if black > white else 0.0 if black < white else 0.5
            side = "b" if board.black_to_move else "w"
            rows.append(f"{board.black:x} {board.white:x} {board.kings:x} {side} {result}")
        rows.append(f"# end {number}")
    (folder / "games-0.txt").write_text("\n".join(rows) + "\n")
    return folder / "games-0.txt"


def test_the_fit_learns_that_the_side_with_more_men_wins(tmp_path: Path) -> None:
    train, held_out = tuning.build([_material_games(tmp_path)])
    assert len(held_out) and len(train) > 5 * len(held_out)
    theta, _, held = tuning.fit(train, held_out, epochs=150)
    assert held < tuning.baseline_loss(held_out)
    # The scale is a man's value to the whole fitted score (the bands count pieces too), so
    # scaling keeps every score's sign: a lead in men is worth more than nothing.
    man = tuning.man_value(theta, train)
    assert man > 0
    assert np.array_equal(tuning.to_hundredths(theta, train), np.rint(theta.reshape(2, -1) * 100 / man))


def test_written_weights_have_every_named_group(tmp_path: Path) -> None:
    table = np.arange(2 * ev.FEATURE_COUNT, dtype=np.int64).reshape(2, ev.FEATURE_COUNT)
    tuning.write_weights(table, tmp_path / "w.json", "test")

    weights = json.loads((tmp_path / "w.json").read_text())["weights"]
    assert [name for name, _ in ev.FEATURES] == list(weights)
    assert weights["turn"] == {"opening": [ev.TURN_AT], "ending": [ev.FEATURE_COUNT + ev.TURN_AT]}


def test_positions_are_values() -> None:
    assert Position(1, 2, 0, True, 0.5) == Position(1, 2, 0, True, 0.5)


def test_the_fit_command_says_what_it_reads_before_it_reads_it_and_writes_the_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    command = ["tune", "fit", "--dir", str(tmp_path), "--epochs", "2", "--search-weight", "0"]
    assert main([*command, "--output", str(tmp_path / "w.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"reading the positions of 1 games file in {tmp_path}…"
    assert "held-out quiet positions" in lines[1] and lines[-1] == f"weights written to {tmp_path / 'w.json'}"
    assert json.loads((tmp_path / "w.json").read_text())["weights"]


def test_a_fit_with_a_prior_starts_there_and_leaves_what_the_games_never_show_where_it_was(tmp_path: Path) -> None:
    train, held_out = tuning.build([_material_games(tmp_path)])
    prior = np.random.default_rng(7).normal(0, 0.1, 2 * ev.FEATURE_COUNT)
    theta, _, held = tuning.fit(train, held_out, epochs=100, prior=prior)
    seen = np.zeros(2 * ev.FEATURE_COUNT, dtype=bool)
    seen[train.indices] = True
    assert np.array_equal(theta[~seen], prior[~seen])
    assert not np.allclose(theta[seen], prior[seen])
    assert held < tuning.loss(prior, held_out)


def test_a_table_turned_into_logits_takes_the_scale_that_predicts_the_labels_best(tmp_path: Path) -> None:
    train, _ = tuning.build([_material_games(tmp_path)])
    table = np.zeros((ev.FEATURE_COUNT, 2), dtype=np.int32)
    table[ev.MAN_AT], table[ev.KING_AT] = (100, 100), (130, 130)
    factor = tuning.logits_per_hundredth(table, train)
    logits = tuning.to_logits(table, factor)
    best = tuning.loss(logits, train)
    assert best < tuning.loss(logits * 0.8, train) and best < tuning.loss(logits * 1.25, train)
    assert np.array_equal(tuning.from_logits(logits, factor), table.T)


def test_a_weights_file_read_back_is_the_table_written() -> None:
    from importlib import resources

    text = resources.files("kingme.engine").joinpath(ev.WEIGHTS_FILE).read_text()
    assert np.array_equal(ev.read_weights(text, "shipped"), ev.WEIGHTS)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "Expecting value: line 1 column 1 (char 0)"),
        ('{"weights": {}}', "it has no 'man'"),
        ('{"weights": {"man": {"opening": [1, 2], "ending": [1]}}}', "man.opening has 2 weights, expected 1"),
        ('{"weights": {"man": {"opening": ["x"], "ending": [1]}}}', "invalid literal for int() with base 10: 'x'"),
    ],
)
def test_a_file_that_is_not_a_weights_table_is_refused_with_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=r"^w\.json is not an evaluation weights file: ") as refusal:
        ev.read_weights(text, "w.json")
    assert str(refusal.value).endswith(problem)


def test_the_fit_command_refuses_a_prior_that_is_not_a_weights_file_before_reading_the_games(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games-0.txt").write_text("")
    (tmp_path / "prior.json").write_text('{"weights": {}}')
    monkeypatch.setattr(tuning, "build", lambda paths: pytest.fail("the games were read first"))
    command = ["tune", "fit", "--dir", str(tmp_path), "--output", str(tmp_path / "w.json")]
    assert main([*command, "--prior", str(tmp_path / "prior.json")]) == 2
    error = f"kingme: error: {tmp_path / 'prior.json'} is not an evaluation weights file: it has no 'man'\n"
    assert capsys.readouterr().err == error
    assert main([*command, "--prior", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
    assert not (tmp_path / "w.json").exists()


def test_the_fit_command_pulls_towards_a_prior_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _material_games(tmp_path)
    prior = tmp_path / "prior.json"
    tuning.write_weights(np.ones((2, ev.FEATURE_COUNT), dtype=np.int64), prior, "a prior")
    command = ["tune", "fit", "--dir", str(tmp_path), "--epochs", "2", "--search-weight", "0", "--l2", "1e-4"]
    assert main([*command, "--prior", str(prior), "--output", str(tmp_path / "w.json")]) == 0
    out = capsys.readouterr().out
    assert f"held-out loss of the prior {prior}: " in out
    assert "pulled towards prior.json" in json.loads((tmp_path / "w.json").read_text())["note"]
