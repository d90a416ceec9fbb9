"""Sets of endgame tables changing while the engine plays: a process takes up a larger set once it
is complete and never one half built; one build at a time runs in a directory; a stopped write
leaves no half file; and what a build needs is what docs/egdb.md measured."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from egdb_support import lock_held_by_another_process

from kingme.cli import main
from kingme.engine import analysis
from kingme.engine.analysis import TableShelf
from kingme.engine.egdb import (
    BuildBusy,
    Material,
    MissingTable,
    Tables,
    build,
    build_lock,
    largest_built,
    load,
    storage,
)
from kingme.engine.egdb.background import build_needs, read_report
from kingme.engine.egdb.index import materials
from kingme.engine.egdb.storage import set_path, table_path, write_table


@pytest.fixture(scope="module")
def three(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every ending of at most three pieces (a fraction of a second to build)."""
    directory = tmp_path_factory.mktemp("three")
    build(directory, 3)
    return directory


def _copy_tables(source: Path, directory: Path, pieces: int) -> None:
    for material in materials(pieces):
        shutil.copy(table_path(source, material), directory)


def test_a_process_takes_up_a_larger_set_at_its_next_call_once_complete_never_half_built(
    three: Path, tmp_path: Path
) -> None:
    shelf = TableShelf(tmp_path, first_use=2)
    first = shelf.tables()
    assert first is not None and first.max_pieces == 2  # built on first use, as the 4-piece set is
    assert shelf.tables() is first

    _copy_tables(three, tmp_path, 3)  # every table of the larger set, but not yet its set file
    assert largest_built(tmp_path) == 3
    assert shelf.tables() is first

    shutil.copy(set_path(three, 3), tmp_path)  # the file a build writes last, by rename
    larger = shelf.tables()
    assert larger is not None and larger.max_pieces == 3
    assert shelf.tables() is larger


def test_a_larger_set_that_fails_to_load_is_not_tried_again_until_its_set_file_changes(
    three: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shelf = TableShelf(tmp_path, first_use=2)
    shelf.tables()
    _copy_tables(three, tmp_path, 3)
    shutil.copy(set_path(three, 3), tmp_path)
    table_path(tmp_path, Material(2, 0, 1, 0)).unlink()  # lost after the set was complete
    loads: list[int] = []
    real_load = analysis.egdb.load

    def counted(directory: Path, pieces: int) -> Tables:
        loads.append(pieces)
        return real_load(directory, pieces)

    monkeypatch.setattr(analysis.egdb, "load", counted)

    assert [shelf.tables().max_pieces for _ in range(3)] == [2, 2, 2]
    assert loads == [3]

    _copy_tables(three, tmp_path, 3)
    set_path(tmp_path, 3).unlink()
    shutil.copy(set_path(three, 3), tmp_path)  # written again, as a new build does
    assert shelf.tables().max_pieces == 3


def test_a_set_still_being_built_is_refused_before_any_file_is_read(
    three: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy_tables(three, tmp_path, 2)
    shutil.copy(table_path(three, Material(1, 0, 1, 0)), tmp_path)  # one 3-piece table done so far
    read: list[Path] = []
    monkeypatch.setattr(storage.Path, "read_bytes", lambda path: read.append(path) or b"")
    with pytest.raises(MissingTable, match="missing"):
        load(tmp_path, 3)
    assert read == []


def test_the_largest_set_built_is_the_largest_whose_every_table_is_there(three: Path, tmp_path: Path) -> None:
    assert largest_built(tmp_path / "nowhere") == 0
    _copy_tables(three, tmp_path, 3)
    assert largest_built(tmp_path) == 3
    table_path(tmp_path, Material(0, 2, 0, 1)).unlink()
    assert largest_built(tmp_path) == 2


def test_one_build_at_a_time_in_a_directory_whichever_process_holds_it(tmp_path: Path) -> None:
    with build_lock(tmp_path), pytest.raises(BuildBusy, match="another process is building"), build_lock(tmp_path):
        pass
    with build_lock(tmp_path):  # released at the end of the block
        pass

    with lock_held_by_another_process(tmp_path), pytest.raises(BuildBusy), build_lock(tmp_path):
        pass
    with build_lock(tmp_path):  # a process that ends releases its lock
        pass


def test_the_build_command_refuses_a_directory_another_build_holds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with build_lock(tmp_path):
        assert main(["egdb", "build", "--pieces", "2", "--dir", str(tmp_path)]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and "another process is building" in error[0]
    assert largest_built(tmp_path) == 0


def test_a_write_stopped_midway_removes_its_temporary_file_and_keeps_the_old_one_whole(
    three: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _copy_tables(three, tmp_path, 3)
    material = Material(1, 1, 1, 0)
    before = table_path(tmp_path, material).read_bytes()

    def stopped(descriptor: int) -> None:
        raise SystemExit(143)  # what SIGTERM raises in a background build

    monkeypatch.setattr(storage.os, "fsync", stopped)
    with pytest.raises(SystemExit):
        write_table(tmp_path, material, load(three, 3).values[: material.size])
    assert table_path(tmp_path, material).read_bytes() == before
    assert not list(tmp_path.glob("*.tmp"))


def test_what_a_build_needs_covers_what_docs_egdb_measured() -> None:
    six, five = build_needs(6), build_needs(5)
    assert 4.2e9 <= six.memory <= 4.5e9 and 0.43e9 <= five.memory <= 0.5e9  # peak resident memory
    assert 3.24e9 <= six.disk <= 3.5e9  # 240 MB of tables and the 3.0 GB set file
    assert 13.8e6 + 152e6 <= five.disk <= 0.2e9
    assert six.cpu_seconds == 890


@pytest.mark.parametrize(
    "line", [b"not json", b"[1, 2]", b'{"table": "2K0M-1K0M", "done": 5, "total": 4}', b'{"done": true, "total": 1}']
)
def test_a_line_of_the_build_that_is_not_a_report_is_passed_over(line: bytes) -> None:
    assert read_report(line) is None
