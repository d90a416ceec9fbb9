"""A room: two seats, the current game, the score, and pending requests — as a fold of events.

Every change to a room is an event (``events.py``, one dataclass per kind). ``Room.decide``
checks a player's request against the current state and returns the event it would cause (or
raises ``RoomError``, changing nothing); ``Room.apply`` performs an event. The server applies
an event only after storing it, and other processes apply the same events as they hear of
them, so every copy of a room goes through the same steps. Players are numbered 1 (the
creator) and 2 (the friend); colours belong to a game, and switch between games unless a player
asks to keep them.

A timed room's clock (``clock.py``) is decided with the event that changes it, at the server's
``Moment`` (its time, and the mover's measured round trip), and carried in the event: applying
an event never reads a clock of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kingme.game import Game, Setup
from kingme.rules import BLACK, WHITE, Color, KingmeError, Move, opponent
from kingme.server.online import events, wire
from kingme.server.online.clock import UNTIMED, Clock, TimeControl, time_control
from kingme.server.state import game_state, history, history_row, turn_row
from kingme.server.storage import StoredRoom

#: A room expires after this long without a move.
ROOM_LIFETIME_SECONDS = 30 * 24 * 3600
PLAYERS = (1, 2)


class RoomError(wire.ProtocolError):
    """A request the room refuses in its current state (out of turn, illegal move, …)."""


def _other(player: int) -> int:
    return 3 - player


@dataclass(frozen=True)
class Moment:
    """When the server decides a request (Unix milliseconds), and the requesting connection's
    measured round trip (milliseconds), which a move's time is credited with (``clock.py``)."""

    now: int
    lag: int = 0


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
    #: The game's history rows (``kingme.server.state.history``), kept in step with its moves by
    #: the events, so that a state costs the same at the game's last move as at its first.
    rows: list[dict[str, Any]] = field(default_factory=list)
    control: TimeControl = UNTIMED
    #: The clock of a timed room (None: untimed).
    clock: Clock | None = None

    # -- building and storing ------------------------------------------------------------

    @classmethod
    def new(cls, room_id: str, variant: str, creator_color: Color, now: int, control: TimeControl = UNTIMED) -> Room:
        sides: dict[str, int] = {creator_color: 1, opponent(creator_color): 2}
        room = cls(room_id, variant, 0, now, sides, {1}, Game(Setup(variant)), control=control)
        room.clock = Clock.fresh(control) if control.timed else None
        return room

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
            "time_control": self.control.name,
            "clock": None if self.clock is None else self.clock.to_wire(),
        }

    @classmethod
    def restore(cls, stored: StoredRoom) -> Room:
        """The room as stored (its game is re-checked move by move)."""
        snapshot = stored.state
        game = Game.from_record(snapshot["game"])
        tokens = {1: stored.player1_token} | ({2: stored.player2_token} if stored.player2_token else {})
        clock = snapshot.get("clock")  # rooms stored before clocks have neither field: untimed
        return cls(
            stored.id,
            stored.variant,
            stored.version,
            stored.last_move_at,
            dict(snapshot["sides"]),
            set(snapshot["seated"]),
            game,
            snapshot["game_no"],
            dict(snapshot["score"]),
            snapshot["undo_request"],
            snapshot["draw_offer"],
            {int(player): keep for player, keep in snapshot["play_again"].items()},
            dict(stored.move_ids),
            tokens,
            history(game),
            time_control(snapshot.get("time_control", "untimed"), allow_test=True),
            None if clock is None else Clock.from_wire(clock),
        )

    # -- reading -------------------------------------------------------------------------

    def color_of(self, player: int) -> Color:
        return BLACK if self.sides[BLACK] == player else WHITE

    def expired(self, now: float) -> bool:
        return now - self.last_move_at > ROOM_LIFETIME_SECONDS

    def clock_at(self, now: int) -> dict[str, Any] | None:
        """The clock as a client shows it at ``now``: each side's time left then, and whose runs."""
        if self.clock is None:
            return None
        return {
            "black": self.clock.left("black", now),
            "white": self.clock.left("white", now),
            "running": self.clock.running,
        }

    def public_state(self, now: int = 0) -> dict[str, Any]:
        """Everything a client draws at ``now`` (Unix milliseconds): the game (with legal
        routes), seats, score, requests, the time control and the clock."""
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
            "time_control": self.control.to_wire(),
            "clock": self.clock_at(now),
            "game": game_state(self.game, self.rows),
        }

    def _color_or_none(self, player: int | None) -> str | None:
        return None if player is None else self.color_of(player)

    # -- deciding ------------------------------------------------------------------------

    def decide(self, player: int | None, action: wire.RoomAction, at: Moment) -> events.RoomEvent:
        """The event that ``action`` from ``player`` causes at ``at``; ``RoomError`` if none."""
        if player is None:
            raise RoomError("not_a_player", "spectators can watch but not play", action.move_id)
        return _RULES[type(action)](self, player, action, at)

    def flag_fell(self, now: int) -> events.TimedOut | None:
        """The loss on time of the side whose clock has run out at ``now``, if any."""
        clock = self.clock
        if clock is None or clock.running is None or clock.left(clock.running, now) > 0:
            return None
        stopped = clock.stopped(now)
        return events.TimedOut(clock.running, clock=stopped.to_wire())

    def _stopped(self, now: int) -> dict[str, Any] | None:
        """The clock stopped at ``now``, as an event carries it (None: untimed)."""
        return None if self.clock is None else self.clock.stopped(now).to_wire()

    def _started(self, color: Color, now: int, clock: Clock | None = None) -> dict[str, Any] | None:
        """The clock (``clock``, else the room's) with ``color``'s time running from ``now``."""
        clock = clock or self.clock
        return None if clock is None else clock.started(color, now).to_wire()

    def _in_game(self, player: int, move_id: str | None = None) -> Color:
        """The player's colour, once a game is on and both seats are taken (every action but
        Play again needs both)."""
        if self.game.is_over:
            raise RoomError("game_over", "the game is over; choose Play again for another", move_id)
        if _other(player) not in self.seated:
            raise RoomError("no_opponent", "wait for your friend to join through the invite link", move_id)
        return self.color_of(player)

    def _decide_move(self, player: int, action: wire.Move, at: Moment) -> events.Moved:
        color = self._in_game(player, action.id)
        if self.game.turn != color:
            raise RoomError("not_your_turn", f"it is {self.game.turn}'s turn, not yours", action.id)
        try:
            if isinstance(action.move, str):
                move = self.game.board.parse_move(action.move)
            else:
                move = self.game.board.move_for_path(action.move)
        except KingmeError as error:
            raise RoomError("illegal_move", str(error), action.id) from None
        clock = None
        if self.clock is not None:  # the game goes on after the move: ``apply`` stops it otherwise
            clock = self.clock.after_move(self.control, color, at.now, at.lag, game_on=True).to_wire()
        row = turn_row(self.game.turn, move, self.game.board.is_crowning(move))
        return events.Moved(**row, id=action.id, clock=clock)

    def _decide_resign(self, player: int, _action: wire.Resign, at: Moment) -> events.Resigned:
        return events.Resigned(self._in_game(player), clock=self._stopped(at.now))

    def _undo_plies(self, player: int) -> int:
        """Plies an undo asked by ``player`` takes back: their last move, and the reply to it if any."""
        return 1 if self.game.turn != self.color_of(player) else 2

    def _decide_undo_request(self, player: int, _action: wire.UndoRequest, _at: Moment) -> events.UndoRequested:
        color = self._in_game(player)
        if self.undo_request is not None:
            raise RoomError("already_asked", "an undo is already waiting for an answer")
        if self.game.undoable < self._undo_plies(player):
            raise RoomError("nothing_to_undo", "you have no move to take back")
        return events.UndoRequested(color)

    def _decide_undo_answer(
        self, player: int, action: wire.UndoAccept | wire.UndoDecline, at: Moment
    ) -> events.UndoAccepted | events.UndoDeclined:
        color = self._in_game(player)
        if self.undo_request != _other(player):
            raise RoomError("no_request", "your friend has not asked to undo")
        if isinstance(action, wire.UndoDecline):
            return events.UndoDeclined(color)
        plies = self._undo_plies(_other(player))
        # Moves are taken back, not time: the side to move after the undo has its clock run now.
        turn = self.game.turn if plies % 2 == 0 else opponent(self.game.turn)
        return events.UndoAccepted(color, plies, clock=self._started(turn, at.now))

    def _decide_draw_offer(self, player: int, _action: wire.DrawOffer, _at: Moment) -> events.DrawOffered:
        color = self._in_game(player)
        if self.draw_offer is not None:
            raise RoomError("already_asked", "a draw offer is already waiting for an answer")
        return events.DrawOffered(color)

    def _decide_draw_answer(
        self, player: int, action: wire.DrawAccept | wire.DrawDecline, at: Moment
    ) -> events.DrawAgreed | events.DrawDeclined:
        color = self._in_game(player)
        if self.draw_offer != _other(player):
            raise RoomError("no_request", "your friend has not offered a draw")
        if isinstance(action, wire.DrawDecline):
            return events.DrawDeclined(color)
        return events.DrawAgreed(color, clock=self._stopped(at.now))

    def _decide_play_again(
        self, player: int, action: wire.PlayAgain, at: Moment
    ) -> events.PlayAgainRequested | events.NewGame:
        color = self.color_of(player)
        if not self.game.is_over:
            raise RoomError("game_not_over", "Play again is possible once the game has a result")
        if player in self.play_again:
            raise RoomError("already_asked", "you have already asked to play again; waiting for your friend")
        if _other(player) not in self.play_again:
            return events.PlayAgainRequested(color, action.keep_sides)
        keep = action.keep_sides or self.play_again[_other(player)]
        sides = dict(self.sides) if keep else {"black": self.sides["white"], "white": self.sides["black"]}
        # A rematch keeps the time control, with full clocks; Black's runs at once.
        fresh = self._started(BLACK, at.now, Clock.fresh(self.control)) if self.control.timed else None
        return events.NewGame(color, keep, sides, self.game_no + 1, clock=fresh)

    def decide_join(self, at: Moment) -> events.Joined:
        """The friend takes the empty seat: a timed game's clock starts (Black's runs)."""
        if 2 in self.seated:
            raise RoomError("room_full", "both seats are taken; open the link to watch")
        return events.Joined(2, self.color_of(2), clock=self._started(BLACK, at.now))

    # -- applying ------------------------------------------------------------------------

    def apply(self, number: int, event: events.RoomEvent, now: int) -> None:
        """Perform ``event``, stored as the log's entry ``number`` (``version + 1``) at ``now``."""
        if number != self.version + 1:
            raise ValueError(f"event {number} does not follow version {self.version}")
        finished = self.game.is_over
        _EFFECTS[type(event)](self, event, now)
        if event.clock is not None:
            self.clock = Clock.from_wire(event.clock)
        if self.game.is_over and self.clock is not None:
            self.clock = self.clock.stopped(self.clock.since)  # a move that ended the game stops it
        if self.game.is_over and not finished:
            self._count_result()
        self.version = number

    def _created(self, event: events.Created, _now: int) -> None:
        self.sides = dict(event.sides)
        self.control = time_control(event.time_control, allow_test=True)
        self.clock = Clock.fresh(self.control) if self.control.timed else None

    def _joined(self, _event: events.Joined, _now: int) -> None:
        self.seated.add(2)

    def _moved(self, event: events.Moved, now: int) -> None:
        played = self.game.push(Move(tuple(event.path), tuple(event.captures)))
        self.rows.append(history_row(event.color, played, event.crown))
        self.undo_request = self.draw_offer = None
        self.last_move_at = now
        self.move_ids[event.id] = self.version + 1  # the number this event is stored under

    def _undo_requested(self, event: events.UndoRequested, _now: int) -> None:
        self.undo_request = self.sides[event.color]

    def _undo_declined(self, _event: events.UndoDeclined, _now: int) -> None:
        self.undo_request = None

    def _undo_accepted(self, event: events.UndoAccepted, _now: int) -> None:
        for _ in range(event.plies):
            self.game.undo()
            self.rows.pop()
        self.undo_request = self.draw_offer = None

    def _resigned(self, event: events.Resigned, _now: int) -> None:
        self.game.resign(event.color)

    def _timed_out(self, event: events.TimedOut, _now: int) -> None:
        self.game.lose_on_time(event.color)

    def _draw_offered(self, event: events.DrawOffered, _now: int) -> None:
        self.draw_offer = self.sides[event.color]

    def _draw_declined(self, _event: events.DrawDeclined, _now: int) -> None:
        self.draw_offer = None

    def _draw_agreed(self, _event: events.DrawAgreed, _now: int) -> None:
        self.game.agree_draw()

    def _play_again_requested(self, event: events.PlayAgainRequested, _now: int) -> None:
        self.play_again[self.sides[event.color]] = event.keep_sides

    def _new_game(self, event: events.NewGame, _now: int) -> None:
        self.sides = dict(event.sides)
        self.game = Game(Setup(self.variant))
        self.rows = []
        self.game_no = event.game_no
        self.undo_request = self.draw_offer = None
        self.play_again = {}

    def _count_result(self) -> None:
        winner = self.game.result.winner if self.game.result else None
        key = "draws" if winner is None else str(self.sides[winner])
        self.score[key] += 1
        self.undo_request = self.draw_offer = None


#: What each request may cause, by its message class (``Room.decide``).
_RULES: dict[type[wire.RoomAction], Callable[[Room, int, Any, Moment], events.RoomEvent]] = {
    wire.Move: Room._decide_move,
    wire.Resign: Room._decide_resign,
    wire.UndoRequest: Room._decide_undo_request,
    wire.UndoAccept: Room._decide_undo_answer,
    wire.UndoDecline: Room._decide_undo_answer,
    wire.DrawOffer: Room._decide_draw_offer,
    wire.DrawAccept: Room._decide_draw_answer,
    wire.DrawDecline: Room._decide_draw_answer,
    wire.PlayAgain: Room._decide_play_again,
}

#: What each event does to the room, by its class (``Room.apply``).
_EFFECTS: dict[type[events.RoomEvent], Callable[[Room, Any, int], None]] = {
    events.Created: Room._created,
    events.Joined: Room._joined,
    events.Moved: Room._moved,
    events.UndoRequested: Room._undo_requested,
    events.UndoDeclined: Room._undo_declined,
    events.UndoAccepted: Room._undo_accepted,
    events.Resigned: Room._resigned,
    events.TimedOut: Room._timed_out,
    events.DrawOffered: Room._draw_offered,
    events.DrawDeclined: Room._draw_declined,
    events.DrawAgreed: Room._draw_agreed,
    events.PlayAgainRequested: Room._play_again_requested,
    events.NewGame: Room._new_game,
}
