"""The endgame database: values agree with the exact solver, every position agrees with its
successors, the classics come out right, and damaged files are refused, never read as values."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import numpy as np
import pytest

from kingme.cli import main
from kingme.engine import analysis, endgame
from kingme.engine import search as core
from kingme.engine.egdb import (
    DRAW,
    LOSS,
    MAX_PLIES,
    UNKNOWN,
    WIN,
    CorruptTable,
    Material,
    MissingTable,
    Tables,
    TooManyPieces,
    build,
    is_loss,
    is_win,
    load,
    load_or_build,
    plies,
    probe,
    verify_tables,
    within_rule,
)
from kingme.engine.egdb.bench import random_position
from kingme.engine.egdb.index import index, materials
from kingme.engine.egdb.moves import best_move, move_value
from kingme.engine.egdb.probe import DRAW_CODE
from kingme.engine.egdb.storage import set_path, table_path, write_table
from kingme.engine.player import think
from kingme.game import NO_PROGRESS_PLIES, Game, Setup
from kingme.rules import Board

FIRST_POSITION = "W:WK19,K23:B12,K28"
_SOLVER_OUTCOME = {0: "draw", 1: "win", 2: "loss"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every ending of at most four pieces, built once for this module."""
    directory = tmp_path_factory.mktemp("egdb")
    build(directory, 4)
    return directory


@pytest.fixture(scope="module")
def tables(built: Path) -> Tables:
    return load(built, 4)


def _outcome(value: int) -> str:
    return "win" if is_win(value) else "loss" if is_loss(value) else "draw"


def _probe(tables: Tables, board: Board) -> int:
    return probe(tables.offsets, tables.values, board.black, board.white, board.kings, board.black_to_move)


def _disagreements(tables: Tables, start: Board, sample: int, rng: random.Random) -> list[str]:
    """Positions reachable from ``start`` (up to ``sample`` of them) where the database's outcome
    differs from ``kingme.engine.endgame``'s, which solves the reachable graph on its own."""
    solved = endgame.solve(start)
    keys, outcomes = solved._keys, solved._outcome  # every reachable position and its value
    wrong = []
    for i in rng.sample(range(len(keys)), min(sample, len(keys))):
        own, opp, kings, black_to_move = endgame._unpack(keys[i])
        black, white = (own, opp) if black_to_move else (opp, own)
        value = probe(tables.offsets, tables.values, black, white, kings, black_to_move)
        if _outcome(value) != _SOLVER_OUTCOME[int(outcomes[i])]:
            wrong.append(f"{black:#x} {white:#x} {kings:#x} {black_to_move}: {value}")
    return wrong


def _board(position: tuple[int, int, int, bool]) -> Board:
    board = Board()
    board.black, board.white, board.kings, board.black_to_move = position
    return board


@pytest.mark.parametrize("material", [m for m in materials(4)], ids=lambda m: m.name)
def test_every_material_agrees_with_the_exact_solver_on_random_positions(tables: Tables, material: Material) -> None:
    rng = random.Random(material.id)
    sides = (True, False) if material.pieces < 4 else (material.id % 2 == 0,)
    for _ in range(2 if material.pieces < 4 else 1):
        position = _material_position(rng, material)
        for black_to_move in sides:
            start = _board((*position[:3], black_to_move))
            assert _disagreements(tables, start, 400, rng) == []


def _material_position(rng: random.Random, material: Material) -> tuple[int, int, int, bool]:
    while True:
        position = random_position(rng, material.pieces)
        black, white, kings, _ = position
        counts = ((black & kings).bit_count(), (black & ~kings).bit_count())
        counts += ((white & kings).bit_count(), (white & ~kings).bit_count())
        if counts == (material.black_kings, material.black_men, material.white_kings, material.white_men):
            return position


@pytest.mark.parametrize(
    "fen",
    [
        FIRST_POSITION,
        "B:W6,9:B25,27",  # both sides' men one step from crowning
        "W:W5,K18:B28,K3",  # a man about to crown against a king each
        "B:WK10,K15:BK28,K32",  # kings only
    ],
)
def test_reachable_positions_agree_with_the_exact_solver(tables: Tables, fen: str) -> None:
    assert _disagreements(tables, Board(fen), 3000, random.Random(fen)) == []


#: Directories holding the <= 5- and <= 6-piece sets: these comparisons run only when they are
#: given (building the sets takes minutes; solving each start below takes a few minutes more,
#: Second Position, 137 million positions, about 8 minutes and 5 GB).
LARGER_SETS = {5: os.environ.get("KINGME_EGDB_FIVE_DIR"), 6: os.environ.get("KINGME_EGDB_SIX_DIR")}
LARGER_STARTS = [
    (5, "B:W12,31,K13:BK29,K30"),
    (5, "B:W16,19,K1,K20:BK30"),
    (5, "B:W27:B4,9,17,28"),
    (5, "W:W19,K5,K27:B18,23"),
    (6, "W:W27,30,K22:B20,21,K9"),  # Second Position: men of both sides, a king each
]


@pytest.mark.parametrize(("pieces", "fen"), LARGER_STARTS)
def test_larger_sets_agree_with_the_exact_solver(pieces: int, fen: str) -> None:
    directory = LARGER_SETS[pieces]
    if not directory:
        pytest.skip(f"set KINGME_EGDB_{['FIVE', 'SIX'][pieces - 5]}_DIR to a built <= {pieces}-piece database")
    tables = load(Path(directory), pieces)
    assert _disagreements(tables, Board(fen), 2000, random.Random(fen)) == []


@pytest.mark.parametrize("material", [m for m in materials(5) if m.pieces == 5], ids=lambda m: m.name)
def test_every_five_piece_material_agrees_with_the_exact_solver_on_random_positions(material: Material) -> None:
    if not LARGER_SETS[5]:
        pytest.skip("set KINGME_EGDB_FIVE_DIR to a built <= 5-piece database")
    tables = load(Path(str(LARGER_SETS[5])), 5)
    rng = random.Random(material.id)
    start = _board((*_material_position(rng, material)[:3], material.id % 2 == 0))
    assert _disagreements(tables, start, 2000, rng) == []


def test_colour_reversal_gives_the_same_value(tables: Tables) -> None:
    rng = random.Random(7)
    for _ in range(500):
        board = _board(random_position(rng, rng.randint(2, 4)))
        mirrored = _board(
            (_reverse(board.white), _reverse(board.black), _reverse(board.kings), not board.black_to_move)
        )
        assert _probe(tables, board) == _probe(tables, mirrored)


def _reverse(bits: int) -> int:
    return int(f"{bits:032b}"[::-1], 2)


def test_first_position_is_won_and_the_book_move_converts_soonest(tables: Tables) -> None:
    board = Board(FIRST_POSITION)
    assert is_win(_probe(tables, board))
    best = min(
        (move for move in board.legal_moves() if is_loss(_probe(tables, _after(board, move)))),
        key=lambda move: plies(_probe(tables, _after(board, move))),
    )
    assert str(best) == "23-27"  # Lasker's first move
    assert plies(_probe(tables, board)) == plies(_probe(tables, _after(board, best))) + 1


def test_the_best_move_converts_a_win_soonest_and_defends_a_loss_longest(tables: Tables) -> None:
    board = Board(FIRST_POSITION)
    assert str(best_move(tables, board)) == "23-27"
    board.push_text("23-27")
    defence = best_move(tables, board)
    assert defence is not None
    assert move_value(tables, board, defence) == max(move_value(tables, board, move) for move in board.legal_moves())


def _after(board: Board, move: object) -> Board:
    child = board.copy()
    child.push(move)  # type: ignore[arg-type]
    return child


def test_two_kings_against_one_never_lose_and_win_all_but_a_few_exchanges(tables: Tables) -> None:
    material = Material(2, 0, 1, 0)
    start = int(tables.offsets[material.id])
    two_kings_to_move = tables.values[start : start + material.size // 2]
    assert not (two_kings_to_move >= 129).any()
    assert (two_kings_to_move == 1).sum() < 0.01 * two_kings_to_move.size


def test_a_side_without_pieces_to_move_has_lost_and_too_many_pieces_are_unknown(tables: Tables) -> None:
    assert probe(tables.offsets, tables.values, 1, 0, 0, False) == LOSS
    assert probe(tables.offsets, tables.values, 1, 0, 0, True) == UNKNOWN
    five = _board(random_position(random.Random(5), 5))
    assert _probe(tables, five) == UNKNOWN


def test_the_values_are_encoded_as_documented() -> None:
    assert DRAW == 0 and WIN + 3 < LOSS
    assert is_win(WIN + 3) and plies(WIN + 3) == 3 and not is_loss(WIN + 3)
    assert is_loss(LOSS) and plies(LOSS) == 0 and not is_win(LOSS)
    assert not is_win(DRAW) and not is_loss(DRAW) and not is_win(UNKNOWN)


def test_the_index_numbers_each_position_of_a_material_once() -> None:
    material = Material(1, 1, 1, 0)
    seen = set()
    for man in range(28):
        for king in range(32):
            for other in range(32):
                if len({man, king, other}) < 3:
                    continue
                black, white, kings = 1 << man | 1 << king, 1 << other, 1 << king | 1 << other
                for white_to_move in (False, True):
                    number = index(black, white, kings, white_to_move)
                    assert 0 <= number < material.size
                    seen.add(number)
    assert len(seen) == 28 * 31 * 30 * 2


def test_every_position_agrees_with_its_successors(built: Path) -> None:
    assert set(verify_tables(load(built, 3)).values()) == {0}


def test_verify_finds_a_changed_value(built: Path) -> None:
    tables = load(built, 3)
    board = Board("W:WK19:BK28")
    material = Material(1, 0, 1, 0)
    at = int(tables.offsets[material.id]) + index(board.black, board.white, board.kings, True)
    tables.values[at] = 1 if tables.values[at] != 1 else 2
    assert verify_tables(tables)[material] >= 1


def _bytes(tables: Tables, material: Material) -> np.ndarray:
    start = int(tables.offsets[material.id])
    return tables.values[start : start + material.size]


def test_a_win_or_loss_beyond_the_cap_is_stored_as_a_draw_and_verify_holds_the_same_cap(
    built: Path, tmp_path: Path
) -> None:
    # No distance of at most three pieces reaches 80, so a cap of 20 stands in for the 80-ply
    # rule: two kings against one take up to 34 plies, every other material at most 11. Kings
    # alone convert only by capturing into tables the cap leaves alone, so there it is exactly
    # "beyond 20 is a draw"; a material with men converts into them too, so it can only lose
    # wins and losses, never gain one.
    reports = build(tmp_path, 3, cap=20)
    capped, uncapped = load(tmp_path, 3), load(built, 3)
    for material in materials(3):
        before, after = _bytes(uncapped, material), _bytes(capped, material)
        distance = np.where(before >= 129, before - 129, before - 1)
        if material.black_men + material.white_men == 0:
            assert np.array_equal(after, np.where((before > DRAW_CODE) & (distance > 20), DRAW_CODE, before))
        decided = after > DRAW_CODE
        assert np.array_equal(after[decided] >= 129, before[decided] >= 129), material
        assert np.all(np.where(after >= 129, after - 129, after - 1)[decided] <= 20)
    two_kings = Material(2, 0, 1, 0)
    beyond = {report.material: report.capped for report in reports}
    assert beyond[two_kings] == np.count_nonzero(_bytes(capped, two_kings) != _bytes(uncapped, two_kings)) > 0
    assert set(verify_tables(capped, cap=20).values()) == {0}
    assert verify_tables(uncapped, cap=20)[two_kings] == beyond[two_kings]


def test_the_cap_is_the_80_ply_rule() -> None:
    assert MAX_PLIES == NO_PROGRESS_PLIES == 80


def test_a_stored_distance_is_kept_while_the_quiet_plies_played_and_it_stay_within_80() -> None:
    assert within_rule(WIN + 30, 50) == WIN + 30 and within_rule(WIN + 30, 51) == DRAW
    assert within_rule(LOSS + 80, 0) == LOSS + 80 and within_rule(LOSS + 1, 80) == DRAW
    assert within_rule(DRAW, 79) == DRAW and within_rule(UNKNOWN, 79) == UNKNOWN


def _game(fen: str, moves: str) -> Game:
    return Game(Setup(fen=fen), moves.split())


#: Games of two kings against one whose last position (white to move) is won by the tables
#: after 51 and 48 quiet plies, converting in 29 and 33: the count reaches 80 and 81.
WITHIN_THE_RULE = _game(
    "B:WK5,K10:BK28",
    "28-32 10-7 32-27 7-3 27-31 3-8 31-26 8-3 26-22 3-7 22-17 5-1 17-21 7-3 21-17 1-6 17-22 6-9 22-17 9-13 17-22"
    " 3-8 22-26 13-9 26-31 8-4 31-26 9-14 26-31 14-10 31-26 10-15 26-22 15-19 22-25 4-8 25-30 19-16 30-26 16-12"
    " 26-30 8-11 30-25 11-8 25-29 8-4 29-25 12-16 25-30 16-12 30-26",
)
BEYOND_THE_RULE = _game(
    "W:WK1,K3:BK30",
    "3-7 30-26 7-2 26-23 1-6 23-26 6-9 26-31 9-13 31-27 2-6 27-32 6-9 32-27 9-14 27-31 13-9 31-27 14-17 27-24 9-5"
    " 24-20 5-1 20-24 17-14 24-27 1-5 27-31 14-9 31-26 9-6 26-31 6-2 31-27 5-1 27-31 2-6 31-26 6-9 26-30 9-14"
    " 30-25 14-10 25-21 10-7 21-17 7-2 17-22",
)


@pytest.mark.parametrize(("game", "distance", "winner"), [(WITHIN_THE_RULE, 29, "white"), (BEYOND_THE_RULE, 33, None)])
def test_a_win_is_won_in_play_exactly_when_quiet_plies_and_distance_stay_within_80(
    tables: Tables, game: Game, distance: int, winner: str | None
) -> None:
    game = Game(game.setup, game.moves)
    assert _probe(tables, game.board) == WIN + distance
    assert within_rule(WIN + distance, game.quiet_plies) == (WIN + distance if winner else DRAW)
    while not game.is_over:  # the fastest conversion against the longest defence
        move = best_move(tables, game.board)
        assert move is not None
        game.push(move)
    assert game.result is not None and game.result.winner == winner
    assert winner or game.result.reason == "no-progress"


@pytest.mark.parametrize(("game", "score"), [(WITHIN_THE_RULE, core.DATABASE_WIN - 29), (BEYOND_THE_RULE, 0)])
def test_the_engine_trusts_a_table_win_only_within_the_80_ply_rule(
    monkeypatch: pytest.MonkeyPatch, tables: Tables, game: Game, score: int
) -> None:
    monkeypatch.setattr(analysis, "endgame_tables", lambda: tables)
    result = think(game, "master")
    assert result.nodes == 0 and result.score == score
    assert result.move == best_move(tables, game.board)


@pytest.mark.parametrize(
    ("game", "ply", "score"),
    [
        (WITHIN_THE_RULE, 0, core.DATABASE_WIN - 29),
        (WITHIN_THE_RULE, 5, core.DATABASE_WIN - 5 - 29),
        (BEYOND_THE_RULE, 5, 0),
    ],
)
def test_the_search_below_the_root_trusts_a_table_win_only_within_the_80_ply_rule_and_counts_its_plies(
    tables: Tables, game: Game, ply: int, score: int
) -> None:
    own, opp = game.board.sides()
    black = game.board.black_to_move
    kings, quiet = game.board.kings, game.quiet_plies
    assert core._endgame_score(tables.offsets, tables.values, own, opp, kings, black, quiet, ply) == score


def test_a_file_of_the_uncapped_format_1_is_refused_saying_so_and_rebuilt(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    material = Material(2, 0, 1, 0)
    path = table_path(directory, material)
    data = bytearray(path.read_bytes())
    data[8:12] = (1).to_bytes(4, "little")  # the header's format version
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptTable, match=r"format version 1.*80-ply rule.*kingme egdb build"):
        load(directory, 3)
    path.rename(directory / f"{material.name}.kmdb")  # where format 1 kept it
    with pytest.raises(MissingTable, match=r"2K0M-1K0M\.kmdb beside it is of format version 1"):
        load(directory, 3)
    assert [report.material for report in build(directory, 3) if not report.reused] == [material]
    assert path.read_bytes() == table_path(built, material).read_bytes()


def _mapped(tables: Tables) -> bool:
    return isinstance(tables.values.base, np.memmap)


def test_a_build_leaves_a_set_file_that_load_maps_with_the_same_values(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    mapped = load(directory, 4)
    assert _mapped(mapped)
    set_path(directory, 4).unlink()
    read = load(directory, 4)
    assert not _mapped(read) and np.array_equal(mapped.values, read.values)
    assert np.array_equal(mapped.offsets, read.offsets)


def test_a_set_file_of_other_or_damaged_tables_is_ignored_and_the_tables_read(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    material = Material(2, 0, 1, 0)
    table = _bytes(load(directory, 3), material).copy()
    table[0] = DRAW_CODE if table[0] != DRAW_CODE else DRAW_CODE + 1
    write_table(directory, material, table)  # rebuilt since the set file was made
    changed = load(directory, 4)
    assert not _mapped(changed) and _bytes(changed, material)[0] == table[0]

    directory = _copy(built, tmp_path / "damaged")
    data = bytearray(set_path(directory, 4).read_bytes())
    data[-1] ^= 0x01
    set_path(directory, 4).write_bytes(bytes(data))
    damaged = load(directory, 4)
    assert not _mapped(damaged) and np.array_equal(damaged.values, load(built, 4).values)


def _copy(built: Path, tmp_path: Path) -> Path:
    directory = tmp_path / "egdb"
    shutil.copytree(built, directory)
    return directory


def test_a_truncated_file_is_refused_naming_it(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    path = table_path(directory, Material(2, 0, 1, 0))
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(CorruptTable, match="2K0M-1K0M"):
        load(directory, 3)


@pytest.mark.parametrize("offset", [0, 12, 40, -1])  # magic, counts, payload, last byte
def test_an_altered_byte_anywhere_is_refused(built: Path, tmp_path: Path, offset: int) -> None:
    directory = _copy(built, tmp_path)
    path = table_path(directory, Material(1, 1, 1, 0))
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x40
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptTable, match="1K1M-1K0M"):
        load(directory, 3)


def test_a_missing_file_is_refused(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    table_path(directory, Material(0, 1, 0, 1)).unlink()
    with pytest.raises(MissingTable, match="0K1M-0K1M"):
        load(directory, 2)


def test_too_many_pieces_are_refused() -> None:
    with pytest.raises(TooManyPieces):
        load(Path("."), 9)


def test_an_interrupted_build_resumes_and_rebuilds_only_what_is_missing_or_damaged(built: Path, tmp_path: Path) -> None:
    directory = tmp_path / "egdb"
    directory.mkdir()
    for material in materials(3):
        shutil.copy(table_path(built, material), directory)
    missing, damaged = Material(2, 0, 1, 0), Material(1, 1, 0, 1)
    table_path(directory, missing).rename(table_path(directory, missing).with_suffix(".kmdb.tmp"))
    table_path(directory, damaged).write_bytes(b"half a file")
    reports = build(directory, 3)
    assert {report.material for report in reports if not report.reused} == {missing, damaged}
    for material in materials(3):
        assert table_path(directory, material).read_bytes() == table_path(built, material).read_bytes()


def test_the_small_set_is_built_on_first_use_and_larger_ones_must_be_built(built: Path, tmp_path: Path) -> None:
    directory = _copy(built, tmp_path)
    removed = Material(1, 1, 1, 0)
    table_path(directory, removed).unlink()
    assert load_or_build(directory, 3).values.size == load(built, 3).values.size
    assert table_path(directory, removed).read_bytes() == table_path(built, removed).read_bytes()
    with pytest.raises(MissingTable, match="kmdb"):
        load_or_build(directory, 5)


def test_probe_prints_the_value_of_the_position_and_of_each_move(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["egdb", "probe", "--fen", FIRST_POSITION, "--dir", str(built)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{FIRST_POSITION}: white wins, 17 plies to the next capture or man's move"
    assert "  19-16        white loses, 2 plies to the next capture or man's move" in lines
    assert any(line.split()[0] == "23-27" and "white wins" in line for line in lines[1:])
    assert len(lines) == 1 + len(Board(FIRST_POSITION).legal_moves())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["probe", "--fen", "W:WK19,K23:B12,K28,Q"], "error"),
        (["probe", "--fen", "W:W5,6,7,8,9:B12,13,14"], "at most"),
        (["build", "--pieces", "9"], "--pieces: must be a whole number from 2 to 6"),
        (["estimate", "--pieces", "4", "--per-mille", "0"], "--per-mille: must be a whole number from 1 to 1000"),
    ],
)
def test_bad_input_is_one_line_and_status_2(
    built: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert _status(["egdb", *arguments, "--dir", str(built)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and message in error


def _status(argv: list[str]) -> int:
    """The exit status of ``kingme argv``, argument errors (which exit at once) included."""
    try:
        return main(argv)
    except SystemExit as exit:
        return int(exit.code or 0)


def test_a_damaged_file_makes_probe_fail_with_status_2(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _copy(built, tmp_path)
    path = table_path(directory, Material(2, 1, 0, 1))
    path.write_bytes(path.read_bytes()[:100])
    assert main(["egdb", "probe", "--fen", FIRST_POSITION, "--dir", str(directory)]) == 2
    assert "2K1M-0K1M" in capsys.readouterr().err


def test_verify_command_reports_a_sound_database(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egdb", "verify", "--pieces", "2", "--dir", str(built)]) == 0
    assert "sound" in capsys.readouterr().out


def test_verify_can_check_chosen_tables_alone(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    command = ["egdb", "verify", "--pieces", "3", "--dir", str(built), "--table", "2K0M-1K0M", "--table", "1K1M-1K0M"]
    assert main(command) == 0
    assert "2 tables of at most 3 pieces" in capsys.readouterr().out
    assert main(["egdb", "verify", "--pieces", "3", "--dir", str(built), "--table", "3K0M-2K1M"]) == 2
    assert "no table 3K0M-2K1M in a set of at most 3 pieces" in capsys.readouterr().err


def test_estimate_solves_a_sample_of_every_table_of_the_size_and_scales_it_up(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["egdb", "estimate", "--pieces", "4", "--per-mille", "5", "--dir", str(built)]) == 0
    lines = capsys.readouterr().out.splitlines()
    four = [material for material in materials(4) if material.pieces == 4]
    assert [line.split()[0] for line in lines[:-1]] == [material.name for material in four]
    assert lines[-1].startswith(f"the {len(four)} tables of 4 pieces: about ")


@pytest.mark.parametrize(("probes", "counted"), [(1, "1 random 3-piece position"), (2, "2 random 3-piece positions")])
def test_the_probe_bench_counts_its_positions_and_reports_probes_a_second(
    built: Path, capsys: pytest.CaptureFixture[str], probes: int, counted: str
) -> None:
    assert main(["bench", "egdb", "--pieces", "3", "--probes", str(probes), "--dir", str(built)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{counted} (tables of at most 3 pieces)"
    assert lines[1].startswith("probes a second: ") and lines[1].endswith(" called from Python")


def test_estimate_needs_the_smaller_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egdb", "estimate", "--pieces", "4", "--dir", str(tmp_path)]) == 2
    assert "missing" in capsys.readouterr().err
