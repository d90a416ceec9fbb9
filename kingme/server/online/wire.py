"""Every message of online play, one dataclass each: what a client sends, what the server
answers, and what processes tell each other about a room.

The wire format is here and nowhere else, as in lila-ws: a client message owns its checks
(``from_wire`` raises ``ProtocolError`` with a stable ``code`` and a sentence naming the problem;
the connection then gets one ``error`` and nothing changes), and every message owns its JSON
(``to_wire``). ``parse`` turns a client's frame into one of ``CLIENT_MESSAGES``. The same list,
as tables, is in docs/architecture.md (section *online*).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

import orjson

from kingme.server.edge import BadRequest
from kingme.server.online.events import Numbered, RoomEvent, parse_event

#: The largest client message accepted, in bytes of UTF-8.
MAX_MESSAGE_BYTES = 4096
#: Client-chosen move ids: 1 to 64 letters, digits, '-' or '_'.
MOVE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Seat tokens as issued (``secrets.token_urlsafe``), with room to spare.
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")


#: The HTTP status of a refusal, by its code, when an HTTP route refuses (400 for the others).
HTTP_STATUS = {
    "unknown_room": 404,
    "expired": 410,
    "room_full": 409,
    "conflict": 409,
    "rate_limited": 429,
    "too_many_rooms": 429,
    "too_large": 413,
}


class ProtocolError(BadRequest):
    """A request the server refuses; ``code`` is stable, ``message`` is for people. On the
    WebSocket it is an ``error`` message (with the move's id, if any); from an HTTP route it is
    the edge's one refusal, with the status ``HTTP_STATUS`` gives."""

    def __init__(self, code: str, message: str, move_id: str | None = None) -> None:
        super().__init__(message, HTTP_STATUS.get(code, 400), code)
        self.move_id = move_id

    def to_wire(self) -> str:
        return Error(self.code, self.message, self.move_id).to_wire()


def _text(body: dict[str, Any]) -> str:
    """One message's text: ``type`` first, compact (``kingme bench`` matches the start of an
    ``ack`` without parsing it). orjson writes an event's whole state eight times faster than
    the json module, and an event is written for every move."""
    return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS).decode()


def starts(kind: str) -> str:
    """The text every message of type ``kind`` starts with, so a reader can skip the others
    unparsed (``kingme bench`` waits for its ``ack`` that way)."""
    return _text({"type": kind})[:-1]


# -- client → server ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClientMessage:
    """A client message whose fields have been checked. A subclass's dataclass fields are the
    fields it may carry on the wire, by the same names; ``type`` names it."""

    type: ClassVar[str]

    @classmethod
    def field_names(cls) -> frozenset[str]:
        return frozenset(item.name for item in fields(cls))

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> ClientMessage:
        """The message from its JSON fields (without ``type``, none unknown); a message without
        fields has nothing more to check."""
        return cls()

    def to_wire(self) -> str:
        """The message as a client sends it; fields left None are left out."""
        body = {item.name: getattr(self, item.name) for item in fields(self)}
        return _text({"type": self.type} | {name: value for name, value in body.items() if value is not None})


def _event_number(body: dict[str, Any]) -> int | None:
    value = body.get("last_event")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        raise ProtocolError("bad_message", "last_event must be a whole number of 0 or more")
    return value


@dataclass(frozen=True)
class Hello(ClientMessage):
    """The first message of a connection: a seat token to play, none to watch."""

    type = "hello"
    token: str | None = None
    last_event: int | None = None

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> Hello:
        last_event = _event_number(body)
        token = body.get("token")
        if token is not None and (not isinstance(token, str) or not TOKEN.fullmatch(token)):
            raise ProtocolError("bad_token", "this seat token is not valid for this room")
        return cls(token, last_event)


@dataclass(frozen=True)
class Sync(ClientMessage):
    """A client that saw a gap in event numbers asks for a welcome again."""

    type = "sync"
    last_event: int | None = None

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> Sync:
        return cls(_event_number(body))


@dataclass(frozen=True)
class Ping(ClientMessage):
    type = "ping"


@dataclass(frozen=True)
class ProbeAnswer(ClientMessage):
    """A player's page echoing the server's round-trip probe ``n`` at once (lag compensation)."""

    type = "probe"
    n: int

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> ProbeAnswer:
        number = body.get("n")
        if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 2**53:
            raise ProtocolError("bad_message", "a probe answer echoes the probe's number n")
        return cls(number)


@dataclass(frozen=True)
class RoomAction(ClientMessage):
    """A request that changes the room when the room allows it (``Room.decide``)."""

    @property
    def move_id(self) -> str | None:
        """The client's id of the move, which every answer to a move carries."""
        return None


@dataclass(frozen=True)
class Move(RoomAction):
    type = "move"
    id: str
    #: Text such as ``"11-15"`` or ``"9x18x27"``, or a path of squares such as ``[9, 18, 27]``.
    move: str | list[int]

    @property
    def move_id(self) -> str:
        return self.id

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> Move:
        move_id = body.get("id")
        if not isinstance(move_id, str) or not MOVE_ID.fullmatch(move_id):
            raise ProtocolError("bad_message", "a move needs an id of 1 to 64 letters, digits, '-' or '_'")
        move = body.get("move")
        if isinstance(move, str) and 0 < len(move) <= 200:
            return cls(move_id, move)
        if (
            isinstance(move, list)
            and 2 <= len(move) <= 20
            and all(isinstance(square, int) and not isinstance(square, bool) for square in move)
        ):
            return cls(move_id, move)
        raise ProtocolError(
            "bad_message", "a move must be text such as '11-15' or a path of squares such as [9, 18, 27]", move_id
        )


@dataclass(frozen=True)
class UndoRequest(RoomAction):
    type = "undo_request"


@dataclass(frozen=True)
class UndoAccept(RoomAction):
    type = "undo_accept"


@dataclass(frozen=True)
class UndoDecline(RoomAction):
    type = "undo_decline"


@dataclass(frozen=True)
class Resign(RoomAction):
    type = "resign"


@dataclass(frozen=True)
class DrawOffer(RoomAction):
    type = "draw_offer"


@dataclass(frozen=True)
class DrawAccept(RoomAction):
    type = "draw_accept"


@dataclass(frozen=True)
class DrawDecline(RoomAction):
    type = "draw_decline"


@dataclass(frozen=True)
class PlayAgain(RoomAction):
    type = "play_again"
    keep_sides: bool = False

    @classmethod
    def from_wire(cls, body: dict[str, Any]) -> PlayAgain:
        keep_sides = body.get("keep_sides", False)
        if not isinstance(keep_sides, bool):
            raise ProtocolError("bad_message", "keep_sides must be true or false")
        return cls(keep_sides)


#: Every client message by its ``type``.
CLIENT_MESSAGES: dict[str, type[ClientMessage]] = {
    kind.type: kind
    for kind in (
        Hello,
        Move,
        UndoRequest,
        UndoAccept,
        UndoDecline,
        Resign,
        DrawOffer,
        DrawAccept,
        DrawDecline,
        PlayAgain,
        Sync,
        Ping,
        ProbeAnswer,
    )
}
#: Fields by which a client would tell the server its own time: the server keeps the clock.
CLOCK_CLAIMS = frozenset({"clock", "time", "remaining", "elapsed", "lag", "spent"})


def parse(text: str | bytes) -> ClientMessage:
    """Check one client frame; raise ``ProtocolError`` naming what is wrong."""
    if isinstance(text, bytes):
        raise ProtocolError("bad_json", "send JSON text frames, not binary frames")
    if len(text) > MAX_MESSAGE_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages must be at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise ProtocolError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message must be a JSON object with a type")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("bad_message", "the message has no type")
    message = CLIENT_MESSAGES.get(kind)
    if message is None:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}")
    body = {name: value for name, value in data.items() if name != "type"}
    if CLOCK_CLAIMS.intersection(body):
        raise ProtocolError(
            "server_clock", "the server keeps the clock: a message cannot say how much time is left or was used"
        )
    unknown = set(body) - message.field_names()
    if unknown:
        listed = ", ".join(sorted(repr(str(name)[:40]) for name in unknown))
        raise ProtocolError("bad_message", f"{kind} does not take the field(s) {listed}")
    return message.from_wire(body)


# -- server → client ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Welcome:
    """The room as it is, with the events a returning client missed (None: none asked for, or
    too many: then ``behind``). Answers hello and sync, and catches up a client that fell behind."""

    player: int | None
    version: int
    missed: list[Numbered] | None
    behind: bool
    state: dict[str, Any]

    def to_wire(self) -> str:
        role = "spectator" if self.player is None else "player"
        missed = None if self.missed is None else [_event_fields(item.number, item.event) for item in self.missed]
        return _text(
            {
                "type": "welcome",
                "you": {"player": self.player, "role": role},
                "version": self.version,
                "missed": missed,
                "behind": self.behind,
                "state": self.state,
            }
        )


def _event_fields(number: int, event: RoomEvent) -> dict[str, Any]:
    """An event as clients read it, in an ``event`` message and a welcome's ``missed`` list alike."""
    return {"n": number, "kind": event.kind, "data": event.to_data()}


@dataclass(frozen=True)
class Event:
    """One event of the room's log, numbered ``n``, with the whole state after it."""

    n: int
    event: RoomEvent
    state: dict[str, Any]

    def to_wire(self) -> str:
        return _text({"type": "event"} | _event_fields(self.n, self.event) | {"state": self.state})


@dataclass(frozen=True)
class Ack:
    """A move stored as event ``n`` (``duplicate``: it had been played already under its id)."""

    id: str
    n: int
    duplicate: bool = False

    def to_wire(self) -> str:
        return _text({"type": "ack", "id": self.id, "n": self.n} | ({"duplicate": True} if self.duplicate else {}))


@dataclass(frozen=True)
class Presence:
    """Who is connected: by player, by colour (when the room is at hand) and spectators; and by
    colour, whether the seat's connections have all stopped answering (``reconnecting``)."""

    players: dict[str, bool]
    spectators: int
    colors: dict[str, bool]
    reconnecting: dict[str, bool]

    def to_wire(self) -> str:
        body = {"type": "presence", "players": self.players, "spectators": self.spectators}
        return _text(body | self.colors | {"reconnecting": self.reconnecting})


@dataclass(frozen=True)
class Error:
    """A refusal for this client alone; nothing changed."""

    code: str
    message: str
    id: str | None = None

    def to_wire(self) -> str:
        body = {"type": "error", "code": self.code, "message": self.message}
        return _text(body | ({"id": self.id} if self.id is not None else {}))


@dataclass(frozen=True)
class Pong:
    def to_wire(self) -> str:
        return _text({"type": "pong"})


@dataclass(frozen=True)
class Probe:
    """The server measuring a player's round trip: the page echoes ``n`` at once."""

    n: int

    def to_wire(self) -> str:
        return _text({"type": "probe", "n": self.n})


# -- process → process (pub/sub, one channel per room) ------------------------------------------


@dataclass(frozen=True)
class Broadcast:
    """A message between the processes serving a room: a JSON header line, named by ``t``."""

    t: ClassVar[str]
    room: str

    def header(self) -> dict[str, Any]:
        return {"t": self.t, "room": self.room}

    def to_wire(self) -> str:
        return _text(self.header())


@dataclass(frozen=True)
class EventBroadcast(Broadcast):
    """An event stored at ``at``, and the ``event`` message every client is sent as it is: after
    the header and a newline (JSON never holds a raw newline), so no process encodes it again."""

    t = "event"
    at: int
    n: int
    event: RoomEvent
    text: str

    def header(self) -> dict[str, Any]:
        return super().header() | {"at": self.at, "event": _event_fields(self.n, self.event)}

    def to_wire(self) -> str:
        return f"{super().to_wire()}\n{self.text}"

    @classmethod
    def from_wire(cls, header: dict[str, Any], text: str) -> EventBroadcast:
        event = header["event"]
        return cls(header["room"], header["at"], event["n"], parse_event(event["kind"], event["data"]), text)


@dataclass(frozen=True)
class VersionBroadcast(Broadcast):
    """The room's stored version, announced when broadcasts to it may have been lost."""

    t = "version"
    v: int

    def header(self) -> dict[str, Any]:
        return super().header() | {"v": self.v}

    @classmethod
    def from_wire(cls, header: dict[str, Any], _text: str) -> VersionBroadcast:
        return cls(header["room"], header["v"])


@dataclass(frozen=True)
class PresenceBroadcast(Broadcast):
    """A process's connection counts for a room (``"1"``, ``"2"``, ``"spectators"``) at ``at``."""

    t = "presence"
    origin: str
    at: float
    counts: dict[str, int]

    def header(self) -> dict[str, Any]:
        return super().header() | {"origin": self.origin, "at": self.at, "counts": self.counts}

    @classmethod
    def from_wire(cls, header: dict[str, Any], _text: str) -> PresenceBroadcast:
        return cls(header["room"], header["origin"], header["at"], header["counts"])


@dataclass(frozen=True)
class WhoBroadcast(Broadcast):
    """A process asks the others to announce who they have connected to the room."""

    t = "who"
    origin: str

    def header(self) -> dict[str, Any]:
        return super().header() | {"origin": self.origin}

    @classmethod
    def from_wire(cls, header: dict[str, Any], _text: str) -> WhoBroadcast:
        return cls(header["room"], header["origin"])


#: How to read each broadcast, by its ``t``.
BROADCASTS: dict[str, Callable[[dict[str, Any], str], Broadcast]] = {
    kind.t: kind.from_wire for kind in (EventBroadcast, VersionBroadcast, PresenceBroadcast, WhoBroadcast)
}


def parse_broadcast(text: str) -> Broadcast:
    """A message from a room's channel, as some process's ``Broadcast.to_wire`` wrote it."""
    line, _, rest = text.partition("\n")
    header = json.loads(line)
    return BROADCASTS[header["t"]](header, rest)
