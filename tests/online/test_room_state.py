"""A room's state, sent to its clients after every event, is the state of its game as built
from scratch: the history rows a room keeps in step with its events never drift from its moves,
through undos and new games, and a room read back from storage shows the same."""

from __future__ import annotations

import random

import pytest

from kingme.server.online import wire
from kingme.server.online.clock import time_control
from kingme.server.online.events import RoomEvent
from kingme.server.online.room import Moment, Room, RoomError
from kingme.server.state import game_state
from kingme.server.storage import StoredRoom

NOW = 1_800_000_000
AT = Moment(NOW * 1000)


def play(room: Room, player: int, action: wire.RoomAction) -> RoomEvent | None:
    """Decide and apply ``action`` of ``player``, as the server does; None when refused."""
    try:
        event = room.decide(player, action, AT)
    except RoomError:
        return None
    room.apply(room.version + 1, event, NOW)
    return event


def stored(room: Room) -> StoredRoom:
    """The room as the repository stores it."""
    return StoredRoom(room.id, room.variant, NOW, room.last_move_at, room.version, "1", "2", room.snapshot())


@pytest.mark.parametrize("control", ["untimed", "3+2"])
def test_a_rooms_state_is_its_game_built_from_scratch_after_every_event(control):
    chooser = random.Random(12)
    room = Room.new("r" * 22, "american", "black", NOW, time_control(control))
    room.apply(1, room.decide_join(AT), NOW)
    for ply in range(600):
        player = room.sides[room.game.turn]
        roll = chooser.random()
        if room.game.is_over:
            play(room, 1, wire.PlayAgain())
            play(room, 2, wire.PlayAgain())
        elif roll < 0.1:
            if play(room, 3 - player, wire.UndoRequest()):
                play(room, player, wire.UndoAccept())
        elif roll < 0.12:
            play(room, player, wire.Resign())
        else:
            move = chooser.choice(room.game.legal_moves())
            play(room, player, wire.Move(f"m{ply}", str(move)))
        assert room.public_state()["game"] == game_state(room.game)
        assert Room.restore(stored(room)).public_state(AT.now) == room.public_state(AT.now)
    assert room.game_no > 3  # the run went through several games, undos and resignations
