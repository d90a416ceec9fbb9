"""Deeper scores for self-play's positions (without kings, and with kings above the endgame tables
when asked): which positions, searched once each, kept in whole batches that a stopped run resumes
after, and blended into their labels."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from kingme.cli import main
from kingme.engine import network_training, relabel, selfplay
from kingme.engine.analysis import endgame_tables
from kingme.engine.movegen import capturers
from kingme.engine.search import DATABASE_WIN, DECIDED_BOUND
from kingme.game import Game, Setup

#: Searches this small keep the tests quick; the scores need only be the search's.
NODES = 300


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with two batches of three short self-play games, the second held out."""
    folder = tmp_path_factory.mktemp("games")
    recipe = selfplay.Recipe(nodes=200)
    rows = []
    for number in range(network_training.HOLD_OUT):
        rows.append(f"# batch {number}")
        if number in (0, network_training.HOLD_OUT - 1):
            for index in range(3 * number, 3 * number + 3):
                for p in selfplay.play_game(index, recipe):
                    side, score = "b" if p.black_to_move else "w", "-" if p.score is None else p.score
                    rows.append(f"{p.black:x} {p.white:x} {p.kings:x} {side} {p.result} {score}")
        rows.append(f"# end {number}")
    (folder / "games-0.txt").write_text("\n".join(rows) + "\n")
    return folder


def _recorded(folder: Path) -> list[selfplay.Position]:
    return [p for _, batch in selfplay.read_batches([folder / "games-0.txt"]) for p in batch]


def test_the_positions_relabelled_are_the_distinct_quiet_ones_without_kings(games: Path) -> None:
    chosen = relabel.positions([games / "games-0.txt"])
    assert len(chosen) == len(set(chosen))
    recorded = _recorded(games)
    for black, white, kings, black_to_move in chosen:
        own, opp = (black, white) if black_to_move else (white, black)
        assert kings == 0 and capturers(own, opp, 0, black_to_move) == 0
    without_kings = {(p.black, p.white, p.kings, p.black_to_move) for p in recorded if not p.kings}
    assert set(chosen) < without_kings  # some positions without kings had a capture to make
    assert any(p.kings for p in recorded)  # and the games had kings, which are left out


def test_workers_share_the_positions_between_them_and_each_is_searched_once(games: Path, tmp_path: Path) -> None:
    (tmp_path / "games-0.txt").write_text((games / "games-0.txt").read_text())
    searched = [relabel.relabel(tmp_path, NODES, worker, 2) for worker in range(2)]
    scores = relabel.read_scores(tmp_path.glob(relabel.file_name(NODES, "*")))
    assert sum(searched) == len(scores) == len(relabel.positions([tmp_path / "games-0.txt"]))
    assert all(n > 0 for n in searched)
    position = next(iter(scores))
    assert scores[position] == relabel.deep_score(position, NODES)
    # Run again with another number of workers: every position is scored already.
    assert [relabel.relabel(tmp_path, NODES, worker, 3) for worker in range(3)] == [0, 0, 0]


def test_a_stopped_run_keeps_its_complete_batches_and_the_same_command_searches_only_the_rest(
    games: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "games-0.txt").write_text((games / "games-0.txt").read_text())
    monkeypatch.setattr(relabel, "BATCH", 10)
    first, second, *_ = everything = relabel.positions([tmp_path / "games-0.txt"])
    path = tmp_path / relabel.file_name(NODES, 0)
    done, cut = (
        f"{b:x} {w:x} {k:x} {'b' if black else 'w'} {score}"
        for (b, w, k, black), score in ((first, 7), (second, 12345))
    )
    path.write_text(f"# batch 0\n{done}\n# end 0\n# batch 1\n{cut}\n")  # stopped in batch 1
    assert relabel.relabel(tmp_path, NODES) == len(everything) - 1
    text = path.read_text()
    assert text.startswith(f"# batch 0\n{done}\n# end 0\n# batch 1\n") and f"\n{cut}\n" not in text
    assert relabel.read_scores([path])[first] == 7
    assert relabel.relabel(tmp_path, NODES) == 0


def test_a_line_that_is_not_a_deep_score_is_refused_naming_its_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / relabel.file_name(NODES, 0)
    path.write_text("# batch 0\nff 1 0 b 7\nff 1 0 x 7\n# end 0\n")
    with pytest.raises(ValueError, match=f"{path}, line 3: not a deep score: 'ff 1 0 x 7'"):
        relabel.read_scores([path])


def test_a_deep_score_labels_its_position_by_the_weight_given_and_leaves_the_others(games: Path) -> None:
    files = [games / "games-0.txt"]
    plain = network_training.read_examples(files)
    recorded = _recorded(games)
    deep = {position: 400 if position[3] else -400 for position in relabel.positions(files)}  # the mover leads
    blended = network_training.read_examples(files, deep=deep, deep_weight=1.0)
    assert not math.isnan(blended.deep_scale) and math.isnan(plain.deep_scale)
    changed = blended.train.labels != plain.train.labels
    expected = 1.0 / (1.0 + math.exp(-400 / blended.deep_scale))
    assert np.allclose(blended.train.labels[changed], expected)
    quiet_without_kings = sum(1 for p in recorded if (p.black, p.white, p.kings, p.black_to_move) in deep)
    assert 0 < changed.sum() <= quiet_without_kings
    half = network_training.read_examples(files, deep=deep, deep_weight=0.5)
    assert np.allclose(half.train.labels, (blended.train.labels + plain.train.labels) / 2)


def test_training_on_deep_scores_needs_them_and_says_how_to_make_them(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games-0.txt").write_text((games / "games-0.txt").read_text())
    assert main(["tune", "net", "--dir", str(tmp_path), "--deep", "5000", "--output", str(tmp_path / "n.json")]) == 2
    assert capsys.readouterr().err == (
        f"kingme: error: no deep scores at 5,000 nodes in {tmp_path}: "
        f"run 'kingme tune relabel --dir {tmp_path} --nodes 5000' first\n"
    )
    assert main(["tune", "relabel", "--dir", str(tmp_path / "none")]) == 2
    assert "run 'kingme tune selfplay --dir" in capsys.readouterr().err


def test_the_net_command_trains_on_deep_scores_and_says_so(games: Path, tmp_path: Path) -> None:
    (tmp_path / "games-0.txt").write_text((games / "games-0.txt").read_text())
    assert main(["tune", "relabel", "--dir", str(tmp_path), "--nodes", str(NODES), "--workers", "1"]) == 0
    out = tmp_path / "n.json"
    assert (
        main(["tune", "net", "--dir", str(tmp_path), "--epochs", "1", "--deep", str(NODES), "--output", str(out)]) == 0
    )
    assert f"deep-labelled positions 0.5 by {NODES}-node scores" in out.read_text()


def test_deep_scores_of_other_games_are_refused_by_name(games: Path) -> None:
    with pytest.raises(ValueError, match="no training position has a deep score"):
        network_training.read_examples([games / "games-0.txt"], deep={(0xFF, 0x1, 0, True): 7})


def test_with_tables_the_positions_with_kings_above_them_are_relabelled_too(games: Path) -> None:
    tables = endgame_tables()
    files = [games / "games-0.txt"]
    plain, wider = relabel.positions(files), relabel.positions(files, tables)
    assert set(plain) < set(wider)
    for black, white, kings, black_to_move in set(wider) - set(plain):
        own, opp = (black, white) if black_to_move else (white, black)
        assert kings and (black | white).bit_count() > tables.max_pieces
        assert capturers(own, opp, kings, black_to_move) == 0


def test_a_position_the_search_proves_through_the_tables_scores_its_proof() -> None:
    """Five kings, one above the suite's tables: the search reaches them and proves White's win,
    which Black's deep score says from Black's side."""
    tables = endgame_tables()
    board = Game(Setup(fen="B:WK6,K31,K27:BK26,K20")).board
    position = (board.black, board.white, board.kings, board.black_to_move)
    assert (board.black | board.white).bit_count() == tables.max_pieces + 1
    assert relabel.deep_score(position, 20_000, tables) <= -DECIDED_BOUND
    assert -DECIDED_BOUND < relabel.deep_score(position, 20_000) < DECIDED_BOUND  # without them: unproven


def test_a_proven_deep_score_labels_its_position_by_the_result_and_sets_no_scale(games: Path) -> None:
    files = [games / "games-0.txt"]
    chosen = relabel.positions(files)
    graded = {position: 400 if position[3] else -400 for position in chosen}
    proven = graded | {chosen[0]: DATABASE_WIN - 10 if chosen[0][3] else -(DATABASE_WIN - 10)}
    graded_labels = network_training.read_examples(files, deep=graded, deep_weight=1.0)
    proven_labels = network_training.read_examples(files, deep=proven, deep_weight=1.0)
    assert proven_labels.deep_scale == pytest.approx(graded_labels.deep_scale, rel=0.2)
    assert 1.0 in proven_labels.train.labels and 1.0 not in graded_labels.train.labels


def test_relabelling_with_tables_where_there_are_none_is_refused_by_name(
    games: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games-0.txt").write_text((games / "games-0.txt").read_text())
    empty = tmp_path / "no-tables"
    empty.mkdir()
    assert main(["tune", "relabel", "--dir", str(tmp_path), "--tables", str(empty), "--workers", "1"]) == 2
    assert f"--tables {empty}: no complete set of endgame tables there" in capsys.readouterr().err
    assert not list(tmp_path.glob("deep-*"))
