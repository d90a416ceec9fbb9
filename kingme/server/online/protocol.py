"""The WebSocket protocol of online rooms: what a client may send, checked before anything else.

Every client message is one JSON object with a ``type``. ``parse`` turns text into a
``Message`` or raises ``ProtocolError`` with a stable ``code`` and a message naming the
problem; the connection then gets one ``error`` and nothing changes. The full list of
messages both ways is in docs/architecture.md (section *online*).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

#: The largest client message accepted, in bytes of UTF-8.
MAX_MESSAGE_BYTES = 4096
#: Client-chosen move ids: 1 to 64 letters, digits, '-' or '_'.
MOVE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Seat tokens as issued (``secrets.token_urlsafe``), with room to spare.
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")

#: Message type -> the fields it may carry (besides ``type``).
FIELDS: dict[str, frozenset[str]] = {
    "hello": frozenset({"token", "last_event"}),
    "move": frozenset({"id", "move"}),
    "undo_request": frozenset(),
    "undo_accept": frozenset(),
    "undo_decline": frozenset(),
    "resign": frozenset(),
    "draw_offer": frozenset(),
    "draw_accept": frozenset(),
    "draw_decline": frozenset(),
    "play_again": frozenset({"keep_sides"}),
    "sync": frozenset({"last_event"}),
    "ping": frozenset(),
}


class ProtocolError(Exception):
    """A message the server refuses; ``code`` is stable, ``message`` is for people."""

    def __init__(self, code: str, message: str, move_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.move_id = move_id

    def to_wire(self) -> str:
        body: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.move_id is not None:
            body["id"] = self.move_id
        return json.dumps(body)


@dataclass(frozen=True)
class Message:
    """A client message whose fields have been checked."""

    type: str
    fields: dict[str, Any] = field(default_factory=dict)

    def get(self, name: str, default: Any = None) -> Any:
        return self.fields.get(name, default)


def _event_number(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
        raise ProtocolError("bad_message", f"{name} must be a whole number of 0 or more")
    return value


def parse(text: str | bytes) -> Message:
    """Check one client message; raise ``ProtocolError`` naming what is wrong."""
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
    if kind not in FIELDS:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:40]!r}")
    unknown = set(data) - FIELDS[kind] - {"type"}
    if unknown:
        listed = ", ".join(sorted(repr(str(name)[:40]) for name in unknown))
        raise ProtocolError("bad_message", f"{kind} does not take the field(s) {listed}")
    fields = {name: value for name, value in data.items() if name != "type"}
    if "last_event" in fields and fields["last_event"] is not None:
        fields["last_event"] = _event_number(fields["last_event"], "last_event")
    if kind == "hello" and fields.get("token") is not None:
        token = fields["token"]
        if not isinstance(token, str) or not TOKEN.fullmatch(token):
            raise ProtocolError("bad_token", "this seat token is not valid for this room")
    if kind == "move":
        _check_move(fields)
    if kind == "play_again" and not isinstance(fields.get("keep_sides", False), bool):
        raise ProtocolError("bad_message", "keep_sides must be true or false")
    return Message(kind, fields)


def _check_move(fields: dict[str, Any]) -> None:
    move_id = fields.get("id")
    if not isinstance(move_id, str) or not MOVE_ID.fullmatch(move_id):
        raise ProtocolError("bad_message", "a move needs an id of 1 to 64 letters, digits, '-' or '_'")
    move = fields.get("move")
    is_text = isinstance(move, str) and 0 < len(move) <= 200
    is_path = (
        isinstance(move, list)
        and 2 <= len(move) <= 20
        and all(isinstance(square, int) and not isinstance(square, bool) for square in move)
    )
    if not (is_text or is_path):
        raise ProtocolError(
            "bad_message", "a move must be text such as '11-15' or a path of squares such as [9, 18, 27]", move_id
        )
