"""Games in and out of PDN: what kingme writes reads back as the same game (setups, variant,
seed and endings included), and games written by other programs (pydraughts, CheckerBoard)
import."""

import random
import re
from pathlib import Path

import pytest

from kingme import Game, Setup
from kingme.game.pdn import game_from_pdn, game_to_pdn, games_from_pdn
from kingme.rules import PdnError
from kingme.rules.pdn import read_pdn

FIXTURES = Path(__file__).parent / "fixtures"


def round_trip(game, tags=None):
    [again] = games_from_pdn(game_to_pdn(game, tags))
    return again


def random_game(seed, setup=None, plies=400):
    rng, game = random.Random(seed), Game(setup)
    while not game.is_over and len(game.moves) < plies:
        game.push(rng.choice(game.legal_moves()))
    return game


def test_a_game_is_written_with_the_roster_tags_gametype_and_numbered_moves():
    game = Game(moves=["11-15", "23-19", "8-11"])
    text = game_to_pdn(game, {"Event": "Club night", "Black": "Ann", "White": "Bob", "Date": "2026.11.29"})
    assert text == (
        '[Event "Club night"]\n[Site "?"]\n[Date "2026.11.29"]\n[Round "-"]\n[Black "Ann"]\n[White "Bob"]\n'
        '[Result "*"]\n[GameType "21"]\n\n1. 11-15 23-19 2. 8-11 *\n'
    )


@pytest.mark.parametrize("seed", range(6))
def test_random_games_read_back_as_the_same_game(seed):
    game = random_game(seed)
    assert round_trip(game).record() == game.record()
    assert round_trip(game).result == game.result


def test_a_game_from_a_fen_with_white_to_move_reads_back():
    game = Game(Setup(fen="W:W9,10,K31:B5,6,13,14,22,23"), ["10x1", "13-17", "1-6"])
    text = game_to_pdn(game)
    assert '[SetUp "1"]\n[FEN "W:W9,10,K31:B5,6,13,14,22,23"]' in text
    assert "\n1... 10x1 2. 13-17 1-6 *\n" in text
    assert round_trip(game).record() == game.record()


def test_the_casual_variant_is_marked_with_a_variant_tag_and_reads_back():
    game = Game(Setup("casual", "B:W14,23:B9,1"), ["9x18", "23-19", "1-5"])
    text = game_to_pdn(game)
    assert '[GameType "21"]' in text and '[Variant "casual"]' in text
    assert round_trip(game).record() == game.record()
    # Without the tag the game is American checkers, where stopping after one jump is illegal.
    with pytest.raises(PdnError, match=r"move 1\. 9x18"):
        games_from_pdn(text.replace('[Variant "casual"]\n', ""))


def test_casual_random_games_read_back():
    for seed in range(3):
        game = random_game(seed, Setup("casual"))
        assert round_trip(game).record() == game.record()


def test_a_replay_seed_other_than_the_default_is_kept():
    game = Game(Setup(seed="tuesday"), ["11-15"])
    assert '[Seed "tuesday"]' in game_to_pdn(game)
    assert round_trip(game).setup.seed == "tuesday"
    assert "Seed" not in game_to_pdn(Game())


def test_resignations_and_agreed_draws_read_back():
    resigned = Game(moves=["11-15", "23-19"])
    resigned.resign("black")
    agreed = Game(moves=["11-15"])
    agreed.agree_draw()
    for game, result in ((resigned, "0-1"), (agreed, "1/2-1/2")):
        assert f'[Result "{result}"]' in game_to_pdn(game)
        again = round_trip(game)
        assert again.record() == game.record() and again.result == game.result


def test_games_decided_on_the_board_write_their_result():
    game = Game(Setup.named("double-jump"), ["9x18x27"])
    assert game_to_pdn(game).endswith("1. 9x18x27 1-0\n")
    assert round_trip(game).result.reason == "no-pieces"


def test_a_caller_cannot_override_the_tags_that_describe_the_game():
    game = Game(Setup.named("double-jump"))
    text = game_to_pdn(game, {"FEN": "B:W21-32:B1-12", "GameType": "20", "Result": "1-0"})
    assert '[FEN "B:W14,23:B9"]' in text and '[GameType "21"]' in text and '[Result "*"]' in text


def test_several_games_in_one_text_read_as_several_games():
    games = [random_game(seed, plies=30) for seed in range(3)]
    text = "\n".join(game_to_pdn(game, {"Round": str(n)}) for n, game in enumerate(games, 1))
    assert [g.record() for g in games_from_pdn(text)] == [g.record() for g in games]


def test_the_checkerboard_style_fixture_imports():
    text = (FIXTURES / "checkerboard.pdn").read_text()
    club, problem = read_pdn(text)
    assert club.tags["Black"] == "Anderson, A." and club.tags["Round"] == "3"
    assert club.comments[0] == (8, "White gives a man here; 24-20 was the book move.")
    first = game_from_pdn(club)
    assert len(first.moves) == 50
    assert str(first.moves[20]) == "15x22x31"  # written 15x31
    assert (first.result.winner, first.result.reason) == ("black", "resignation")
    second = game_from_pdn(problem)
    assert second.setup.fen == "W:W22,25,K30:B14,15,K6"
    assert str(second.moves[1]) == "15x22x29" and second.crowned[1]
    assert (second.result.winner, second.result.reason) == ("black", "no-pieces")


# -- other programs ------------------------------------------------------------------------

draughts = pytest.importorskip("draughts")
from draughts.PDN import PDNReader, PDNWriter  # noqa: E402


def pydraughts_game(seed, fen="startpos", plies=200):
    """A random game played and written by pydraughts; returns its PDN and the paths it played."""
    rng, board = random.Random(seed), draughts.Board("english", fen)
    paths = []
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves or board.is_over():
            break
        move = rng.choice(moves)
        paths.append(tuple(move.steps_move))
        board.push(move)
    writer = PDNWriter(filename="", board=board, tags={"Event": f"pydraughts {seed}"}, game_ending="*")
    return writer.pdn_text, paths


@pytest.mark.parametrize("seed", range(8))
def test_games_written_by_pydraughts_import_with_the_same_moves(seed):
    text, paths = pydraughts_game(seed)
    [game] = games_from_pdn(text)
    assert [move.path for move in game.moves] == paths


def test_a_pydraughts_game_from_a_fen_with_white_to_move_imports():
    text, paths = pydraughts_game(3, fen="W:W9,10,K31:B5,6,13,14,22,23", plies=30)
    [game] = games_from_pdn(text)
    assert game.setup.fen == "W:W9,10,K31:B5,6,13,14,22,23"
    assert [move.path for move in game.moves] == paths


def test_several_pydraughts_games_in_one_file_import():
    texts, all_paths = zip(*(pydraughts_game(seed, plies=40) for seed in range(4)), strict=True)
    games = games_from_pdn("".join(texts))
    assert [[m.path for m in g.moves] for g in games] == list(all_paths)


def test_pydraughts_reads_what_kingme_writes():
    game = random_game(11, plies=60)
    [theirs] = PDNReader(pdn_text=game_to_pdn(game)).games
    assert theirs.moves == [str(move) for move in game.moves]


# -- refused games -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('[Event "x"]\n1. 11-15 23-19\n2. 11-15 *', "game 1, line 3: move 2. 11-15: '11-15' is not legal for black"),
        ('[FEN "W:W21-32:B1-12"]\n1... 22-18 2. 11-15 3-7 *', "move 2... 3-7"),
        ("1. 11-15 23-19 * 1. 9-14 22-17 2. 11-15 22x18 *", "game 2, line 1: move 2... 22x18"),
        ('[FEN "B:W6,7,14,15:B2"]\n1. 2x18 *', "2x18' matches 2 moves: 2x9x18, 2x11x18"),
        ('[GameType "20"]\n1. 32-28 *', "GameType '20' is not English draughts"),
        ('[GameType "20,W,10,10,N2,0"]\n*', "GameType '20,W,10,10,N2,0'"),
        ('[Variant "italian"]\n*', "unknown variant 'italian'"),
        ('[FEN "B:W33:B1"]\n*', "game 1, line 1: FEN 'B:W33:B1': square 33"),
        ('[FEN "garbage"]\n*', "must start with the side to move"),
        ('[Seed ""]\n*', "1 to 96 characters"),
        ('[FEN "B:W14,23:B9"]\n1. 9x18x27 2. 1-5 *', "move 1... 1-5 comes after the end of the game"),
        ('[FEN "B:W14,23:B9"]\n1. 9x18x27 0-1', "the result 0-1 contradicts the moves"),
        ('[FEN "B:W14,23:B9"]\n1. 9x18x27 1/2-1/2', "contradicts the moves, after which black won"),
    ],
)
def test_a_pdn_game_that_cannot_be_replayed_is_refused_naming_game_line_and_move(text, problem):
    with pytest.raises(PdnError, match=re.escape(problem)):
        games_from_pdn(text)


def test_the_american_variant_may_be_named_as_other_programs_do():
    for name in ("American", "english", "Checkers", ""):
        [game] = games_from_pdn(f'[Variant "{name}"]\n1. 11-15 *')
        assert game.setup.variant == "american"
