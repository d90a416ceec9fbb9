"""The evaluation network: the compiled score is the whole-number network computed exactly, the
same for either colour, and a network file is checked before it is believed; training learns."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numba import njit

from kingme.cli import main
from kingme.engine import egdb, network, network_simd, network_training, selfplay
from kingme.engine.bitops import turned
from tests.engine.random_positions import random_board


def _reference(net: network.Network, own: int, opp: int, kings: int) -> int:
    """The network of ``network.py``'s docstring in float64, one neuron at a time."""
    planes = (own & ~kings, own & kings, opp & ~kings, opp & kings)
    inputs = np.array([planes[i // 32] >> (i % 32) & 1 for i in range(network.INPUTS)], dtype=np.float64)
    hidden = np.clip(net.first_bias.astype(np.float64) + inputs @ net.first.astype(np.float64), 0, network.ONE)
    second = np.clip(
        np.floor((net.second.astype(np.float64) @ hidden + net.second_bias) / network.WEIGHT_ONE), 0, network.ONE
    )
    total = net.output_bias + second @ net.output.astype(np.float64)
    return int(np.floor(total * net.scale / (network.ONE * network.WEIGHT_ONE)))


def _score(own: int, opp: int, kings: int, black: bool) -> int:
    """The network's score, with the scratch the search would lend it."""
    return network.network_score(own, opp, kings, black, network.scratch())


def test_the_compiled_score_is_the_whole_number_network_computed_exactly() -> None:
    rng = random.Random("network")
    for _ in range(300):
        board = random_board(rng, "american")
        own, opp = (board.black, board.white) if board.black_to_move else (board.white, board.black)
        score = _score(own, opp, board.kings, board.black_to_move)
        if board.black_to_move:
            assert score == _reference(network._NETWORK, own, opp, board.kings)
        else:
            assert score == _reference(network._NETWORK, turned(own), turned(opp), turned(board.kings))


def test_a_network_of_any_width_is_padded_to_whole_vectors_and_scored_exactly() -> None:
    """Layers of 20 and 5 neurons (the vector code works on 16 and 8 at a time) score as the
    reference does: the padding neurons add nothing."""
    rng = np.random.default_rng(3)
    hidden, second = 20, 5

    def weights(low: int, high: int, *shape: int) -> list[object]:
        values: list[object] = rng.integers(low, high, shape).tolist()
        return values

    net = network.read_network(
        json.dumps(
            {
                "scale": 300.0,
                "first": weights(-100, 100, network.INPUTS, hidden),
                "first_bias": weights(-40, 40, hidden),
                "second": weights(-250, 250, second, hidden),
                "second_bias": weights(-9000, 9000, second),
                "output": weights(-150, 500, second),
                "output_bias": -300,
            }
        ),
        "n.json",
    )
    layout = network.Layout.of(net)
    assert layout.first.shape[1] == 32 and layout.second.shape[0] == 8  # padded to whole vectors
    first_kernel, second_kernel = layout.kernels()
    first, first_bias, second_layer, second_bias, output = (
        layout.first,
        layout.first_bias,
        layout.second,
        layout.second_bias,
        layout.output,
    )

    @njit
    def total(own: int, opp: int, kings: int, scratch: np.ndarray) -> int:
        first_kernel(scratch, first, first_bias, own & ~kings, own & kings, opp & ~kings, opp & kings)
        return int(second_kernel(scratch, second_layer, second_bias, output))

    unit = net.scale / (network.ONE * network.WEIGHT_ONE)
    boards = random.Random("widths")
    for _ in range(200):
        board = random_board(boards, "american")
        own, opp = board.black, board.white
        score = int(np.floor((net.output_bias + total(own, opp, board.kings, network.scratch())) * unit))
        assert score == _reference(net, own, opp, board.kings)


def test_white_to_move_is_scored_as_black_to_move_on_the_turned_board() -> None:
    rng = random.Random("colours")
    for _ in range(200):
        board = random_board(rng, "american")
        own, opp, kings = board.black, board.white, board.kings
        as_white = _score(turned(own), turned(opp), turned(kings), False)
        assert as_white == _score(own, opp, kings, True)


def test_the_portable_vector_code_gives_the_same_scores_as_the_avx2_instruction() -> None:
    """Processors without AVX2 get the second layer as plain vector code: the same sums."""
    layout = network.Layout.of(network._NETWORK)
    kernels = [layout.kernels(avx2)[1] for avx2 in (network_simd.AVX2, False)]

    def run(kernel: Any) -> Any:
        return njit(lambda hidden: kernel(hidden, network.SECOND, network.SECOND_BIAS, network.OUTPUT))

    fast, portable = (run(kernel) for kernel in kernels)
    rng = np.random.default_rng(7)
    for _ in range(200):
        hidden = rng.integers(0, network.ONE + 1, network.HIDDEN).astype(np.int16)
        hidden[rng.random(network.HIDDEN) < 0.4] = 0
        assert fast(hidden) == portable(hidden)


def _file(**changes: object) -> str:
    hidden, second = 4, 2
    contents: dict[str, object] = {
        "scale": 300.0,
        "first": [[1] * hidden for _ in range(network.INPUTS)],
        "first_bias": [0] * hidden,
        "second": [[2] * hidden for _ in range(second)],
        "second_bias": [0] * second,
        "output": [3] * second,
        "output_bias": 0,
    }
    contents.update(changes)
    return json.dumps(contents)


NOT_A_NETWORK = "n.json is not a network file: "


def test_a_small_network_file_reads_back_as_written() -> None:
    net = network.read_network(_file(), "n.json")
    assert net.first.shape == (network.INPUTS, 4) and net.second.shape == (2, 4) and net.scale == 300.0
    assert net.output.tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[", "n.json is not a network file: Expecting value"),
        (json.dumps({"first": []}), "n.json is not a network file: it has no 'first_bias'"),
        (_file(first=[[1] * 4]), "n.json is not a network file: first has shape (1, 4), expected (128, 4)"),
        (_file(output=[3, 0.5]), "n.json is not a network file: output holds a number that is not a whole number"),
        (_file(output=[3, "x"]), "n.json is not a network file: could not convert string to float: 'x'"),
        (_file(scale=0), "n.json is not a network file: scale 0.0 is not between 1 and 10,000 hundredths a logit"),
        (
            _file(second=[[40_000] * 4] * 2),
            f"{NOT_A_NETWORK}first-layer sums or second-layer weights too large for 16 bits",
        ),
        (
            _file(first=[[1_500] * 4] * network.INPUTS),
            f"{NOT_A_NETWORK}first-layer sums or second-layer weights too large for 16 bits",
        ),
        (
            _file(second=[[30_000] * 4] * 2, second_bias=[2**31 - 1, 0]),
            f"{NOT_A_NETWORK}second-layer or output sums too large for 32 bits",
        ),
        (_file(output=[2**30, 0]), f"{NOT_A_NETWORK}second-layer or output sums too large for 32 bits"),
        (_file(output_bias=2**40), f"{NOT_A_NETWORK}output_bias holds a number too large for 32 bits"),
        (_file(first_bias=[]), "n.json is not a network file: layers of 0 and 2 neurons; at most 512 and 256"),
    ],
)
def test_a_file_that_is_not_a_network_is_refused_with_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match="^" + __import__("re").escape(problem)):
        network.read_network(text, "n.json")


def network_text_of_package() -> str:
    return (Path(network.__file__).parent / network.NETWORK_FILE).read_text()


def _material_games(folder: Path) -> Path:
    """A games file of random positions, each scored by the side to move's lead in men."""
    rng = random.Random("net")
    rows = []
    for number in range(20):
        rows.append(f"# batch {number}")
        for _ in range(60):
            board = random_board(rng, "american")
            lead = bin(board.black & ~board.kings).count("1") - bin(board.white & ~board.kings).count("1")
            result = 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
            side = "b" if board.black_to_move else "w"
            rows.append(f"{board.black:x} {board.white:x} {board.kings:x} {side} {result} {100 * lead}")
        rows.append(f"# end {number}")
    (folder / "games-0.txt").write_text("\n".join(rows) + "\n")
    return folder / "games-0.txt"


def test_examples_are_seen_from_the_side_to_move(tmp_path: Path) -> None:
    train, *_ = network_training.read_examples([_material_games(tmp_path)], td=0.0)
    own_men, opp_men = train.inputs[:, :32].sum(axis=1), train.inputs[:, 64:96].sum(axis=1)
    # The score was Black's lead; seen from the side to move it is the mover's lead.
    assert np.array_equal(np.sign(train.scores), np.sign(own_men.astype(int) - opp_men.astype(int)))


def test_training_learns_that_the_side_with_more_men_stands_better(tmp_path: Path) -> None:
    train, held_out, *_ = network_training.read_examples([_material_games(tmp_path)], td=0.0)
    guess = np.full(len(held_out), train.labels.mean())
    _, held = network_training.train(train, held_out, epochs=20, hidden=16, batch=32)
    assert held < network_training.cross_entropy(guess, held_out.labels) - 0.05


def test_the_net_command_trains_and_writes_a_network_the_engine_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    assert main(["tune", "net", "--dir", str(tmp_path), "--epochs", "1", "--output", str(tmp_path / "n.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"reading the positions of 1 games file in {tmp_path}…"
    assert lines[-1] == f"network written to {tmp_path / 'n.json'}"
    net = network.read_network((tmp_path / "n.json").read_text(), "n.json")
    assert net.first.shape == (network.INPUTS, network_training.HIDDEN)


def test_the_net_command_trains_the_layer_widths_it_is_given(tmp_path: Path) -> None:
    _material_games(tmp_path)
    out = tmp_path / "n.json"
    assert (
        main(
            [
                "tune",
                "net",
                "--dir",
                str(tmp_path),
                "--epochs",
                "1",
                "--hidden",
                "48",
                "--second",
                "8",
                "--output",
                str(out),
            ]
        )
        == 0
    )
    net = network.read_network(out.read_text(), "n.json")
    assert (net.first.shape, net.second.shape) == ((network.INPUTS, 48), (8, 48))
    assert "layers of 48 and 8" in json.loads(out.read_text())["note"]


def test_the_net_command_refuses_a_layer_wider_than_the_search_holds_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    out = tmp_path / "n.json"
    assert main(["tune", "net", "--dir", str(tmp_path), "--hidden", "513", "--output", str(out)]) != 0
    assert (
        f"layers of 513 and 32 neurons; at most {network.MOST_HIDDEN} and {network.MOST_SECOND}"
        in capsys.readouterr().err
    )
    assert not out.exists()


def test_weights_read_back_from_a_network_file_are_the_weights_it_was_written_from() -> None:
    start = network_training.Weights.of_network(network.read_network(network_text_of_package(), "package"))
    again = network.read_network(
        network_training.network_text(network_training.quantised(start, 100.0, "again"), "again"), "again"
    )
    package = network.read_network(network_text_of_package(), "package")
    assert all(
        np.array_equal(a, b)
        for a, b in zip(
            (again.first, again.first_bias, again.second, again.second_bias, again.output),
            (package.first, package.first_bias, package.second, package.second_bias, package.output),
            strict=True,
        )
    )
    assert again.output_bias == package.output_bias


def test_the_net_command_starts_from_a_network_and_keeps_its_widths(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    argv = ["tune", "net", "--dir", str(tmp_path), "--epochs", "1"]
    assert main([*argv, "--hidden", "24", "--output", str(first)]) == 0
    assert (
        main(["tune", "net", "--dir", str(tmp_path), "--epochs", "1", "--start", str(first), "--output", str(second)])
        == 0
    )
    assert f"starting from {first} (layers of 24 and 32): held-out loss" in capsys.readouterr().out
    assert network.read_network(second.read_text(), "second").first.shape == (network.INPUTS, 24)


def test_the_net_command_writes_the_scale_it_is_given(tmp_path: Path) -> None:
    _material_games(tmp_path)
    out = tmp_path / "n.json"
    assert main(["tune", "net", "--dir", str(tmp_path), "--epochs", "1", "--scale", "360.5", "--output", str(out)]) == 0
    assert network.read_network(out.read_text(), "n.json").scale == 360.5


def test_the_net_command_refuses_a_start_that_is_not_a_network_before_reading_the_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    (tmp_path / "start.json").write_text("{}")
    out = tmp_path / "n.json"
    assert (
        main(["tune", "net", "--dir", str(tmp_path), "--start", str(tmp_path / "start.json"), "--output", str(out)])
        != 0
    )
    err = capsys.readouterr()
    assert f"{tmp_path / 'start.json'} is not a network file" in err.err and "reading the positions" not in err.out
    assert not out.exists()


def test_the_net_command_without_games_says_how_to_make_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tune", "net", "--dir", str(tmp_path)]) != 0
    assert f"no games in {tmp_path}: run 'kingme tune selfplay --dir {tmp_path}' first" in capsys.readouterr().err


def test_a_label_is_its_own_expected_result_blended_with_the_next_positions_label_down_to_the_result() -> None:
    expected = np.array([0.6, 0.7, 0.5, 0.2])
    searched = np.array([True, False, True, True])
    results = np.array([1.0, 1.0, 1.0, 0.0])
    game = np.array([1, 1, 1, 2])
    returns = network_training._returns(expected, searched, results, game, 0.5, np.full(4, np.nan))
    # Game 2 is one position: half its expected result, half its result.
    assert returns[3] == 0.5 * 0.2 + 0.5 * 0.0
    # Game 1 ends in a win: 0.5 * 0.5 + 0.5 * 1; the forced move takes the next label; then the first.
    assert returns[2] == 0.75 and returns[1] == 0.75 and returns[0] == 0.5 * 0.6 + 0.5 * 0.75


def test_a_position_the_tables_know_is_labelled_exactly_and_earlier_labels_blend_back_from_it() -> None:
    expected = np.array([0.6, 0.7, 0.5, 0.5])
    searched = np.ones(4, dtype=np.bool_)
    results = np.full(4, 0.5)  # the game was drawn: the win the tables saw was thrown away
    exact = np.array([np.nan, np.nan, 1.0, 1.0])
    returns = network_training._returns(expected, searched, results, np.ones(4, dtype=np.int64), 0.5, exact)
    assert returns[3] == returns[2] == 1.0
    assert returns[1] == 0.5 * 0.7 + 0.5 * 1.0 and returns[0] == 0.5 * 0.6 + 0.5 * returns[1]


@pytest.fixture(scope="module")
def three_piece_directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("egdb")
    egdb.build(directory, 3)
    return directory


def test_with_tables_an_ending_they_know_gets_its_exact_result_whatever_the_game_did(
    tmp_path: Path, three_piece_directory: Path
) -> None:
    # Two black kings against a white king, recorded in a drawn game; White to move in the second.
    rows = ["# batch 0", "24000 10000000 10024000 b 0.5 0", "24000 10000000 10024000 w 0.5 0", "# end 0"]
    (tmp_path / "games-0.txt").write_text("\n".join(rows) + "\n")
    files = [tmp_path / "games-0.txt"]
    plain, *_ = network_training.read_examples(files, td=0.9)
    exact, *_ = network_training.read_examples(files, td=0.9, tables=egdb.load(three_piece_directory, 3))
    assert list(plain.labels) == [0.5, 0.5]
    assert list(exact.labels) == [1.0, 0.0]  # each from its side to move's view: Black wins


def test_the_net_command_labels_endings_by_the_tables_it_is_given(tmp_path: Path, three_piece_directory: Path) -> None:
    _material_games(tmp_path)
    out = tmp_path / "n.json"
    argv = ["tune", "net", "--dir", str(tmp_path), "--epochs", "1", "--tables", str(three_piece_directory)]
    assert main([*argv, "--output", str(out)]) == 0
    assert "endings of at most 3 pieces labelled by the tables" in json.loads(out.read_text())["note"]


def test_the_net_command_refuses_a_tables_folder_without_a_complete_set_before_training(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _material_games(tmp_path)
    (tmp_path / "empty").mkdir()
    out = tmp_path / "n.json"
    assert main(["tune", "net", "--dir", str(tmp_path), "--tables", str(tmp_path / "empty"), "--output", str(out)]) != 0
    assert f"--tables {tmp_path / 'empty'}: no complete set of endgame tables there" in capsys.readouterr().err
    assert not out.exists()


def test_self_play_batches_split_into_games_at_the_ballots_positions() -> None:
    first = selfplay.play_game(0, selfplay.Recipe(300))[:5]
    second = selfplay.play_game(1, selfplay.Recipe(300))[:4]
    assert selfplay.split_games(first + second) == [first, second]
