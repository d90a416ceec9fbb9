"""The online service: what a request does, composed of the room repository, the hub and the
room's rules.

A request for a room runs under that room's lock in this process: the repository loads the
room (from its cache or the database), ``Room.decide`` checks the request, the repository
applies the event and stores it with a version check, then the hub publishes it. Publishing
reaches this process's clients at once and, with Redis, the other processes, which apply the
event to their copy and pass it on (``hub.py`` says how delivery between processes cannot fail
silently). If the version check fails, another process changed the room first: the request is
refused with ``conflict``, the copy here is dropped and the client gets the current state.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from kingme.rules import BLACK, VARIANTS, WHITE, Color
from kingme.server.online.clock import time_control
from kingme.server.online.config import OnlineConfig
from kingme.server.online.events import Moved, RoomEvent
from kingme.server.online.hub import Client, Hub
from kingme.server.online.limits import RoomCreationLimiter
from kingme.server.online.repository import Conflict, RoomRepository, hash_token
from kingme.server.online.room import ROOM_LIFETIME_SECONDS, Moment, Room
from kingme.server.online.wire import Ack, Hello, Move, ProtocolError, RoomAction
from kingme.server.pubsub import PubSub
from kingme.server.storage import RoomStore

log = logging.getLogger("kingme.online")

#: Seat tokens carry 192 random bits.
TOKEN_BYTES = 24
#: Seconds of the window in which a seat connected through several processes has its messages
#: counted by all of them together (``KINGME_MESSAGES_PER_SECOND`` times this many per window).
RATE_WINDOW = 2


@dataclass(frozen=True)
class Seat:
    """What the HTTP routes hand a player: the room, their secret token, player number and colour."""

    room: str
    token: str
    player: int
    color: str


class OnlineService:
    """The flow request → decide → store → publish, over ``rooms`` (the repository) and
    ``hub`` (the connections); ``startup`` runs its background tasks."""

    def __init__(
        self, store: RoomStore, pubsub: PubSub, config: OnlineConfig, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.pubsub = pubsub
        self.config = config
        self.rooms = RoomRepository(store, clock)
        self.hub = Hub(self.rooms, pubsub, config, clock)
        self._creation = RoomCreationLimiter(config.rooms_per_hour)

    @property
    def clock(self) -> Callable[[], float]:
        """The time the rooms expire and presence ages by (tests move it)."""
        return self.rooms.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self.rooms.clock = self.hub.clock = clock

    # -- HTTP: creating, describing and joining rooms --------------------------------------

    async def create_room(self, variant: object, side: object, address: str, clock: object = "untimed") -> Seat:
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise ProtocolError("bad_message", f"variant must be one of: {', '.join(VARIANTS)}")
        if not isinstance(side, str) or side not in ("black", "white", "random"):
            raise ProtocolError("bad_message", "side must be black, white or random")
        try:
            control = time_control(clock, allow_test=self.config.test_time_controls)
        except ValueError as error:
            raise ProtocolError("bad_time_control", str(error)) from None
        if not await self._may_create(address):
            raise ProtocolError(
                "too_many_rooms", f"at most {self.config.rooms_per_hour} rooms per hour from one address"
            )
        color: Color = secrets.choice((BLACK, WHITE)) if side == "random" else (BLACK if side == "black" else WHITE)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        room_id = await self.rooms.create(variant, color, token, control)
        return Seat(room_id, token, 1, color)

    async def _may_create(self, address: str) -> bool:
        """Whether ``address`` may create another room this hour: counted by every process
        together through Redis when it answers, else by this process alone."""
        hour = int(self.clock() // 3600)
        shared = await self.pubsub.count(f"rooms:{address}:{hour}", 3600)
        if shared is None:
            return self._creation.allow(address)
        return shared <= self.config.rooms_per_hour

    async def describe(self, room_id: str) -> dict[str, Any]:
        """What a visitor of the link needs before connecting: rules and which seats are free."""
        room = await self.rooms.load(room_id, fresh=True)
        return {
            "room": room.id,
            "variant": room.variant,
            "seated": {color: player in room.seated for color, player in room.sides.items()},
            "open": 2 not in room.seated,
            "expires_at": room.last_move_at + ROOM_LIFETIME_SECONDS,
            "time_control": room.control.to_wire(),
        }

    async def join(self, room_id: str) -> Seat:
        """Take the empty seat (``room_full`` once both are taken)."""
        try:
            async with self.rooms.locked(room_id):
                room = await self.rooms.load(room_id)
                joined = room.decide_join(Moment(self.rooms.now_ms()))
                token = secrets.token_urlsafe(TOKEN_BYTES)
                await self.hub.publish(await self.rooms.commit(room, joined, player2_token=hash_token(token)))
                room.tokens[2] = hash_token(token)
                return Seat(room_id, token, 2, room.color_of(2))
        except Conflict:
            raise ProtocolError("conflict", "the room changed meanwhile; try again") from None

    # -- WebSocket: connections ------------------------------------------------------------

    async def connect(self, client: Client, room_id: str, hello: Hello) -> None:
        """Seat or seat-less (spectator) connection to a room, answered with ``welcome``."""
        room = await self.rooms.load(room_id)  # refuse unknown and expired rooms before anything else
        player = _player_for(room, hello.token)
        if hello.token is not None and player is None:
            room = await self.rooms.load(room_id, fresh=True)  # a seat taken through another process
            player = _player_for(room, hello.token)
            if player is None:
                raise ProtocolError("bad_token", "this seat token is not valid for this room")
        if player is None and not await self.hub.admit_spectator(client, room_id):
            raise ProtocolError("room_crowded", "this room has as many spectators as it can take; try again later")
        await self.hub.add(client, room_id, player, hello.last_event)

    async def resync(self, client: Client, last_event: int | None) -> None:
        """A client that saw a gap in event numbers asks again: the same answer as a reconnect,
        from the database's version of the room (a copy here may be the stale one)."""
        assert client.room_id is not None
        async with self.rooms.locked(client.room_id):
            await self.hub.welcome(client, await self.rooms.load(client.room_id, fresh=True), last_event)

    async def disconnect(self, client: Client) -> None:
        await self.hub.remove(client)

    async def allow_message(self, client: Client) -> bool:
        """Whether the client may send another message now: within its seat's rate here (a
        spectator's: its connection's) and, while the seat is also connected through another
        process, within the seat's rate counted by every process together in Redis, per
        ``RATE_WINDOW`` seconds. Redis is asked only then, so a hung Redis delays nobody else."""
        if not client.bucket.allow():
            return False
        room_id, player = client.room_id, client.player
        if room_id is None or player is None or not self.hub.seat_elsewhere(room_id, player):
            return True
        window = int(self.clock() // RATE_WINDOW)
        counted = await self.pubsub.count(f"messages:{room_id}:{player}:{window}", 2 * RATE_WINDOW)
        return counted is None or counted <= self.config.messages_per_second * RATE_WINDOW

    # -- WebSocket: requests ---------------------------------------------------------------

    async def act(self, client: Client, action: RoomAction) -> None:
        """Carry out a player's request, or answer the client alone with an error."""
        room_id = client.room_id
        assert room_id is not None
        move_id = action.move_id
        async with self.rooms.locked(room_id):
            room = await self.rooms.load(room_id)
            if isinstance(action, Move) and action.id in room.move_ids:
                await self._answer_resent(client, room, action)
                return
            if room.version >= self.config.max_room_events:
                raise ProtocolError(
                    "room_exhausted",
                    f"this room has reached its {self.config.max_room_events} events; create a new room",
                    move_id,
                )
            at = Moment(self.rooms.now_ms(), client.lag_ms)
            room = await self._flag_checked(room, at, move_id)
            room, event = await self._decide(room, client.player, action, at)
            try:
                await self.hub.publish(await self.rooms.commit(room, event))
            except Conflict:
                refusal = ProtocolError("conflict", "another move was stored first; here is the game now", move_id)
            except Exception:
                log.exception("storing an event of room %s failed", room_id)
                refusal = ProtocolError("not_stored", "the server could not store this; nothing changed", move_id)
            else:
                if move_id is not None:
                    client.send(Ack(move_id, room.version).to_wire())
                return
            client.send(refusal.to_wire())
            try:
                await self.hub.welcome(client, await self.rooms.load(room_id, fresh=True), None)
            except Exception as error:  # the database may be unreachable: the error said enough
                log.warning("re-sending room %s after a refused change failed: %s", room_id, error)

    async def _decide(self, room: Room, player: int | None, action: RoomAction, at: Moment) -> tuple[Room, RoomEvent]:
        """``room.decide``; with several processes a refusal is checked against the stored
        version first, so a copy that missed a broadcast never refuses the right request."""
        try:
            return room, room.decide(player, action, at)
        except ProtocolError as error:
            stored = (await self.rooms.stored_versions([room.id])).get(room.id, 0) if self.pubsub.shared else 0
            if stored <= room.version:
                raise
            log.info(
                "room %s: %s refused on a copy at version %d, stored %d; deciding again on the stored room",
                room.id,
                error.code,
                room.version,
                stored,
            )
        self.rooms.hear(room.id, stored)
        room = await self.rooms.load(room.id, fresh=True)
        return room, room.decide(player, action, at)

    async def _answer_resent(self, client: Client, room: Room, move: Move) -> None:
        """A move id seen before: the same move is acknowledged again (not played twice); a
        different move under that id is refused, so a client bug cannot lose a move silently."""
        number = room.move_ids[move.id]
        events = await self.rooms.events_since(room.id, number - 1, 1)
        if not events or not isinstance(events[0].event, Moved) or not same_move(move.move, events[0].event):
            raise ProtocolError(
                "move_id_reused", f"the move id {move.id} was used for another move; use a new id", move.id
            )
        client.send(Ack(move.id, number, duplicate=True).to_wire())

    # -- clocks ----------------------------------------------------------------------------

    async def _time_out(self, room: Room) -> bool:
        """Store and publish the loss on time of the room's side whose clock has run out (the
        caller holds the room's lock); False if none has, or another process changed the room
        first (this copy may have missed a move that switched the clocks)."""
        fallen = room.flag_fell(self.rooms.now_ms())
        if fallen is None:
            return False
        try:
            await self.hub.publish(await self.rooms.commit(room, fallen))
        except Conflict:
            log.info("room %s changed while its flag fell; deciding again on the stored room", room.id)
            return False
        return True

    async def _flag_checked(self, room: Room, at: Moment, move_id: str | None) -> Room:
        """The room a request is decided on. If its running clock has run out, the loss on time
        is stored and the request refused (``time_out``); a copy here that missed an event is
        read again first, so a move the copy has not heard of is never taken for a fallen flag."""
        if room.flag_fell(at.now) is None:
            return room
        if not await self._time_out(room):
            room = await self.rooms.load(room.id, fresh=True)
            if room.flag_fell(at.now) is None:
                return room
            await self._time_out(room)
        raise ProtocolError("time_out", _lost_on_time(room), move_id)

    async def decide_flag(self, room_id: str) -> None:
        """Decide the loss on time of a room whose clock the database says has run out."""
        async with self.rooms.locked(room_id):
            await self._time_out(await self.rooms.load(room_id, fresh=True))

    async def look_for_flags(self) -> None:
        """Decide the games whose clock has run out by now, as the database's ``flag_at`` says:
        a player who never comes back loses all the same, on whichever process looks first."""
        for room_id in await self.store.flagged(self.rooms.now_ms()):
            try:
                await self.decide_flag(room_id)
            except ProtocolError as error:  # expired, gone, or changed meanwhile
                log.info("room %s: its flag could not be decided: %s", room_id, error.code)

    async def watch_flags(self) -> None:
        """``look_for_flags`` now and every ``flag_check_seconds``: the first look after
        start-up decides the games that ran out while every server was down."""
        while True:
            try:
                await self.look_for_flags()
            except Exception:  # the database may be away for a while; the next look tries again
                log.exception("looking for games lost on time failed")
            await asyncio.sleep(self.config.flag_check_seconds)

    # -- background tasks ------------------------------------------------------------------

    def background(self) -> list[Coroutine[Any, Any, None]]:
        """What runs for the service's lifetime: presence refreshes, the process's mark in Redis,
        the database's checks of room versions, the games lost on time, and deleting old rooms."""
        return [
            self.hub.refresh_presence(),
            self.hub.heartbeat(),
            self.hub.check_versions(),
            self.watch_flags(),
            self.rooms.purge_old_rooms(),
        ]


def _lost_on_time(room: Room) -> str:
    """The sentence refusing a request that came after a flag fell."""
    result = room.game.result
    if result is not None and result.reason == "time":
        return f"{result.loser}'s time ran out: {result.winner} wins on time"
    return "a clock has run out; the game is being decided"


def _player_for(room: Room, token: str | None) -> int | None:
    """The player whose seat ``token`` is, compared in constant time; None for none."""
    if token is None:
        return None
    digest = hash_token(token)
    for player, stored in room.tokens.items():
        if hmac.compare_digest(stored, digest):
            return player
    return None


def same_move(move: object, stored: Moved) -> bool:
    """Whether a resent ``move`` (text or path of squares) is the stored move event's move.

    >>> step = Moved("black", "11-15", [11, 15], [], False, "m1")
    >>> same_move("11-15", step), same_move([11, 15], step), same_move("11-16", step)
    (True, True, False)
    >>> same_move("9x27", Moved("black", "9x18x27", [9, 18, 27], [14, 23], False, "m2"))
    True
    """
    path = stored.path
    if isinstance(move, list):
        return move == path
    if not isinstance(move, str):
        return False
    if move == stored.move:
        return True
    squares = [int(part) for part in re.split(r"[-x]", move.strip()) if part.isdigit()]
    return bool(path) and (squares == path or squares == [path[0], path[-1]])
