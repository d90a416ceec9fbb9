"""Self-play for training the evaluation: games that are pure functions of their index, files
that resume after their last complete batch and read back what was written."""

from __future__ import annotations

from pathlib import Path

import pytest

from kingme.engine import selfplay
from kingme.engine.selfplay import Position


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


@pytest.mark.parametrize("line", ["garbage", "1 2 0 x 0.5", "1 2 0 b 2", "1 zz 0 b 0.5", "1 2 0 b 0.5 many", "# batch"])
def test_a_line_that_is_not_a_record_is_refused_with_its_file_and_line(tmp_path: Path, line: str) -> None:
    path = tmp_path / "games-0.txt"
    path.write_text(f"# batch 0\n1 2 0 b 0.5\n{line}\n# end 0\n")
    with pytest.raises(ValueError, match=f"games-0.txt, line 3: not a self-play record: {line!r}"):
        list(selfplay.read_batches([path]))


def test_positions_are_values() -> None:
    assert Position(1, 2, 0, True, 0.5) == Position(1, 2, 0, True, 0.5)
