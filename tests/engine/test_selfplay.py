"""Self-play for training the evaluation: games that are pure functions of their index, files
that resume after their last complete batch and read back what was written."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import WAIT_SECONDS, wait_until

from kingme.cli import INTERRUPTED_STATUS
from kingme.engine import selfplay
from kingme.engine.selfplay import Position, Recipe


def test_a_self_play_game_is_a_pure_function_of_its_index() -> None:
    first = selfplay.play_game(3, Recipe(nodes=300))
    assert first == selfplay.play_game(3, Recipe(nodes=300))
    assert first != selfplay.play_game(4, Recipe(nodes=300))
    assert {p.result for p in first} <= {0.0, 0.5, 1.0} and len({p.result for p in first}) == 1


def test_root_noise_is_part_of_the_recipe_and_ends_after_its_noisy_plies() -> None:
    quiet = selfplay.play_game(3, Recipe(nodes=300, noise=0))
    assert quiet == selfplay.play_game(3, Recipe(nodes=300, noise=80, noisy_plies=0))
    assert quiet != selfplay.play_game(3, Recipe(nodes=300, noise=80, noisy_plies=200))


def test_the_players_evaluation_is_part_of_the_recipe() -> None:
    table = selfplay.play_game(3, Recipe(nodes=300, network=False))
    assert table == selfplay.play_game(3, Recipe(nodes=300, network=False))
    assert table != selfplay.play_game(3, Recipe(nodes=300))


def test_self_play_resumes_after_its_last_complete_batch(tmp_path: Path) -> None:
    path = tmp_path / "games-0.txt"
    assert selfplay.generate(path, games=2, recipe=Recipe(nodes=200), batch=1) == 2
    whole = path.read_text()
    path.write_text(whole + "# batch 2\n1 2 0 b 0.5\n")  # a batch cut off by a crash
    assert selfplay.generate(path, games=3, recipe=Recipe(nodes=200), batch=1) == 1
    batches = list(selfplay.read_batches([path]))
    assert [number for number, _ in batches] == [0, 1, 2]
    assert path.read_text().startswith(whole)


def test_self_play_records_the_score_of_each_searched_move_and_reads_it_back(tmp_path: Path) -> None:
    game = selfplay.play_game(3, Recipe(nodes=300))
    searched = [p for p in game if p.score is not None]
    assert searched and len(searched) < len(game)  # forced moves are not searched
    path = tmp_path / "games-0.txt"
    selfplay.generate(path, games=1, recipe=Recipe(nodes=300), batch=1)
    [(_, positions)] = list(selfplay.read_batches([path]))
    assert positions == selfplay.play_game(0, Recipe(nodes=300))


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


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_self_play_stopped_by_sigterm_ends_its_workers_and_keeps_its_complete_batches(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "kingme", "tune", "selfplay", "--games", "100000", "--nodes", "200"]
    argv += ["--dir", str(tmp_path), "--workers", "2"]
    errors = tmp_path / "stderr"
    with errors.open("w") as stderr:
        command = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)
    workers: list[int] = []
    try:
        first = tmp_path / "games-0.txt"
        wait_until(lambda: first.exists() and "# end 0" in first.read_text(), "a first batch written")
        children = Path(f"/proc/{command.pid}/task/{command.pid}/children").read_text().split()
        workers += [int(pid) for pid in children]
        command.send_signal(signal.SIGTERM)
        assert command.wait(timeout=WAIT_SECONDS) == INTERRUPTED_STATUS
        assert "the same command goes on" in errors.read_text()
        wait_until(lambda: not any(_alive(pid) for pid in workers), "the workers ended with the command")
    finally:
        for pid in [command.pid, *workers]:  # none left behind by a failing run either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
    assert 0 in [number for number, _ in selfplay.read_batches([first])]
