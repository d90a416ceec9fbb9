"""The wire types: what a client sends reads back as the same message, and what one process
broadcasts reads back the same in another; the texts clients are sent keep their shape."""

from __future__ import annotations

import json

import pytest

from kingme.server.online.events import DrawOffered, Moved
from kingme.server.online.wire import (
    CLIENT_MESSAGES,
    Ack,
    EventBroadcast,
    Hello,
    Move,
    PlayAgain,
    Presence,
    PresenceBroadcast,
    ProbeAnswer,
    ProtocolError,
    Sync,
    VersionBroadcast,
    WhoBroadcast,
    parse,
    parse_broadcast,
    starts,
)

TOKEN = "t" * 32
MOVED = Moved("black", "11-15", [11, 15], [], False, "m1")


@pytest.mark.parametrize(
    "message",
    [
        Hello(TOKEN, 7),
        Move("m1", "11-15"),
        Move("m2", [9, 18, 27]),
        PlayAgain(keep_sides=True),
        Sync(3),
        ProbeAnswer(12),
        *(kind() for kind in CLIENT_MESSAGES.values() if kind not in (Move, ProbeAnswer)),  # defaults
    ],
)
def test_every_client_message_reads_back_as_itself(message):
    assert parse(message.to_wire()) == message


def test_a_client_cannot_tell_the_server_its_own_time():
    for claim in ({"type": "move", "id": "m1", "move": "11-15", "clock": 170_000}, {"type": "ping", "time": 5}):
        with pytest.raises(ProtocolError) as refused:
            parse(json.dumps(claim))
        assert refused.value.code == "server_clock" and "the server keeps the clock" in refused.value.message
    with pytest.raises(ProtocolError, match="echoes the probe's number"):
        parse(json.dumps({"type": "probe", "n": "soon"}))


def test_each_message_type_takes_exactly_its_dataclass_fields():
    with pytest.raises(ProtocolError) as refused:
        parse(json.dumps({"type": "sync", "token": TOKEN}))
    assert (refused.value.code, refused.value.message) == ("bad_message", "sync does not take the field(s) 'token'")


@pytest.mark.parametrize(
    "broadcast",
    [
        EventBroadcast("room", 5, 3, MOVED, '{"type": "event", "n": 3}'),
        EventBroadcast("room", 5, 4, DrawOffered("white"), '{"type": "event", "n": 4}'),
        VersionBroadcast("room", 9),
        PresenceBroadcast("room", "abc", 12.5, {"1": 1, "2": 0, "spectators": 4}),
        WhoBroadcast("room", "abc"),
    ],
)
def test_every_broadcast_reads_back_as_itself_in_another_process(broadcast):
    assert parse_broadcast(broadcast.to_wire()) == broadcast


def test_an_event_broadcast_carries_the_clients_text_after_its_header_untouched():
    text = '{"type": "event", "n": 3, "kind": "move"}'
    header, _, rest = EventBroadcast("room", 5, 4, DrawOffered("white"), text).to_wire().partition("\n")
    assert rest == text
    assert json.loads(header) == {
        "t": "event",
        "room": "room",
        "at": 5,
        "event": {"n": 4, "kind": "draw_offered", "data": {"color": "white"}},
    }


def test_server_messages_start_with_their_type_and_leave_out_what_is_not_so():
    assert Ack("m1", 4).to_wire() == '{"type":"ack","id":"m1","n":4}'
    assert starts("ack") == '{"type":"ack"' and Ack("m1", 4).to_wire().startswith(starts("ack"))
    assert json.loads(Ack("m1", 4, duplicate=True).to_wire())["duplicate"] is True
    seats = {"black": True, "white": False}
    presence = json.loads(Presence({"1": True, "2": False}, 2, seats, {"black": True, "white": False}).to_wire())
    assert presence == {
        "type": "presence",
        "players": {"1": True, "2": False},
        "spectators": 2,
        "black": True,
        "white": False,
        "reconnecting": {"black": True, "white": False},
    }
    error = '{"type":"error","code":"conflict","message":"try again"}'
    assert ProtocolError("conflict", "try again").to_wire() == error
