"""Every event of a room's log, one dataclass each, with its stored form in one place.

An event is what a room remembers: ``Room.decide`` returns one, ``Room.apply`` performs it, the
repository stores it (``kind`` and ``to_data()`` in the ``room_events`` table, see
``kingme.server.storage.rooms``), clients receive the same ``kind`` and data in an ``event``
message, and other processes read it back with ``parse_event``. A subclass's dataclass fields
are its data's fields, by the same names; ``kind`` names it. The kinds and their fields are
listed in docs/architecture.md (section *online*).
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar

from kingme.rules import Color
from kingme.server.storage import StoredEvent


@dataclass(frozen=True)
class RoomEvent:
    """One change to a room. Events are written by this server and read back from its own
    database or its own processes, so reading one checks its kind, not each field."""

    kind: ClassVar[str]
    #: The room's clock after the event (``clock.Clock.to_wire``), for the events that change it
    #: in a timed room; None (and left out of the data) otherwise.
    clock: dict[str, Any] | None = field(default=None, kw_only=True)

    def to_data(self) -> dict[str, Any]:
        """The event's fields as stored and sent (JSON-ready); no clock, no ``clock`` field."""
        data = {item.name: getattr(self, item.name) for item in fields(self)}
        if data["clock"] is None:
            del data["clock"]
        return data

    @property
    def move_id(self) -> str | None:
        """The client's id of the move this event plays (kept in its own column, so a resent
        move is recognised), None for other events."""
        return None

    def stored(self, number: int) -> StoredEvent:
        """The event as the log's entry ``number``."""
        return StoredEvent(number, self.kind, self.to_data(), self.move_id)


@dataclass(frozen=True)
class Created(RoomEvent):
    """The room was created; ``sides`` gives each colour's player (1, the creator, or 2)."""

    kind = "created"
    variant: str
    sides: dict[str, int]
    #: The host's time control (``clock.TIME_CONTROLS``); rooms created before clocks are untimed.
    time_control: str = "untimed"


@dataclass(frozen=True)
class Joined(RoomEvent):
    """The friend took the empty seat."""

    kind = "joined"
    player: int
    color: Color


@dataclass(frozen=True)
class Moved(RoomEvent):
    """A move, as the page's move list reads it (``kingme.server.state.turn_row``), and the
    client's id of it."""

    kind = "move"
    color: Color
    move: str
    path: list[int]
    captures: list[int]
    crown: bool
    id: str

    @property
    def move_id(self) -> str:
        return self.id


@dataclass(frozen=True)
class ByColor(RoomEvent):
    """An event whose only data is the colour of the player it comes from."""

    color: Color


@dataclass(frozen=True)
class UndoRequested(ByColor):
    kind = "undo_requested"


@dataclass(frozen=True)
class UndoDeclined(ByColor):
    kind = "undo_declined"


@dataclass(frozen=True)
class UndoAccepted(ByColor):
    """An undo accepted by ``color``: ``plies`` moves are taken back (the asker's last move, and
    the reply to it if any)."""

    kind = "undo_accepted"
    plies: int


@dataclass(frozen=True)
class Resigned(ByColor):
    kind = "resigned"


@dataclass(frozen=True)
class TimedOut(ByColor):
    """``color``'s time ran out, as the server decided: it loses the game."""

    kind = "time_out"


@dataclass(frozen=True)
class DrawOffered(ByColor):
    kind = "draw_offered"


@dataclass(frozen=True)
class DrawDeclined(ByColor):
    kind = "draw_declined"


@dataclass(frozen=True)
class DrawAgreed(ByColor):
    kind = "draw_agreed"


@dataclass(frozen=True)
class PlayAgainRequested(ByColor):
    """The first player to ask for another game (``keep_sides``: with the same colours)."""

    kind = "play_again_requested"
    keep_sides: bool


@dataclass(frozen=True)
class NewGame(ByColor):
    """Both players asked (``color`` the second): game ``game_no`` starts with ``sides``."""

    kind = "new_game"
    keep_sides: bool
    sides: dict[str, int]
    game_no: int


#: Every event by its ``kind``.
EVENTS: dict[str, type[RoomEvent]] = {
    event.kind: event
    for event in (
        Created,
        Joined,
        Moved,
        UndoRequested,
        UndoDeclined,
        UndoAccepted,
        Resigned,
        TimedOut,
        DrawOffered,
        DrawDeclined,
        DrawAgreed,
        PlayAgainRequested,
        NewGame,
    )
}


def parse_event(kind: str, data: dict[str, Any]) -> RoomEvent:
    """The event of ``kind`` with ``data`` as ``to_data`` wrote it; ``ValueError`` naming the
    problem for an unknown kind or missing fields (a field with a default, added after events
    were stored without it, may be missing)."""
    event = EVENTS.get(kind)
    if event is None:
        raise ValueError(f"unknown event kind {kind!r}")
    missing = [item.name for item in fields(event) if item.name not in data and item.default is MISSING]
    if missing:
        raise ValueError(f"the {kind} event lacks its field {missing[0]!r}")
    return event(**{item.name: data[item.name] for item in fields(event) if item.name in data})


@dataclass(frozen=True)
class Numbered:
    """An event with its number in the room's log, and when it was stored (Unix seconds)."""

    number: int
    event: RoomEvent
    at: int = 0

    @classmethod
    def from_stored(cls, stored: StoredEvent) -> Numbered:
        return cls(stored.number, parse_event(stored.kind, stored.data), stored.at)
