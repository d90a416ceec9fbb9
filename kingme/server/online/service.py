"""The online service: rooms in memory while someone is connected, every change stored first.

A request for a room runs under that room's lock in this process: load the room (from the
cache or the database), let ``Room.decide`` check it, apply the event, store it with a version
check, then publish it. Publishing reaches this process's clients at once and, with Redis,
the other processes, which apply the event to their copy and pass it on. If the version check
fails, another process changed the room first: the request is refused with ``conflict``, the
copy here is dropped and the client gets the current state.

Delivery between processes cannot fail silently. Every broadcast carries the room's version
(its event number); a process remembers the highest version it has heard of, and each client
the version it has been brought to (one client's welcome must not hide an event from
another). A copy older than what was heard is never used (it is loaded again), an event that
skips a client's number makes the process catch its clients up from the database, rooms
whose broadcasts could not be sent are announced again when Redis answers, and, with several
processes, the versions of the rooms with clients here are compared with the database every
few seconds, so a lost message costs at most that long.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from kingme.rules import BLACK, VARIANTS, WHITE, Color
from kingme.server.online.config import OnlineConfig
from kingme.server.online.limits import RoomCreationLimiter, TokenBucket
from kingme.server.online.room import PLAYERS, ROOM_LIFETIME_SECONDS, Room
from kingme.server.online.wire import (
    Ack,
    Broadcast,
    Event,
    EventBroadcast,
    Hello,
    Move,
    Presence,
    PresenceBroadcast,
    ProtocolError,
    RoomAction,
    VersionBroadcast,
    Welcome,
    WhoBroadcast,
    parse_broadcast,
)
from kingme.server.pubsub import PubSub
from kingme.server.storage import RoomStore, StoredEvent, StoredRoom

log = logging.getLogger("kingme.online")

#: Room ids are ``secrets.token_urlsafe(16)``: 128 random bits in 22 characters.
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{22}")
#: Seat tokens carry 192 random bits.
TOKEN_BYTES = 24
#: Presence is re-announced this often, and forgotten when not heard for PRESENCE_TTL seconds.
PRESENCE_REFRESH = 15.0
PRESENCE_TTL = 40.0
#: Joins and leaves within this many seconds are announced in one presence message.
PRESENCE_COALESCE = 0.1
#: Expired rooms are kept this long (their links say "expired"), then deleted; checked this often.
PURGE_AFTER_SECONDS = 90 * 86400
PURGE_EVERY_SECONDS = 6 * 3600

UNKNOWN_ROOM = "There is no room at this link. Check the link, or create a new room."
EXPIRED_ROOM = "This room has expired: rooms close after 30 days without a move. Create a new room to play again."


class RoomGone(ProtocolError):
    """The room does not exist (``unknown_room``) or has expired (``expired``)."""


class Conflict(ProtocolError):
    """Another process stored a change to the room first (or kept changing it while it was read)."""

    def __init__(self) -> None:
        super().__init__("conflict", "the room changed meanwhile; try again")


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


CHANNEL_PREFIX = "kingme:room:"


def channel(room_id: str) -> str:
    return f"{CHANNEL_PREFIX}{room_id}"


@dataclass(frozen=True)
class Seat:
    """What the HTTP routes hand a player: the room, their secret token, player number and colour."""

    room: str
    token: str
    player: int
    color: str


class Client:
    """One WebSocket connection: who it is, and a queue its writer task empties in order."""

    def __init__(
        self, send: Callable[[str], Awaitable[None]], close: Callable[[int], Awaitable[None]], config: OnlineConfig
    ) -> None:
        self._send = send
        self._close = close
        self._queue: asyncio.Queue[str | int | None] = asyncio.Queue()
        self._limit = config.send_queue
        #: The latest presence message not yet sent; the queue holds at most one ``None`` for it,
        #: so a burst of joins replaces one message instead of filling the queue.
        self._presence: str | None = None
        self.bucket = TokenBucket(config.messages_per_second, config.message_burst)
        self.room_id: str | None = None
        self.player: int | None = None
        #: The room version this client has been brought to: None until its welcome, then the
        #: welcome's version, then each event forwarded. It is kept per client, not per room,
        #: because a welcome (after a sync or a refused move) brings one client ahead of the
        #: others: a broadcast arriving after it is news to them and not to this client.
        self.version: int | None = None
        self.closed = False

    @property
    def greeted(self) -> bool:
        """Whether the client has its welcome; events before it are in the welcome's state."""
        return self.version is not None

    def send(self, text: str) -> None:
        if self.closed:
            return
        if self._queue.qsize() >= self._limit:
            self.close(1013)  # too slow: it reconnects and catches up from its last event
            return
        self._queue.put_nowait(text)

    def send_presence(self, text: str) -> None:
        """Send ``text`` unless a newer presence message replaces it before it goes out."""
        if self.closed:
            return
        if self._presence is None:
            self._queue.put_nowait(None)
        self._presence = text

    def close(self, code: int) -> None:
        if not self.closed:
            self.closed = True
            self._queue.put_nowait(code)

    async def write(self) -> None:
        """Send queued messages until a close code comes out of the queue."""
        with contextlib.suppress(Exception):  # the peer may be gone already
            while True:
                item = await self._queue.get()
                if isinstance(item, int):
                    await self._close(item)
                    return
                if item is None:
                    item, self._presence = self._presence, None
                if item is not None:
                    await self._send(item)


class OnlineService:
    """Rooms, their connections, and the flow request → decide → store → publish."""

    def __init__(
        self, store: RoomStore, pubsub: PubSub, config: OnlineConfig, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.pubsub = pubsub
        self.config = config
        self.clock = clock
        self.origin = secrets.token_hex(8)
        self.rooms: dict[str, Room] = {}
        self.clients: dict[str, set[Client]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._presence: dict[str, dict[str, tuple[float, dict[str, int]]]] = {}
        #: Highest version heard of, by room (from this process or another); each client
        #: knows the version it has been brought to (``Client.version``).
        self._heard: dict[str, int] = {}
        #: Rooms whose clients are being caught up from the database, and whose presence is due.
        self._catching_up: set[str] = set()
        self._presence_due: set[str] = set()
        #: Message rates of the seats with a connection here: a seat's tabs share one.
        self._seat_buckets: dict[tuple[str, int], TokenBucket] = {}
        self._creation = RoomCreationLimiter(config.rooms_per_hour)
        self._tasks: set[asyncio.Task[Any]] = set()
        #: What each broadcast from a room's channel does here.
        self._handlers: dict[type[Broadcast], Callable[[Any], None]] = {
            EventBroadcast: self._on_event,
            VersionBroadcast: self._on_version_broadcast,
            PresenceBroadcast: self._on_presence,
            WhoBroadcast: self._on_who,
        }
        pubsub.set_handlers(self._on_message, self._on_reconnect, self._on_lost)

    # -- rooms -----------------------------------------------------------------------------

    def _now(self) -> int:
        return int(self.clock())

    def _lock(self, room_id: str) -> asyncio.Lock:
        return self._locks.setdefault(room_id, asyncio.Lock())

    def _forget_lock(self, room_id: str) -> None:
        """Drop an idle room's lock, so locks do not pile up for rooms nobody is connected to."""
        lock = self._locks.get(room_id)
        if lock is not None and not lock.locked() and not self.clients.get(room_id):
            del self._locks[room_id]

    async def _load(self, room_id: str, *, fresh: bool = False) -> Room:
        """The room, cached while it has clients here; ``RoomGone`` when unknown or expired.

        A cached copy older than a version heard of is not used, and a copy read from the
        database while a newer event arrived is read again: the race that once left a process
        refusing the right player's move."""
        if not ROOM_ID.fullmatch(room_id):
            raise RoomGone("unknown_room", UNKNOWN_ROOM)
        room = None if fresh else self.rooms.get(room_id)
        if room is not None and room.version < self._heard.get(room_id, 0):
            room = None
        for _ in range(3):
            if room is not None:
                break
            stored = await self.store.load(room_id)
            if stored is None:
                raise RoomGone("unknown_room", UNKNOWN_ROOM)
            room = Room.restore(stored)
            if room.version < self._heard.get(room_id, 0):
                room = None  # an event arrived while reading: read again
            elif self.clients.get(room_id):
                self.rooms[room_id] = room
        if room is None:
            raise Conflict()
        if room.expired(self.clock()):
            raise RoomGone("expired", EXPIRED_ROOM)
        return room

    def _hear(self, room_id: str, version: int) -> None:
        if self.clients.get(room_id) and version > self._heard.get(room_id, 0):
            self._heard[room_id] = version

    async def create_room(self, variant: object, side: object, address: str) -> Seat:
        if not isinstance(variant, str) or variant not in VARIANTS:
            raise ProtocolError("bad_message", f"variant must be one of: {', '.join(VARIANTS)}")
        if not isinstance(side, str) or side not in ("black", "white", "random"):
            raise ProtocolError("bad_message", "side must be black, white or random")
        if not await self._may_create(address):
            raise ProtocolError("rate_limited", f"at most {self.config.rooms_per_hour} rooms per hour from one address")
        color: Color = secrets.choice((BLACK, WHITE)) if side == "random" else (BLACK if side == "black" else WHITE)
        room_id, token, now = secrets.token_urlsafe(16), secrets.token_urlsafe(TOKEN_BYTES), self._now()
        room = Room.new(room_id, str(variant), color, now)
        created = StoredEvent(1, "created", {"variant": variant, "sides": dict(room.sides)})
        room.apply(created, now)
        stored = StoredRoom(room_id, str(variant), now, now, room.version, hash_token(token), None, room.snapshot())
        await self.store.create(stored, created)
        return Seat(room_id, token, 1, color)

    async def _may_create(self, address: str) -> bool:
        """Whether ``address`` may create another room this hour: counted by every process
        together through Redis when it answers, else by this process alone."""
        hour = int(self.clock() // 3600)
        shared = await self.pubsub.count(f"kingme:rooms:{address}:{hour}", 3600)
        if shared is None:
            return self._creation.allow(address)
        return shared <= self.config.rooms_per_hour

    async def describe(self, room_id: str) -> dict[str, Any]:
        """What a visitor of the link needs before connecting: rules and which seats are free."""
        room = await self._load(room_id, fresh=True)
        return {
            "room": room.id,
            "variant": room.variant,
            "seated": {color: player in room.seated for color, player in room.sides.items()},
            "open": 2 not in room.seated,
            "expires_at": room.last_move_at + ROOM_LIFETIME_SECONDS,
        }

    async def join(self, room_id: str) -> Seat:
        """Take the empty seat (``room_full`` once both are taken)."""
        try:
            async with self._lock(room_id):
                room = await self._load(room_id)
                kind, data = room.decide_join()
                token = secrets.token_urlsafe(TOKEN_BYTES)
                await self._commit(room, kind, data, player2_token=hash_token(token))
                room.tokens[2] = hash_token(token)
                return Seat(room_id, token, 2, room.color_of(2))
        except Conflict:
            raise ProtocolError("conflict", "the room changed meanwhile; try again") from None
        finally:
            self._forget_lock(room_id)

    async def _commit(
        self, room: Room, kind: str, data: dict[str, Any], move_id: str | None = None, player2_token: str | None = None
    ) -> None:
        """Apply, store (version-checked) and publish one event; ``Conflict`` if another writer won."""
        event = StoredEvent(room.version + 1, kind, data, move_id)
        previous, now = room.version, self._now()
        try:
            room.apply(event, now)
            state = room.public_state()
            snapshot = room.snapshot(record=state["game"]["record"])
            stored = await self.store.append(
                room.id, previous, [event], snapshot, now, moved=kind == "move", player2_token=player2_token
            )
        except BaseException:
            self._evict(room.id)
            raise
        if not stored:
            self._evict(room.id)
            raise Conflict()
        text = Event(event.number, kind, data, state).to_wire()
        await self._broadcast(EventBroadcast(room.id, now, event.number, kind, data, move_id, text))

    async def _broadcast(self, message: Broadcast) -> None:
        """Tell every process serving the room, this one included (at once)."""
        await self.pubsub.publish(channel(message.room), message.to_wire())

    def _evict(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)

    # -- connections -----------------------------------------------------------------------

    async def connect(self, client: Client, room_id: str, hello: Hello) -> None:
        """Seat or seat-less (spectator) connection to a room, answered with ``welcome``."""
        room = await self._load(room_id)  # refuse unknown and expired rooms before anything else
        token = hello.token
        player = self._player_for(room, token)
        if token is not None and player is None:
            room = await self._load(room_id, fresh=True)  # a seat taken through another process
            player = self._player_for(room, token)
            if player is None:
                raise ProtocolError("bad_token", "this seat token is not valid for this room")
        if player is None and self._spectators(room_id) >= self.config.spectators_per_room:
            raise ProtocolError("room_crowded", "this room has as many spectators as it can take; try again later")
        client.room_id, client.player = room_id, player
        if player is not None:
            key = (room_id, player)
            if key not in self._seat_buckets:
                self._seat_buckets[key] = TokenBucket(self.config.messages_per_second, self.config.message_burst)
            client.bucket = self._seat_buckets[key]
        first_here = not self.clients.get(room_id)
        self.clients.setdefault(room_id, set()).add(client)
        try:
            if first_here:
                await self.pubsub.subscribe(channel(room_id))
            async with self._lock(room_id):
                await self._welcome(client, await self._load(room_id), hello.last_event)
        except BaseException:
            await self.disconnect(client)
            raise
        if first_here:
            await self._ask_who(room_id)
        self._presence_changed(room_id)

    def _spectators(self, room_id: str) -> int:
        return sum(client.player is None for client in self.clients.get(room_id, ()))

    def _player_for(self, room: Room, token: str | None) -> int | None:
        if token is None:
            return None
        digest = hash_token(token)
        for player, stored in room.tokens.items():
            if hmac.compare_digest(stored, digest):
                return player
        return None

    async def _welcome(self, client: Client, room: Room, last_event: int | None) -> None:
        """Send ``client`` the room's state, with the events it missed since ``last_event``."""
        missed: list[dict[str, Any]] | None = None
        if last_event is not None and last_event <= room.version:
            events = await self.store.events_since(room.id, last_event, self.config.max_missed + 1)
            current = self.rooms.get(room.id)  # events may have arrived meanwhile; the state shows them
            if current is not None and current.version > room.version:
                room = current
            events = [event for event in events if event.number <= room.version]
            if len(events) <= self.config.max_missed:
                missed = [{"n": e.number, "kind": e.kind, "data": e.data} for e in events]
        # From here to setting its version nothing awaits: every later event reaches this
        # client, every earlier one is in the state sent now.
        behind = last_event is not None and missed is None
        client.send(Welcome(client.player, room.version, missed, behind, room.public_state()).to_wire())
        client.version = room.version

    async def resync(self, client: Client, last_event: int | None) -> None:
        """A client that saw a gap in event numbers asks again: the same answer as a reconnect,
        from the database's version of the room (a copy here may be the stale one)."""
        assert client.room_id is not None
        async with self._lock(client.room_id):
            await self._welcome(client, await self._load(client.room_id, fresh=True), last_event)

    async def disconnect(self, client: Client) -> None:
        room_id = client.room_id
        clients = self.clients.get(room_id or "")
        if room_id is None or clients is None or client not in clients:
            return
        clients.discard(client)
        if not clients:
            del self.clients[room_id]
            self._evict(room_id)
            self._presence.pop(room_id, None)
            self._heard.pop(room_id, None)
            for player in PLAYERS:
                self._seat_buckets.pop((room_id, player), None)
            self._forget_lock(room_id)
            try:
                await self.pubsub.unsubscribe(channel(room_id))
            except Exception:
                log.exception("unsubscribing from room %s failed", room_id)
        self._presence_changed(room_id)

    # -- requests --------------------------------------------------------------------------

    async def act(self, client: Client, action: RoomAction) -> None:
        """Carry out a player's request, or answer the client alone with an error."""
        room_id = client.room_id
        assert room_id is not None
        move_id = action.move_id
        async with self._lock(room_id):
            room = await self._load(room_id)
            if isinstance(action, Move) and action.id in room.move_ids:
                await self._answer_resent(client, room, action)
                return
            if room.version >= self.config.max_room_events:
                raise ProtocolError(
                    "room_exhausted",
                    f"this room has reached its {self.config.max_room_events} events; create a new room",
                    move_id,
                )
            room, kind, data = await self._decide(room, client.player, action)
            try:
                await self._commit(room, kind, data, move_id)
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
                await self._welcome(client, await self._load(room_id, fresh=True), None)
            except Exception as error:  # the database may be unreachable: the error said enough
                log.warning("re-sending room %s after a refused change failed: %s", room_id, error)

    async def _decide(self, room: Room, player: int | None, action: RoomAction) -> tuple[Room, str, dict[str, Any]]:
        """``room.decide``; with several processes a refusal is checked against the stored
        version first, so a copy that missed a broadcast never refuses the right request."""
        try:
            return room, *room.decide(player, action)
        except ProtocolError:
            stored = (await self.store.versions([room.id])).get(room.id, 0) if self.pubsub.shared else 0
            if stored <= room.version:
                raise
        self._hear(room.id, stored)
        room = await self._load(room.id, fresh=True)
        return room, *room.decide(player, action)

    async def _answer_resent(self, client: Client, room: Room, move: Move) -> None:
        """A move id seen before: the same move is acknowledged again (not played twice); a
        different move under that id is refused, so a client bug cannot lose a move silently."""
        number = room.move_ids[move.id]
        events = await self.store.events_since(room.id, number - 1, 1)
        if not events or not same_move(move.move, events[0].data):
            raise ProtocolError(
                "move_id_reused", f"the move id {move.id} was used for another move; use a new id", move.id
            )
        client.send(Ack(move.id, number, duplicate=True).to_wire())

    # -- presence and pub/sub ----------------------------------------------------------------

    def _local_counts(self, room_id: str) -> dict[str, int]:
        counts = {"1": 0, "2": 0, "spectators": 0}
        for client in self.clients.get(room_id, ()):
            counts["spectators" if client.player is None else str(client.player)] += 1
        return counts

    async def _ask_who(self, room_id: str) -> None:
        """Ask the other processes to announce who they have connected to this room."""
        await self._broadcast(WhoBroadcast(room_id, self.origin))

    def _presence_changed(self, room_id: str) -> None:
        """Announce the room's presence soon: one message for a whole burst of joins and leaves."""
        if room_id not in self._presence_due:
            self._presence_due.add(room_id)
            self._spawn(self._announce_presence(room_id))

    async def _announce_presence(self, room_id: str) -> None:
        try:
            await asyncio.sleep(PRESENCE_COALESCE)
        finally:
            self._presence_due.discard(room_id)
        await self._publish_presence(room_id)

    async def _publish_presence(self, room_id: str) -> None:
        await self._broadcast(PresenceBroadcast(room_id, self.origin, self.clock(), self._local_counts(room_id)))

    def presence(self, room_id: str) -> Presence:
        """Who is connected to a room, over every process heard from recently."""
        now = self.clock()
        total = {"1": 0, "2": 0, "spectators": 0}
        for at, counts in self._presence.get(room_id, {}).values():
            if now - at <= PRESENCE_TTL:
                for key in total:
                    total[key] += counts.get(key, 0)
        room = self.rooms.get(room_id)
        colors = {} if room is None else {color: total[str(player)] > 0 for color, player in room.sides.items()}
        return Presence({"1": total["1"] > 0, "2": total["2"] > 0}, total["spectators"], colors)

    def _on_message(self, _channel: str, text: str) -> None:
        """A broadcast from a room's channel (this process's own too), handed to its handler."""
        message = parse_broadcast(text)
        self._handlers[type(message)](message)

    def _on_presence(self, message: PresenceBroadcast) -> None:
        room_id = message.room
        self._presence.setdefault(room_id, {})[message.origin] = (message.at, message.counts)
        if room_id in self.clients:
            presence = self.presence(room_id).to_wire()
            for client in self.clients[room_id]:
                if client.greeted:
                    client.send_presence(presence)

    def _on_who(self, message: WhoBroadcast) -> None:
        if message.origin != self.origin and self.clients.get(message.room):
            self._presence_changed(message.room)

    def _on_version_broadcast(self, message: VersionBroadcast) -> None:
        self._on_version(message.room, message.v)

    def _on_event(self, message: EventBroadcast) -> None:
        """Apply an event to the copy here and pass it on; a skipped number means catching up."""
        room_id, number = message.room, message.n
        self._hear(room_id, number)
        room = self.rooms.get(room_id)
        if room is not None and number == room.version + 1:
            try:
                room.apply(StoredEvent(number, message.kind, message.data, message.move_id), message.at)
            except Exception:
                log.exception("applying event %d to room %s failed; reloading it", number, room_id)
                self._evict(room_id)
        elif room is not None and number > room.version:
            self._evict(room_id)  # a gap: the next request reads the room again
        gap = False
        for client in self.clients.get(room_id, ()):
            if client.version is None or client.version >= number:
                continue  # not welcomed yet, or its welcome already showed this event
            if client.version == number - 1:
                client.send(message.text)
                client.version = number
            else:
                gap = True
        if gap:
            self._on_version(room_id, number)

    def _behind(self, room_id: str, version: int) -> list[Client]:
        """The welcomed clients of a room here that have not been brought to ``version``."""
        return [c for c in self.clients.get(room_id, ()) if c.version is not None and c.version < version]

    def _on_version(self, room_id: str, version: int) -> None:
        """The room has reached ``version``: catch up the clients here that are behind it."""
        self._hear(room_id, version)
        if room_id not in self._catching_up and self._behind(room_id, version):
            self._catching_up.add(room_id)
            self._spawn(self._catch_up(room_id))

    async def _catch_up(self, room_id: str) -> None:
        """Bring this process's clients of a room to the database's version: each client
        behind gets a welcome with the events it missed, as if it had reconnected. Events heard
        of while this runs are caught up too (their own request to catch up found it running)."""
        try:
            async with self._lock(room_id):
                while behind := self._behind(room_id, self._heard.get(room_id, 0)):
                    room = await self._load(room_id, fresh=True)
                    for client in behind:
                        if client.version is not None and client.version < room.version:
                            await self._welcome(client, room, client.version)
        except Exception:  # the next check or event tries again
            log.exception("catching up the clients of room %s failed", room_id)
        finally:
            self._catching_up.discard(room_id)
            self._forget_lock(room_id)

    async def _on_lost(self, channels: set[str]) -> None:
        """Broadcasts to these rooms may not have reached the other processes: announce the
        rooms' stored versions, so any process behind reloads them."""
        rooms = [name.removeprefix(CHANNEL_PREFIX) for name in channels if name.startswith(CHANNEL_PREFIX)]
        for room_id, version in (await self.store.versions(rooms)).items():
            await self._broadcast(VersionBroadcast(room_id, version))

    async def _on_reconnect(self) -> None:
        """Pub/sub was down: messages may be lost, so every client here gets the stored state."""
        self._presence.clear()
        for room_id, clients in list(self.clients.items()):
            self._evict(room_id)
            try:
                async with self._lock(room_id):
                    room = await self._load(room_id, fresh=True)
                    for client in list(clients):
                        await self._welcome(client, room, None)
                await self._ask_who(room_id)
                self._presence_changed(room_id)
            except Exception:
                log.exception("re-syncing room %s after Redis came back failed", room_id)

    async def check_versions(self) -> None:
        """With several processes, compare the rooms with clients here with the database now
        and then: a broadcast lost on the way costs at most ``version_check_seconds``."""
        if not self.pubsub.shared:
            return
        while True:
            await asyncio.sleep(self.config.version_check_seconds)
            rooms = [room_id for room_id, clients in self.clients.items() if clients]
            try:
                versions = await self.store.versions(rooms)
            except Exception as error:
                log.warning("checking room versions against the database failed: %s", error)
                continue
            for room_id, version in versions.items():
                self._on_version(room_id, version)

    async def refresh_presence(self) -> None:
        """Re-announce presence now and then, so a process that died is forgotten after PRESENCE_TTL."""
        while True:
            await asyncio.sleep(PRESENCE_REFRESH)
            for room_id in list(self.clients):
                try:
                    await self._publish_presence(room_id)
                except Exception:
                    log.exception("announcing the presence of room %s failed", room_id)

    async def purge_old_rooms(self) -> None:
        """Delete rooms idle for ``PURGE_AFTER_SECONDS`` (their links then say "unknown"), now and then."""
        while True:
            try:
                purged = await self.store.purge(self._now() - PURGE_AFTER_SECONDS)
                if purged:
                    log.info("deleted %d rooms idle for %d days", purged, PURGE_AFTER_SECONDS // 86400)
            except Exception:  # the database may be away for a while; try again next time
                log.exception("deleting old rooms failed")
            await asyncio.sleep(PURGE_EVERY_SECONDS)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background task of the online service failed", exc_info=task.exception())


def same_move(move: object, stored: dict[str, Any]) -> bool:
    """Whether a resent ``move`` (text or path of squares) is the stored move event's move.

    >>> step = {"move": "11-15", "path": [11, 15]}
    >>> same_move("11-15", step), same_move([11, 15], step), same_move("11-16", step)
    (True, True, False)
    >>> same_move("9x27", {"move": "9x18x27", "path": [9, 18, 27]})
    True
    """
    path: list[int] = stored.get("path", [])
    if isinstance(move, list):
        return move == path
    if not isinstance(move, str):
        return False
    if move == stored.get("move"):
        return True
    squares = [int(part) for part in re.split(r"[-x]", move.strip()) if part.isdigit()]
    return bool(path) and (squares == path or squares == [path[0], path[-1]])
