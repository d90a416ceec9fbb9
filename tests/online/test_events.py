"""Room events: each kind is one dataclass, stored as its kind and data and read back as itself;
clients receive the same kind and data."""

from __future__ import annotations

import json

import pytest

from kingme.server.online.events import (
    EVENTS,
    Created,
    DrawAgreed,
    DrawDeclined,
    DrawOffered,
    Joined,
    Moved,
    NewGame,
    Numbered,
    PlayAgainRequested,
    Resigned,
    TimedOut,
    UndoAccepted,
    UndoDeclined,
    UndoRequested,
    parse_event,
)
from kingme.server.online.wire import Event, Welcome

EXAMPLES = [
    Created("american", {"black": 1, "white": 2}, "3+2"),
    Joined(2, "white", clock={"black": 180_000, "white": 180_000, "running": "black", "since": 5}),
    Moved("black", "9x18x27", [9, 18, 27], [14, 23], True, "m1"),
    TimedOut("white", clock={"black": 1_000, "white": 0, "running": None, "since": 0}),
    UndoRequested("black"),
    UndoDeclined("white"),
    UndoAccepted("white", 2),
    Resigned("black"),
    DrawOffered("white"),
    DrawDeclined("black"),
    DrawAgreed("black"),
    PlayAgainRequested("white", True),
    NewGame("black", False, {"black": 2, "white": 1}, 2),
]


def test_events_stored_before_clocks_read_back_untimed():
    assert parse_event("created", {"variant": "american", "sides": {"black": 1, "white": 2}}).time_control == (
        "untimed"
    )
    assert parse_event("joined", {"player": 2, "color": "white"}).clock is None
    assert "clock" not in Joined(2, "white").to_data()


def test_the_examples_cover_every_kind():
    assert {type(event) for event in EXAMPLES} == set(EVENTS.values())


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda event: event.kind)
def test_every_event_reads_back_as_itself_from_its_stored_form(event):
    stored = event.stored(7)
    assert (stored.number, stored.kind) == (7, event.kind)
    assert Numbered.from_stored(stored) == Numbered(7, event)
    assert parse_event(event.kind, json.loads(json.dumps(event.to_data()))) == event


def test_a_move_is_stored_with_its_id_and_other_events_without_one():
    assert EXAMPLES[2].stored(3).move_id == "m1"
    assert Resigned("black").stored(3).move_id is None


def test_a_move_event_keeps_the_data_clients_read():
    assert EXAMPLES[2].to_data() == {
        "color": "black",
        "move": "9x18x27",
        "path": [9, 18, 27],
        "captures": [14, 23],
        "crown": True,
        "id": "m1",
    }


def test_clients_receive_an_events_kind_and_data_in_events_and_welcomes_alike():
    event = json.loads(Event(4, DrawOffered("white"), {"version": 4}).to_wire())
    offered = {"n": 4, "kind": "draw_offered", "data": {"color": "white"}}
    assert event == {"type": "event", **offered, "state": {"version": 4}}
    welcome = json.loads(Welcome(1, 4, [Numbered(4, DrawOffered("white"))], False, {}).to_wire())
    assert welcome["missed"] == [offered]


def test_an_unknown_kind_or_a_missing_field_is_named():
    with pytest.raises(ValueError, match="unknown event kind 'teleported'"):
        parse_event("teleported", {})
    with pytest.raises(ValueError, match=r"the undo_accepted event lacks its field 'plies'"):
        parse_event("undo_accepted", {"color": "white"})
