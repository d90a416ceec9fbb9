"""The rooms of this process: loaded from the database, cached while in use here, changed under
a lock per room, and committed to storage with a version check.

A room is *open* here while some client of this process is connected to it (the hub says
when); only open rooms are cached. The repository also remembers, per open room, the highest
version heard of (from this process or another, through the hub): a cached copy older than
that is never used, and a copy read from the database while a newer event arrived is read
again — the race that once left a process refusing the right player's move.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from kingme.rules import Color
from kingme.server.online.clock import TimeControl
from kingme.server.online.events import Created, Moved, Numbered, RoomEvent
from kingme.server.online.room import Room
from kingme.server.online.wire import ProtocolError
from kingme.server.storage import RoomStore, StoredRoom

log = logging.getLogger("kingme.online")

#: Room ids are ``secrets.token_urlsafe(16)``: 128 random bits in 22 characters.
ROOM_ID = re.compile(r"[A-Za-z0-9_-]{22}")
#: A copy here further behind the database than this many events is read again whole rather than
#: brought forward event by event (a copy is usually one event behind: a broadcast lost).
MAX_EVENTS_FORWARD = 20
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


@dataclass(frozen=True)
class Committed:
    """An event stored as entry ``number`` at ``at`` (Unix seconds), with the room's public state
    after it: what the hub publishes."""

    room: str
    number: int
    event: RoomEvent
    at: int
    state: dict[str, Any]


@dataclass
class _RoomLock:
    """A room's lock and how many tasks hold it or wait for it: the lock may be forgotten only
    when that is none (``locked()`` is False between a release and the next waiter's wake-up)."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    users: int = 0


def hash_token(token: str) -> str:
    """What is stored of a seat token: its SHA-256, so the database never holds a seat."""
    return hashlib.sha256(token.encode()).hexdigest()


class RoomRepository:
    """Load, cache, lock and commit rooms; nothing here knows of connections or pub/sub."""

    def __init__(self, store: RoomStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self._rooms: dict[str, Room] = {}
        self._open: set[str] = set()
        self._locks: dict[str, _RoomLock] = {}
        #: Highest version heard of, by open room.
        self._heard: dict[str, int] = {}

    def now(self) -> int:
        return int(self.clock())

    def now_ms(self) -> int:
        """The server's time in Unix milliseconds: what clocks run by."""
        return int(self.clock() * 1000)

    # -- rooms in use here -----------------------------------------------------------------

    def open(self, room_id: str) -> None:
        """The room has a client here from now on: cache it and listen for its versions."""
        self._open.add(room_id)

    def close(self, room_id: str) -> None:
        """The room's last client here has gone: forget everything kept for it."""
        self._open.discard(room_id)
        self.evict(room_id)
        self._heard.pop(room_id, None)
        self._forget_lock(room_id)

    @contextlib.asynccontextmanager
    async def locked(self, room_id: str) -> AsyncIterator[None]:
        """Hold the lock every change and every catch-up of the room in this process runs under.

        The lock is forgotten once no task holds or awaits it and no client here is connected to
        the room, so locks do not pile up for rooms nobody uses; it is never forgotten while a
        task waits for it, or a later task would take a new lock while that one holds the old.
        """
        entry = self._locks.setdefault(room_id, _RoomLock())
        entry.users += 1
        try:
            async with entry.lock:
                yield
        finally:
            entry.users -= 1
            self._forget_lock(room_id)

    def locks_kept(self) -> int:
        """How many rooms' locks are kept (those with a client here or a task using them)."""
        return len(self._locks)

    def _forget_lock(self, room_id: str) -> None:
        entry = self._locks.get(room_id)
        if entry is not None and entry.users == 0 and room_id not in self._open:
            del self._locks[room_id]

    def hear(self, room_id: str, version: int) -> None:
        """The room has reached ``version`` somewhere; copies older than that are stale."""
        if room_id in self._open and version > self._heard.get(room_id, 0):
            self._heard[room_id] = version

    def heard(self, room_id: str) -> int:
        return self._heard.get(room_id, 0)

    def cached(self, room_id: str) -> Room | None:
        """The copy here, if any (it may be behind what was heard of; ``load`` knows)."""
        return self._rooms.get(room_id)

    def evict(self, room_id: str) -> None:
        """Drop the copy here: the next ``load`` reads the database."""
        self._rooms.pop(room_id, None)

    # -- reading and writing ---------------------------------------------------------------

    async def load(self, room_id: str, *, fresh: bool = False) -> Room:
        """The room, cached while open here; ``RoomGone`` when unknown or expired; ``fresh``
        reads the database even when a copy is cached."""
        if not ROOM_ID.fullmatch(room_id):
            raise RoomGone("unknown_room", UNKNOWN_ROOM)
        room = None if fresh else self._rooms.get(room_id)
        if room is not None and room.version < self.heard(room_id):
            room = None
        for _ in range(3):
            if room is not None:
                break
            stored = await self.store.load(room_id)
            if stored is None:
                raise RoomGone("unknown_room", UNKNOWN_ROOM)
            room = Room.restore(stored)
            if room.version < self.heard(room_id):
                room = None  # an event arrived while reading: read again
            elif room_id in self._open:
                self._rooms[room_id] = room
        if room is None:
            raise Conflict()
        if room.expired(self.clock()):
            raise RoomGone("expired", EXPIRED_ROOM)
        return room

    async def refresh(self, room_id: str) -> Room:
        """The room at the database's version at least, as cheaply as it can be had: the copy
        here brought forward by the events stored after it (one read of the log's tail, each
        event applied as a broadcast would have been), else read whole (``load``). Catching up
        the clients of hundreds of rooms at once — a lost batch of broadcasts — must not read
        and replay each whole room again on a process that is already behind (issue 41)."""
        room = self._rooms.get(room_id)
        if room is None:
            return await self.load(room_id, fresh=True)
        later = await self.events_since(room_id, room.version, MAX_EVENTS_FORWARD)
        try:
            for item in later:
                if item.number == room.version + 1:  # a broadcast may have applied it meanwhile
                    room.apply(item.number, item.event, item.at)
        except Exception:
            log.exception("bringing room %s forward from its log failed; reading it whole", room_id)
            self.evict(room_id)
            return await self.load(room_id, fresh=True)
        if len(later) == MAX_EVENTS_FORWARD or room.version < self.heard(room_id):
            return await self.load(room_id, fresh=True)
        return room

    async def create(self, variant: str, creator_color: Color, token: str, control: TimeControl) -> str:
        """Store a new room with its ``created`` event; its id."""
        room_id, now = secrets.token_urlsafe(16), self.now()
        room = Room.new(room_id, variant, creator_color, now, control)
        created = Created(variant, dict(room.sides), control.name)
        room.apply(1, created, now)
        stored = StoredRoom(room_id, variant, now, now, room.version, hash_token(token), None, room.snapshot())
        await self.store.create(stored, created.stored(1))
        return room_id

    async def commit(self, room: Room, event: RoomEvent, player2_token: str | None = None) -> Committed:
        """Apply and store (version-checked) one event; ``Conflict`` if another writer won (the
        copy here is dropped then, and when storing fails)."""
        previous, now = room.version, self.now()
        number = previous + 1
        try:
            room.apply(number, event, now)
            state = room.public_state(self.now_ms())
            snapshot = room.snapshot(record=state["game"]["record"])
            moved = isinstance(event, Moved)  # a move keeps the room alive (``last_move_at``)
            flag_at = None if room.clock is None else room.clock.flag_at()
            stored = await self.store.append(
                room.id,
                previous,
                [event.stored(number)],
                snapshot,
                now,
                moved=moved,
                player2_token=player2_token,
                flag_at=flag_at,
            )
        except BaseException:
            self.evict(room.id)
            raise
        if not stored:
            self.evict(room.id)
            raise Conflict()
        return Committed(room.id, number, event, now, state)

    async def events_since(self, room_id: str, after: int, limit: int) -> list[Numbered]:
        """Up to ``limit`` events numbered above ``after``, oldest first."""
        return [Numbered.from_stored(stored) for stored in await self.store.events_since(room_id, after, limit)]

    async def stored_versions(self, room_ids: list[str]) -> dict[str, int]:
        """The database's version of each room (the truth a copy here is checked against)."""
        return await self.store.versions(room_ids)

    async def purge_old_rooms(self) -> None:
        """Delete rooms idle for ``PURGE_AFTER_SECONDS`` (their links then say "unknown"), now and then."""
        while True:
            try:
                purged = await self.store.purge(self.now() - PURGE_AFTER_SECONDS)
                if purged:
                    log.info("deleted %d rooms idle for %d days", purged, PURGE_AFTER_SECONDS // 86400)
            except Exception:  # the database may be away for a while; try again next time
                log.exception("deleting old rooms failed")
            await asyncio.sleep(PURGE_EVERY_SECONDS)
