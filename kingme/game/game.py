"""``Game``: a whole game — its setup, its moves, and everything derived from them.

The game is the referee of the end-of-game rules. After each whole turn it checks, in order:

1. the side to move has no legal move (no pieces, or all blocked): the other side wins;
2. the same placement (kings included) with the same side to move occurs for the third time
   (the start position counts): draw by repetition;
3. 80 plies in a row without a capture and without a man moving: draw for no progress.

Resignation and agreed draws end a game from outside. A game is rebuilt exactly from its
setup and moves, which is how the browser, the server and storage exchange games:

>>> game = Game(Setup.named("double-jump"), ["9x18x27"])
>>> game.result.winner, game.result.reason, game.steps
('black', 'no-pieces', 2)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from kingme.game.result import Result
from kingme.game.setup import Setup, SetupError
from kingme.rules.board import Board, Color, PositionKey, opponent
from kingme.rules.errors import GameOverError, IllegalMoveError, UndoError
from kingme.rules.move import Move

#: How many of the most recent turns can be taken back.
UNDO_LIMIT = 100
#: Plies without a capture or a man move that draw the game (40 moves each).
NO_PROGRESS_PLIES = 80
#: The longest record accepted from outside. The rules cap a game near 16,000 plies (every man
#: advance or capture may be followed by 79 quiet plies); real games are a few hundred.
MAX_RECORD_MOVES = 16_000


class Game:
    """A game of checkers from ``setup`` (standard American by default) through ``moves``.

    Moves may be ``Move`` objects, move text (``"11-15"``, ``"9x27"``) or paths (``[9, 18, 27]``).
    An illegal move raises ``IllegalMoveError`` naming the move and its number.
    """

    def __init__(self, setup: Setup | None = None, moves: Iterable[Move | str | list[int]] = ()) -> None:
        self.setup = setup or Setup()
        self.board = Board(self.setup.fen, self.setup.variant)
        self.moves: list[Move] = []
        self.crowned: list[bool] = []
        self._quiet: list[int] = [0]
        self._seen: Counter[PositionKey] = Counter({self.board.key(): 1})
        self._undoable = 0
        self._ending: Result | None = None
        self.result: Result | None = self._adjudicate()
        for number, move in enumerate(moves, start=1):
            try:
                self.push(move)
            except (IllegalMoveError, GameOverError) as error:
                raise type(error)(f"move {number}: {error}") from None

    # -- state ---------------------------------------------------------------------------

    @property
    def turn(self) -> Color:
        return self.board.turn

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def steps(self) -> int:
        """Single board moves by both sides, each jump of a multi-jump counted (seed 000)."""
        return sum(move.steps for move in self.moves)

    @property
    def quiet_plies(self) -> int:
        """Plies in a row without a capture or a man moving; 80 draws the game."""
        return self._quiet[-1]

    @property
    def repetitions(self) -> int:
        """How many times the current position (with this side to move) has occurred."""
        return self._seen[self.board.key()]

    @property
    def undoable(self) -> int:
        """How many turns ``undo`` can take back now (0 once the game is over)."""
        return 0 if self.is_over else self._undoable

    def legal_moves(self) -> list[Move]:
        """The legal moves, or none once the game is over (by resignation too)."""
        return [] if self.is_over else self.board.legal_moves()

    # -- changing the game ---------------------------------------------------------------

    def _as_move(self, move: Move | str | list[int]) -> Move:
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return self.board.parse_move(move)
        if isinstance(move, (list, tuple)) and all(isinstance(s, int) and not isinstance(s, bool) for s in move):
            return self.board.move_for_path(move)
        raise IllegalMoveError(f"a move must be text such as '11-15' or a list of squares, not {move!r:.40}")

    def push(self, move: Move | str | list[int]) -> Move:
        """Play one whole turn and return it as a ``Move``; then check for a result."""
        if self.result is not None:
            raise GameOverError("the game is over")
        move = self._as_move(move)
        if move not in self.board.legal_moves():
            raise IllegalMoveError(f"{move} is not a legal move for {self.turn}")
        king_moved = bool(self.board.kings & (1 << (move.from_square - 1)))
        crowning = self.board.is_crowning(move)
        self.board.push(move)
        progress = move.is_capture or not king_moved
        self._quiet.append(0 if progress else self._quiet[-1] + 1)
        self._seen[self.board.key()] += 1
        self.moves.append(move)
        self.crowned.append(crowning)
        self._undoable = min(UNDO_LIMIT, self._undoable + 1)
        self.result = self._adjudicate()
        return move

    def undo(self) -> Move:
        """Take back the last turn, restoring repetition and no-progress counts."""
        if self.result is not None:
            raise UndoError("a finished game cannot be undone")
        if not self.moves:
            raise UndoError("there is no move to undo")
        if self._undoable == 0:
            raise UndoError(f"only the last {UNDO_LIMIT} turns can be undone")
        key = self.board.key()
        self._seen[key] -= 1
        if not self._seen[key]:
            del self._seen[key]
        self.board.pop()
        self._quiet.pop()
        self.crowned.pop()
        self._undoable -= 1
        return self.moves.pop()

    def resign(self, color: Color | None = None) -> Result:
        """End the game against ``color`` (the side to move by default)."""
        if self.result is not None:
            raise GameOverError("the game is over")
        if color not in (None, "black", "white"):
            raise IllegalMoveError(f"cannot resign for {color!r}: choose black or white")
        self._ending = self.result = Result(opponent(color or self.turn), "resignation")
        return self.result

    def lose_on_time(self, color: Color) -> Result:
        """End the game against ``color``, whose time ran out. The clock is not the game's: an
        online room keeps it and says when it fell. A player out of time loses whatever is left
        on the board (the rule of checkers' tournament clocks; chess's draw when the opponent
        could not win has no counterpart kingme could decide fairly)."""
        if self.result is not None:
            raise GameOverError("the game is over")
        if color not in ("black", "white"):
            raise IllegalMoveError(f"cannot lose on time for {color!r}: choose black or white")
        self._ending = self.result = Result(opponent(color), "time")
        return self.result

    def agree_draw(self) -> Result:
        """End the game as a draw agreed by both players."""
        if self.result is not None:
            raise GameOverError("the game is over")
        self._ending = self.result = Result(None, "agreement")
        return self.result

    def _adjudicate(self) -> Result | None:
        if self._ending is not None:
            return self._ending
        if not self.board.legal_moves():
            loser = self.turn
            return Result(opponent(loser), "no-pieces" if self.board.count(loser) == 0 else "blocked")
        if self._seen[self.board.key()] >= 3:
            return Result(None, "repetition")
        if self._quiet[-1] >= NO_PROGRESS_PLIES:
            return Result(None, "no-progress")
        return None

    # -- exchange ------------------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The game as plain data: setup, moves (full paths) and how it ended, if from outside."""
        ending: dict[str, Any] | None = None
        if self._ending is not None:
            ending = {
                "resignation": {"resigned": self._ending.loser},
                "time": {"timeout": self._ending.loser},
            }.get(self._ending.reason, {"agreed": True})
        return {"setup": self.setup.to_dict(), "moves": [str(m) for m in self.moves], "ending": ending}

    @classmethod
    def from_record(cls, data: object) -> Game:
        """Rebuild a game from ``record()``'s data, checking every field and every move."""
        if not isinstance(data, dict):
            raise SetupError("a game record must be an object with setup and moves")
        unknown = set(data) - {"setup", "moves", "ending"}
        if unknown:
            raise SetupError(f"unknown game record field(s): {', '.join(sorted(map(str, unknown)))}")
        moves = data.get("moves", [])
        if not isinstance(moves, list):
            raise SetupError("the record's moves must be a list")
        if len(moves) > MAX_RECORD_MOVES:
            raise SetupError(f"the record has {len(moves)} moves; at most {MAX_RECORD_MOVES} are accepted")
        game = cls(Setup.from_dict(data.get("setup", {})), moves)
        ending = data.get("ending")
        if ending is not None:
            if ending == {"agreed": True}:
                game.agree_draw()
            elif isinstance(ending, dict) and set(ending) == {"resigned"}:
                game.resign(ending["resigned"])
            elif isinstance(ending, dict) and set(ending) == {"timeout"}:
                game.lose_on_time(ending["timeout"])
            else:
                raise SetupError(
                    "the record's ending must be {'resigned': colour}, {'timeout': colour} or {'agreed': true}"
                )
        return game
