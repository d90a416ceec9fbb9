"""The hub: this process's connections to rooms, and what goes between them and the other
processes — events forwarded, presence, and catching clients up.

Delivery between processes cannot fail silently. Every broadcast carries the room's version
(its event number); the repository remembers the highest version heard of, and each client
the version it has been brought to (one client's welcome must not hide an event from
another). An event that skips a client's number makes the hub catch the room's clients up from
the database, rooms whose broadcasts could not be sent are announced again when Redis answers,
and, with several processes, the versions of the rooms with clients here are compared with the
database every few seconds, so a lost message costs at most that long. Catching a client up
brings this process's copy of the room forward from the log (``RoomRepository.refresh``), not
by reading the whole room again: after a batch of broadcasts was held up, hundreds of rooms are
caught up at once, and reading each whole on a loaded process took the last ones past 5 s
(issue 41; the batch itself is now sent again, see ``kingme.server.pubsub``).

Presence is not in the event log: each process announces its connection counts per room (on
change, coalesced; on request; and every ``PRESENCE_REFRESH`` seconds), and forgets counts not
heard for ``PRESENCE_TTL``. A seat's connection counts as *silent* while a round-trip probe
sent to it has gone unanswered for ``SILENT_SECONDS`` (a dropped network, a closed laptop lid:
no close reaches the server, and the keepalive closes the socket only after 40 s); the counts
say so, and a seat whose connections are all silent is shown *reconnecting* until one answers
or closes. With Redis, a process killed outright is forgotten much sooner: each
live process renews a mark in Redis every ``HEARTBEAT_SECONDS`` that lapses after
``HEARTBEAT_TTL``, and at each renewal the others forget the counts of the processes whose mark
has lapsed and tell their clients. The same marks make the spectator limit exact across
processes: a spectator takes a place in Redis in one atomic step that counts only the places of
live processes, so concurrent joins on several processes cannot overshoot it, and a dead
process's spectators do not hold places.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from kingme.server.online.config import OnlineConfig
from kingme.server.online.events import Numbered
from kingme.server.online.limits import TokenBucket
from kingme.server.online.pacing import paced
from kingme.server.online.repository import Committed, RoomRepository
from kingme.server.online.room import PLAYERS, Room
from kingme.server.online.wire import (
    Broadcast,
    Event,
    EventBroadcast,
    Presence,
    PresenceBroadcast,
    Probe,
    VersionBroadcast,
    Welcome,
    WhoBroadcast,
    parse_broadcast,
)
from kingme.server.pubsub import PubSub

log = logging.getLogger("kingme.online")

#: Presence is re-announced this often, and forgotten when not heard for PRESENCE_TTL seconds.
PRESENCE_REFRESH = 15.0
PRESENCE_TTL = 40.0
#: Joins and leaves within this many seconds are announced in one presence message.
PRESENCE_COALESCE = 0.1
#: With Redis, each process renews its mark this often, and a mark not renewed lapses after
#: HEARTBEAT_TTL seconds (three renewals: a process busy for a moment is not taken for dead).
HEARTBEAT_SECONDS = 2.0
HEARTBEAT_TTL = 6
#: Round-trip probes a connection may leave unanswered before the oldest is forgotten.
MAX_PROBES = 4
#: A player's connection whose oldest unanswered probe is this many seconds old is silent: its
#: seat shows *reconnecting*. Probes go every ``OnlineConfig.probe_seconds`` (2 s) and a page
#: echoes them at once, so a live connection answers within its round trip (0.1–0.3 s on mobile
#: networks); 4 s is two probes unanswered, so a second's hiccup does not flicker the seat, while
#: a dropped connection is shown within about 6 s instead of the keepalive's 40.
SILENT_SECONDS = 4.0
#: Spectator places of a room are kept in Redis this long after the last one was taken.
SPECTATOR_PLACES_SECONDS = 86_400
CHANNEL_PREFIX = "room:"
#: What a process announces of a room's connections (``Hub._local_counts``).
COUNTS = ("1", "2", "silent 1", "silent 2", "spectators")


def channel(room_id: str) -> str:
    return f"{CHANNEL_PREFIX}{room_id}"


def spectator_places(room_id: str) -> str:
    """The Redis key of a room's spectator places."""
    return f"spectators:{room_id}"


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
        #: Whether this spectator holds a place in Redis (given back when it leaves).
        self.placed = False
        self.closed = False
        #: The last round trip measured to this client (milliseconds), and the probes in flight
        #: by number, with when each was sent (``time.monotonic``).
        self.lag_ms = 0
        self._probes: dict[int, float] = {}
        self._probe_number = 0
        #: When the oldest probe not answered since was sent (None: every probe answered), and
        #: whether the hub last counted this connection silent (``Hub.probe``).
        self._waiting_since: float | None = None
        self.silent = False

    def probe(self, now: float) -> None:
        """Send a round-trip probe at ``now`` (``time.monotonic``); the client echoes it at once."""
        self._probe_number += 1
        self._probes[self._probe_number] = now
        if self._waiting_since is None:
            self._waiting_since = now
        while len(self._probes) > MAX_PROBES:  # a client that never answers holds no more than this
            del self._probes[min(self._probes)]
        self.send(Probe(self._probe_number).to_wire())

    def answered(self, number: int, now: float) -> None:
        """The client echoed probe ``number`` at ``now``: its round trip is measured, and the
        probes before it count as answered (one socket delivers in order, so they were lost
        with an earlier connection's trouble). An unknown number, or one echoed twice, changes
        nothing."""
        sent = self._probes.pop(number, None)
        if sent is None:
            return
        self.lag_ms = round((now - sent) * 1000)
        self._probes = {n: at for n, at in self._probes.items() if n > number}
        self._waiting_since = min(self._probes.values(), default=None)

    def unanswered_for(self, now: float) -> float:
        """Seconds since the oldest probe not answered was sent (0 when all are answered)."""
        return 0.0 if self._waiting_since is None else now - self._waiting_since

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
        try:
            while True:
                item = await self._queue.get()
                if isinstance(item, int):
                    await self._close(item)
                    return
                if item is None:
                    item, self._presence = self._presence, None
                if item is not None:
                    await self._send(item)
        except Exception as error:  # the peer has gone: nothing more to send
            log.debug("writing to a client of room %s stopped: %r", self.room_id, error)


class Hub:
    """The connections of this process by room, and the room channels they listen on."""

    def __init__(
        self, rooms: RoomRepository, pubsub: PubSub, config: OnlineConfig, clock: Callable[[], float] = time.time
    ) -> None:
        self.rooms = rooms
        self.pubsub = pubsub
        self.config = config
        self.clock = clock
        #: The time probes are sent and answered by (tests move it).
        self.monotonic: Callable[[], float] = time.monotonic
        self.origin = secrets.token_hex(8)
        self.clients: dict[str, set[Client]] = {}
        self._presence: dict[str, dict[str, tuple[float, dict[str, int]]]] = {}
        #: Rooms whose clients are being caught up from the database, and whose presence is due.
        self._catching_up: set[str] = set()
        self._presence_due: set[str] = set()
        #: Message rates of the seats with a connection here: a seat's tabs share one.
        self._seat_buckets: dict[tuple[str, int], TokenBucket] = {}
        #: Spectator places to give back in Redis, by room (it did not answer when they left).
        self._unplaced: dict[str, int] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        #: What each broadcast from a room's channel does here.
        self._handlers: dict[type[Broadcast], Callable[[Any], None]] = {
            EventBroadcast: self._on_event,
            VersionBroadcast: self._on_version_broadcast,
            PresenceBroadcast: self._on_presence,
            WhoBroadcast: self._on_who,
        }
        pubsub.set_handlers(self._on_message, self._on_reconnect, self._on_lost)

    # -- connections -----------------------------------------------------------------------

    async def add(self, client: Client, room_id: str, player: int | None, last_event: int | None) -> None:
        """Connect an admitted client (``player`` None: a spectator) and welcome it."""
        client.room_id, client.player = room_id, player
        if player is not None:
            key = (room_id, player)
            if key not in self._seat_buckets:
                self._seat_buckets[key] = TokenBucket(self.config.messages_per_second, self.config.message_burst)
            client.bucket = self._seat_buckets[key]
        first_here = not self.clients.get(room_id)
        self.clients.setdefault(room_id, set()).add(client)
        self.rooms.open(room_id)
        try:
            if first_here:
                await self.pubsub.subscribe(channel(room_id))
            async with self.rooms.locked(room_id):
                await self.welcome(client, await self.rooms.load(room_id), last_event)
        except BaseException:
            await self.remove(client)
            raise
        if first_here:
            await self._ask_who(room_id)
        self._presence_changed(room_id)

    async def admit_spectator(self, client: Client, room_id: str) -> bool:
        """Whether the room takes ``client`` as one more spectator. With Redis the place is taken
        there, in one step over every live process; without it (one process, or Redis away) the
        spectators here and those the others announced are counted. ``add`` must follow at once."""
        placed = await self.pubsub.claim(
            spectator_places(room_id), self.origin, self.config.spectators_per_room, SPECTATOR_PLACES_SECONDS
        )
        if placed is None:
            return self.spectators(room_id) < self.config.spectators_per_room
        client.placed = placed
        return placed

    def spectators(self, room_id: str) -> int:
        """The room's spectators: those here, and those the other processes last announced."""
        here = sum(client.player is None for client in self.clients.get(room_id, ()))
        return here + self._announced(room_id, others_only=True)["spectators"]

    def seat_elsewhere(self, room_id: str, player: int) -> bool:
        """Whether another process announced a connection of this seat recently."""
        return self._announced(room_id, others_only=True)[str(player)] > 0

    async def welcome(self, client: Client, room: Room, last_event: int | None) -> None:
        """Send ``client`` the room's state, with the events it missed since ``last_event``."""
        missed: list[Numbered] | None = None
        if last_event is not None and last_event <= room.version:
            events = await self.rooms.events_since(room.id, last_event, self.config.max_missed + 1)
            current = self.rooms.cached(room.id)  # events may have arrived meanwhile; the state shows them
            if current is not None and current.version > room.version:
                room = current
            events = [event for event in events if event.number <= room.version]
            if len(events) <= self.config.max_missed:
                missed = events
        # From here to setting its version nothing awaits: every later event reaches this
        # client, every earlier one is in the state sent now.
        behind = last_event is not None and missed is None
        state = room.public_state(self.rooms.now_ms())
        client.send(Welcome(client.player, room.version, missed, behind, state).to_wire())
        client.version = room.version

    async def remove(self, client: Client) -> None:
        """The client has gone; the room is closed here once its last client has."""
        room_id = client.room_id
        clients = self.clients.get(room_id or "")
        if room_id is None or clients is None or client not in clients:
            return
        clients.discard(client)
        if client.placed:
            client.placed = False
            self._unplaced[room_id] = self._unplaced.get(room_id, 0) + 1
        if not clients:
            del self.clients[room_id]
            self.rooms.close(room_id)
            self._presence.pop(room_id, None)
            for player in PLAYERS:
                self._seat_buckets.pop((room_id, player), None)
            try:
                await self.pubsub.unsubscribe(channel(room_id))
            except Exception:
                log.exception("unsubscribing from room %s failed", room_id)
        self._presence_changed(room_id)
        await self._give_back(room_id)

    def probe(self, client: Client) -> None:
        """Count ``client`` silent (see ``SILENT_SECONDS``) if its probes have gone unanswered
        that long, announcing the change, then send the next probe."""
        now = self.monotonic()
        self._set_silent(client, client.unanswered_for(now) >= SILENT_SECONDS)
        client.probe(now)

    def answered(self, client: Client, number: int) -> None:
        """``client`` echoed probe ``number``: it answers, so it is silent no more (unless a
        later probe has gone unanswered that long too)."""
        now = self.monotonic()
        client.answered(number, now)
        self._set_silent(client, client.unanswered_for(now) >= SILENT_SECONDS)

    def _set_silent(self, client: Client, silent: bool) -> None:
        if silent != client.silent and client.room_id is not None:
            client.silent = silent
            self._presence_changed(client.room_id)

    # -- events ----------------------------------------------------------------------------

    async def publish(self, committed: Committed) -> None:
        """Send a stored event to every client of the room, here and in the other processes."""
        number, event = committed.number, committed.event
        text = Event(number, event, committed.state).to_wire()
        await self._broadcast(EventBroadcast(committed.room, committed.at, number, event, text))

    async def _broadcast(self, message: Broadcast) -> None:
        """Tell every process serving the room, this one included (at once)."""
        await self.pubsub.publish(channel(message.room), message.to_wire())

    # -- presence and pub/sub ----------------------------------------------------------------

    def _local_counts(self, room_id: str) -> dict[str, int]:
        """The room's connections here: by seat (``"1"``, ``"2"``), of those the silent ones
        (``"silent 1"``, ``"silent 2"``), and spectators."""
        counts = dict.fromkeys(COUNTS, 0)
        for client in self.clients.get(room_id, ()):
            counts["spectators" if client.player is None else str(client.player)] += 1
            if client.silent and client.player is not None:
                counts[f"silent {client.player}"] += 1
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

    def _announced(self, room_id: str, others_only: bool = False) -> dict[str, int]:
        """Connection counts of a room as the processes (``others_only``: but this one)
        announced them within ``PRESENCE_TTL``."""
        now = self.clock()
        total = dict.fromkeys(COUNTS, 0)
        for origin, (at, counts) in self._presence.get(room_id, {}).items():
            if now - at <= PRESENCE_TTL and not (others_only and origin == self.origin):
                for key in total:
                    total[key] += counts.get(key, 0)
        return total

    def presence(self, room_id: str) -> Presence:
        """Who is connected to a room, over every process heard from recently; a seat whose
        connections are all silent is reconnecting."""
        total = self._announced(room_id)
        room = self.rooms.cached(room_id)
        sides = {} if room is None else room.sides
        colors = {color: total[str(player)] > 0 for color, player in sides.items()}
        reconnecting = {color: 0 < total[str(player)] == total[f"silent {player}"] for color, player in sides.items()}
        return Presence({"1": total["1"] > 0, "2": total["2"] > 0}, total["spectators"], colors, reconnecting)

    def _on_message(self, _channel: str, text: str) -> None:
        """A broadcast from a room's channel (this process's own too), handed to its handler."""
        message = parse_broadcast(text)
        self._handlers[type(message)](message)

    def _on_presence(self, message: PresenceBroadcast) -> None:
        room_id = message.room
        self._presence.setdefault(room_id, {})[message.origin] = (message.at, message.counts)
        self._tell_presence(room_id)

    def _tell_presence(self, room_id: str) -> None:
        """Send the room's clients here who is connected now."""
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
        self.rooms.hear(room_id, number)
        room = self.rooms.cached(room_id)
        if room is not None and number == room.version + 1:
            try:
                room.apply(number, message.event, message.at)
            except Exception:
                log.exception("applying event %d to room %s failed; reloading it", number, room_id)
                self.rooms.evict(room_id)
        elif room is not None and number > room.version:
            self.rooms.evict(room_id)  # a gap: the next request reads the room again
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
        self.rooms.hear(room_id, version)
        if room_id not in self._catching_up and self._behind(room_id, version):
            self._catching_up.add(room_id)
            self._spawn(self._catch_up(room_id))

    async def _catch_up(self, room_id: str) -> None:
        """Bring this process's clients of a room to the database's version: each client
        behind gets a welcome with the events it missed, as if it had reconnected. Events heard
        of while this runs are caught up too (their own request to catch up found it running)."""
        try:
            async with self.rooms.locked(room_id):
                while behind := self._behind(room_id, self.rooms.heard(room_id)):
                    room = await self.rooms.refresh(room_id)
                    for client in behind:
                        if client.version is not None and client.version < room.version:
                            await self.welcome(client, room, client.version)
        except Exception:  # the next check or event tries again
            log.exception("catching up the clients of room %s failed", room_id)
        finally:
            self._catching_up.discard(room_id)

    async def _on_lost(self, channels: set[str]) -> None:
        """Broadcasts to these rooms may not have reached the other processes: announce the
        rooms' stored versions, so any process behind reloads them."""
        rooms = [name.removeprefix(CHANNEL_PREFIX) for name in channels if name.startswith(CHANNEL_PREFIX)]
        for room_id, version in (await self.rooms.stored_versions(rooms)).items():
            await self._broadcast(VersionBroadcast(room_id, version))

    async def _on_reconnect(self) -> None:
        """Pub/sub was down: messages may be lost, so every client here gets the stored state."""
        self._presence.clear()
        for room_id, clients in list(self.clients.items()):
            self.rooms.evict(room_id)
            try:
                async with self.rooms.locked(room_id):
                    room = await self.rooms.load(room_id, fresh=True)
                    for client in list(clients):
                        await self.welcome(client, room, None)
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
                versions = await self.rooms.stored_versions(rooms)
            except Exception as error:
                log.warning("checking room versions against the database failed: %s", error)
                continue
            for room_id, version in versions.items():
                self._on_version(room_id, version)

    async def beat(self) -> None:
        """With Redis: renew this process's mark, announce presence again if the mark had lapsed
        (the others may have forgotten it), forget the presence of the processes whose mark has
        lapsed, and give back the spectator places Redis did not take back before."""
        if await self.pubsub.beat(self.origin, HEARTBEAT_TTL) is False:
            for room_id in self.clients:
                self._presence_changed(room_id)
        await self._forget_dead()
        for room_id in list(self._unplaced):
            await self._give_back(room_id)

    async def _forget_dead(self) -> None:
        """Drop the presence of the other processes whose mark has lapsed, and tell the clients."""
        others = {origin for counts in self._presence.values() for origin in counts} - {self.origin}
        alive = await self.pubsub.alive(others) if others else None
        if alive is None:
            return  # none to check, or Redis does not say: the counts age out after PRESENCE_TTL
        dead = others - alive
        for room_id, counts in self._presence.items():
            gone = dead.intersection(counts)
            for origin in gone:
                del counts[origin]
            if gone:
                self._tell_presence(room_id)

    async def _give_back(self, room_id: str) -> None:
        """Give back the room's spectator places that have left; kept for the next beat if Redis
        does not answer."""
        places = self._unplaced.pop(room_id, 0)
        if places and not await self.pubsub.release(spectator_places(room_id), self.origin, places):
            self._unplaced[room_id] = self._unplaced.get(room_id, 0) + places

    async def heartbeat(self) -> None:
        """With several processes, ``beat`` every ``HEARTBEAT_SECONDS``."""
        if not self.pubsub.shared:
            return
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                await self.beat()
            except Exception:
                log.exception("renewing this process's mark in Redis failed")

    async def refresh_presence(self) -> None:
        """Re-announce each room's presence every ``PRESENCE_REFRESH`` seconds, so a process that
        died is forgotten after ``PRESENCE_TTL``; the rooms take turns over the interval (all
        at once, 1,000 rooms' announcements held up every move for 100 ms and more)."""
        while True:
            async for room_id in paced(list(self.clients), PRESENCE_REFRESH):
                if room_id not in self.clients:
                    continue  # its last client left meanwhile
                try:
                    await self._publish_presence(room_id)
                except Exception:
                    log.exception("announcing the presence of room %s failed", room_id)

    def _spawn(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("a background task of the online service failed", exc_info=task.exception())
