"""A room: two seats, the current game, the score, and pending requests — as a fold of events.

Every change to a room is an event. ``Room.decide`` checks a player's request against the
current state and returns the event it would cause (or raises ``RoomError``, changing
nothing); ``Room.apply`` performs an event. The server applies an event only after storing
it, and other processes apply the same events as they hear of them, so every copy of a room
goes through the same steps. Players are numbered 1 (the creator) and 2 (the friend); colours
belong to a game, and switch between games unless a player asks to keep them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kingme.game import Game, Setup
from kingme.rules import Color, KingmeError, Move, opponent
from kingme.server.online.protocol import Message, ProtocolError
from kingme.server.state import game_state, turn_row
from kingme.server.storage import StoredEvent, StoredRoom

#: A room expires after this long without a move.
ROOM_LIFETIME_SECONDS = 30 * 24 * 3600
PLAYERS = (1, 2)


class RoomError(ProtocolError):
    """A request the room refuses in its current state (out of turn, illegal move, …)."""


def _other(player: int) -> int:
    return 3 - player


@dataclass
class Room:
    """The state of one room. ``version`` is the number of its last event."""

    id: str
    variant: str
    version: int
    last_move_at: int
    sides: dict[str, int]
    seated: set[int]
    game: Game
    game_no: int = 1
    score: dict[str, int] = field(default_factory=lambda: {"1": 0, "2": 0, "draws": 0})
    undo_request: int | None = None
    draw_offer: int | None = None
    play_again: dict[int, bool] = field(default_factory=dict)
    move_ids: dict[str, int] = field(default_factory=dict)
    #: Hashes of the seat tokens by player (kept out of snapshots and events).
    tokens: dict[int, str] = field(default_factory=dict)

    # -- building and storing ------------------------------------------------------------

    @classmethod
    def new(cls, room_id: str, variant: str, creator_color: Color, now: int) -> Room:
        sides: dict[str, int] = {creator_color: 1, opponent(creator_color): 2}
        return cls(room_id, variant, 0, now, sides, {1}, Game(Setup(variant)))

    def snapshot(self, record: dict[str, Any] | None = None) -> dict[str, Any]:
        """The state kept in the database next to the event log (``record``: the game's, if at hand)."""
        return {
            "sides": self.sides,
            "seated": sorted(self.seated),
            "game": record or self.game.record(),
            "game_no": self.game_no,
            "score": self.score,
            "undo_request": self.undo_request,
            "draw_offer": self.draw_offer,
            "play_again": {str(player): keep for player, keep in self.play_again.items()},
        }

    @classmethod
    def restore(cls, stored: StoredRoom) -> Room:
        """The room as stored (its game is re-checked move by move)."""
        snapshot = stored.state
        tokens = {1: stored.player1_token} | ({2: stored.player2_token} if stored.player2_token else {})
        return cls(
            stored.id,
            stored.variant,
            stored.version,
            stored.last_move_at,
            dict(snapshot["sides"]),
            set(snapshot["seated"]),
            Game.from_record(snapshot["game"]),
            snapshot["game_no"],
            dict(snapshot["score"]),
            snapshot["undo_request"],
            snapshot["draw_offer"],
            {int(player): keep for player, keep in snapshot["play_again"].items()},
            dict(stored.move_ids),
            tokens,
        )

    # -- reading -------------------------------------------------------------------------

    def color_of(self, player: int) -> str:
        return "black" if self.sides["black"] == player else "white"

    def expired(self, now: float) -> bool:
        return now - self.last_move_at > ROOM_LIFETIME_SECONDS

    def public_state(self) -> dict[str, Any]:
        """Everything a client draws: the game (with legal routes), seats, score and requests."""
        black, white = self.sides["black"], self.sides["white"]
        return {
            "room": self.id,
            "version": self.version,
            "variant": self.variant,
            "game_no": self.game_no,
            "sides": {"black": black, "white": white},
            "seated": {"black": black in self.seated, "white": white in self.seated},
            "score": {"black": self.score[str(black)], "white": self.score[str(white)], "draws": self.score["draws"]},
            "undo_request": self._color_or_none(self.undo_request),
            "draw_offer": self._color_or_none(self.draw_offer),
            "play_again": {self.color_of(player): {"keep_sides": keep} for player, keep in self.play_again.items()},
            "expires_at": self.last_move_at + ROOM_LIFETIME_SECONDS,
            "game": game_state(self.game),
        }

    def _color_or_none(self, player: int | None) -> str | None:
        return None if player is None else self.color_of(player)

    # -- deciding ------------------------------------------------------------------------

    def decide(self, player: int | None, message: Message) -> tuple[str, dict[str, Any]]:
        """The event (kind, data) that ``message`` from ``player`` causes; ``RoomError`` if none."""
        move_id = message.get("id")
        if player is None:
            raise RoomError("not_a_player", "spectators can watch but not play", move_id)
        color = self.color_of(player)
        kind = message.type
        if kind == "play_again":
            return self._decide_play_again(player, color, bool(message.get("keep_sides", False)))
        if self.game.is_over:
            raise RoomError("game_over", "the game is over; choose Play again for another", move_id)
        if _other(player) not in self.seated:
            raise RoomError("no_opponent", "wait for your friend to join through the invite link", move_id)
        if kind == "move":
            return self._decide_move(color, message.get("move"), move_id)
        if kind == "resign":
            return "resigned", {"color": color}
        return self._decide_request(player, color, kind)

    def _decide_move(self, color: str, text: str | list[int], move_id: str) -> tuple[str, dict[str, Any]]:
        if self.game.turn != color:
            raise RoomError("not_your_turn", f"it is {self.game.turn}'s turn, not yours", move_id)
        try:
            if isinstance(text, str):
                move = self.game.board.parse_move(text)
            else:
                move = self.game.board.move_for_path(text)
        except KingmeError as error:
            raise RoomError("illegal_move", str(error), move_id) from None
        return "move", {**turn_row(self.game.turn, move, self.game.board.is_crowning(move)), "id": move_id}

    def _undo_plies(self, player: int) -> int:
        """Plies an undo asked by ``player`` takes back: their last move, and the reply to it if any."""
        return 1 if self.game.turn != self.color_of(player) else 2

    def _decide_request(self, player: int, color: str, kind: str) -> tuple[str, dict[str, Any]]:
        if kind == "undo_request":
            if self.undo_request is not None:
                raise RoomError("already_asked", "an undo is already waiting for an answer")
            if self.game.undoable < self._undo_plies(player):
                raise RoomError("nothing_to_undo", "you have no move to take back")
            return "undo_requested", {"color": color}
        if kind in ("undo_accept", "undo_decline"):
            if self.undo_request != _other(player):
                raise RoomError("no_request", "your friend has not asked to undo")
            if kind == "undo_decline":
                return "undo_declined", {"color": color}
            return "undo_accepted", {"color": color, "plies": self._undo_plies(_other(player))}
        if kind == "draw_offer":
            if self.draw_offer is not None:
                raise RoomError("already_asked", "a draw offer is already waiting for an answer")
            return "draw_offered", {"color": color}
        if kind in ("draw_accept", "draw_decline"):
            if self.draw_offer != _other(player):
                raise RoomError("no_request", "your friend has not offered a draw")
            return ("draw_agreed" if kind == "draw_accept" else "draw_declined"), {"color": color}
        raise RoomError("unknown_type", f"{kind} is not a room action")

    def _decide_play_again(self, player: int, color: str, keep_sides: bool) -> tuple[str, dict[str, Any]]:
        if not self.game.is_over:
            raise RoomError("game_not_over", "Play again is possible once the game has a result")
        if player in self.play_again:
            raise RoomError("already_asked", "you have already asked to play again; waiting for your friend")
        if _other(player) not in self.play_again:
            return "play_again_requested", {"color": color, "keep_sides": keep_sides}
        keep = keep_sides or self.play_again[_other(player)]
        sides = dict(self.sides) if keep else {"black": self.sides["white"], "white": self.sides["black"]}
        return "new_game", {"color": color, "keep_sides": keep, "sides": sides, "game_no": self.game_no + 1}

    def decide_join(self) -> tuple[str, dict[str, Any]]:
        if 2 in self.seated:
            raise RoomError("room_full", "both seats are taken; open the link to watch")
        return "joined", {"player": 2, "color": self.color_of(2)}

    # -- applying ------------------------------------------------------------------------

    def apply(self, event: StoredEvent, now: int) -> None:
        """Perform a stored event (numbered ``version + 1``)."""
        if event.number != self.version + 1:
            raise ValueError(f"event {event.number} does not follow version {self.version}")
        data, kind = event.data, event.kind
        finished = self.game.is_over
        if kind == "created":
            self.sides = dict(data["sides"])
        elif kind == "joined":
            self.seated.add(2)
        elif kind == "move":
            self.game.push(Move(tuple(data["path"]), tuple(data["captures"])))
            self.undo_request = self.draw_offer = None
            self.last_move_at = now
            if event.move_id:
                self.move_ids[event.move_id] = event.number
        elif kind == "undo_requested":
            self.undo_request = self.sides[data["color"]]
        elif kind == "undo_declined":
            self.undo_request = None
        elif kind == "undo_accepted":
            for _ in range(data["plies"]):
                self.game.undo()
            self.undo_request = self.draw_offer = None
        elif kind == "resigned":
            self.game.resign(data["color"])
        elif kind == "draw_offered":
            self.draw_offer = self.sides[data["color"]]
        elif kind == "draw_declined":
            self.draw_offer = None
        elif kind == "draw_agreed":
            self.game.agree_draw()
        elif kind == "play_again_requested":
            self.play_again[self.sides[data["color"]]] = data["keep_sides"]
        elif kind == "new_game":
            self.sides = dict(data["sides"])
            self.game = Game(Setup(self.variant))
            self.game_no = data["game_no"]
            self.undo_request = self.draw_offer = None
            self.play_again = {}
        else:
            raise ValueError(f"unknown event kind {kind!r}")
        if self.game.is_over and not finished:
            self._count_result()
        self.version = event.number

    def _count_result(self) -> None:
        winner = self.game.result.winner if self.game.result else None
        key = "draws" if winner is None else str(self.sides[winner])
        self.score[key] += 1
        self.undo_request = self.draw_offer = None
