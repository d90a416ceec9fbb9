"""Games to and from PDN: ``Game`` on one side, the text of ``kingme.rules.pdn`` on the other.

How a kingme game is written
----------------------------
* ``GameType "21"`` (English draughts) always; the casual variant adds ``Variant "casual"``,
  a tag of kingme's own — other programs read such a game as English draughts and may find a
  move they consider illegal (an ordinary move while a capture was possible, a partial capture).
* A start position other than the standard one is ``SetUp "1"`` and ``FEN "..."``.
* A replay seed other than the default is kept in a ``Seed`` tag.
* Every move is written as its full path, so the text never depends on which routes exist.
* ``Result`` is the game's result: a resignation writes the winner's result and an agreed draw
  ``1/2-1/2``; reading a game whose moves do not end it turns such a result back into a
  resignation by the loser or an agreed draw.

>>> game = Game(Setup.named("double-jump"), ["9x18x27"])
>>> game_from_pdn(read_pdn(game_to_pdn(game))[0]).record() == game.record()
True
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kingme.game.game import Game
from kingme.game.result import Result
from kingme.game.setup import DEFAULT_SEED, Setup
from kingme.rules.errors import GameOverError, IllegalMoveError, KingmeError, PdnError
from kingme.rules.fen import START_FEN
from kingme.rules.pdn import MAX_PDN_CHARS, PdnGame, format_game, read_pdn

#: Tags written for every game unless the caller gives them (PDN's "unknown" placeholders).
DEFAULT_TAGS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "-", "Black": "?", "White": "?"}
#: Values of the ``Variant`` tag that mean American checkers (other programs' names included).
AMERICAN_NAMES = ("", "american", "english", "checkers", "english draughts", "american checkers")


def game_to_pdn_game(game: Game, tags: Mapping[str, str] | None = None) -> PdnGame:
    """``game`` as a ``PdnGame``; ``tags`` (Event, players, ...) are added to the defaults."""
    all_tags = dict(DEFAULT_TAGS)
    all_tags.update(tags or {})
    for name in ("GameType", "SetUp", "FEN", "Variant", "Seed", "Result"):
        all_tags.pop(name, None)
    all_tags["GameType"] = "21"
    if game.setup.fen != START_FEN:
        all_tags["SetUp"] = "1"
        all_tags["FEN"] = game.setup.fen
    if game.setup.variant != "american":
        all_tags["Variant"] = game.setup.variant
    if game.setup.seed != DEFAULT_SEED:
        all_tags["Seed"] = game.setup.seed
    result = game.result.pdn if game.result else "*"
    return PdnGame(tags=all_tags, moves=[str(move) for move in game.moves], result=result)


def game_to_pdn(game: Game, tags: Mapping[str, str] | None = None) -> str:
    """``game`` as PDN text (see the module documentation for how it is written)."""
    return format_game(game_to_pdn_game(game, tags))


def _setup(pdn: PdnGame) -> Setup:
    game_type = pdn.tags.get("GameType", "21").strip()
    if game_type.split(",")[0].strip() not in ("21", ""):
        raise PdnError(f"{pdn.where()}: GameType {game_type!r} is not English draughts (21), the only one kingme reads")
    variant = pdn.tags.get("Variant", "").strip().lower()
    if variant in AMERICAN_NAMES:
        variant = "american"
    fen = pdn.tags.get("FEN", "").strip() or START_FEN
    try:
        return Setup(variant, fen, pdn.tags.get("Seed", DEFAULT_SEED))
    except KingmeError as error:
        raise PdnError(f"{pdn.where()}: {error}") from None


def _ended(result: Result) -> str:
    """How a game ended, for the two messages that refuse moves or a result after it."""
    return f"{result.winner or 'nobody'} won ({result.reason})"


def _apply_result(game: Game, pdn: PdnGame) -> None:
    """Check the PDN result against the game, or end the game the way the result says."""
    if pdn.result == "*":
        return
    if game.result is not None:
        if game.result.pdn != pdn.result:
            raise PdnError(
                f"{pdn.where()}: the result {pdn.result} contradicts the moves, after which {_ended(game.result)}"
            )
        return
    if pdn.result == "1/2-1/2":
        game.agree_draw()
    else:
        game.resign("white" if pdn.result == "1-0" else "black")


def game_from_pdn(pdn: PdnGame) -> Game:
    """Replay a ``PdnGame``; ``PdnError`` names the game, line and move number of a problem.

    Moves may be written in any form ``Board.parse_move`` reads (full path, or the short capture
    form when only one route matches).
    """
    game = Game(_setup(pdn))
    for ply, text in enumerate(pdn.moves):
        try:
            game.push(text)
        except GameOverError:
            assert game.result is not None
            raise PdnError(
                f"{pdn.where(ply)}: move {pdn.move_number(ply)} {text} comes after the end of the game, "
                f"in which {_ended(game.result)}"
            ) from None
        except IllegalMoveError as error:
            raise PdnError(f"{pdn.where(ply)}: move {pdn.move_number(ply)} {text}: {error}") from None
    _apply_result(game, pdn)
    return game


def games_from_pdn(text: str) -> list[Game]:
    """Every game in a PDN text, replayed; the first problem raises ``PdnError``."""
    return [game_from_pdn(pdn) for pdn in read_pdn(text)]


def read_pdn_file(path: str | Path) -> str:
    """The text of a PDN file: UTF-8 (with or without BOM), else Latin-1 as older programs write."""
    file = Path(path)
    if file.is_dir():
        raise PdnError(f"{path} is a directory, not a PDN file")
    with file.open("rb") as stream:
        data = stream.read(MAX_PDN_CHARS + 1)
    if len(data) > MAX_PDN_CHARS:
        raise PdnError(f"{path} is larger than {MAX_PDN_CHARS:,} bytes, the most kingme reads")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def check_appendable(path: Path) -> None:
    """Fail before hours of play or analysis, not after the first game, when games cannot be
    appended to the PDN file ``path``: ``KingmeError`` naming the reason."""
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as error:
        raise KingmeError(f"{path}: cannot write the games there ({(error.strerror or 'error').lower()})") from None
