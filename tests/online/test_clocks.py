"""Timed online games: the server keeps the clocks (issue 41). Two services share one database
and a pub/sub the tests control, and both run by a clock the test moves, so every remaining
time here is exact and nothing waits on real time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from async_support import run

from kingme.server.online import OnlineConfig
from kingme.server.online.clock import MAX_LAG_CREDIT_MS, Clock, fischer, time_control
from kingme.server.online.service import OnlineService
from kingme.server.online.wire import DrawAccept, DrawOffer, PlayAgain, ProtocolError, Resign, UndoAccept, UndoRequest
from kingme.server.pubsub import LocalPubSub
from kingme.server.storage import RoomStore
from tests.online.test_delivery import Pair, is_ack, shows, two_processes

START = 1_800_000_000.0  # the test's "now", in Unix seconds
MINUTES_3 = 180_000


class Time:
    """The servers' clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now

    def passes(self, milliseconds: int) -> None:
        self.now += milliseconds / 1000


def in_timed_room(tmp_path: Any, scenario: Callable[[Pair, Time], Awaitable[None]], control: str = "3+2") -> None:
    """Play ``scenario`` to its end in a room with ``control``: Black on process ``a``, White on
    ``b``, White's joining having started the clock; both processes run by the ``Time`` that the
    scenario moves."""

    async def in_room() -> None:
        time = Time()
        async with two_processes(tmp_path, control, time) as pair:
            await scenario(pair, time)

    run(in_room())


def clock_of(message: dict[str, Any]) -> dict[str, Any]:
    return message["state"]["clock"]


def event(kind: str) -> Callable[[dict[str, Any]], bool]:
    """An event message of ``kind``."""
    return lambda m: m["type"] == "event" and m["kind"] == kind


def last_event(player: Any, kind: str) -> dict[str, Any]:
    return [m for m in player.received if event(kind)(m)][-1]


def test_the_clock_value_counts_a_move_from_when_the_position_was_sent():
    three_two = fischer(3, 2)
    clock = Clock(MINUTES_3, MINUTES_3, "black", 1_000)
    after = clock.after_move(three_two, "black", 6_000, lag_ms=100, game_on=True)
    # 5 s passed, 0.1 s of it the network's: 4.9 s used, then the 2 s increment.
    assert after == Clock(MINUTES_3 - 4_900 + 2_000, MINUTES_3, "white", 6_000)
    assert after.left("white", 9_000) == MINUTES_3 - 3_000 and after.left("black", 9_000) == after.black
    # A claimed lag beyond the bound is credited only up to it; no move gains time beyond the increment.
    slow = clock.after_move(three_two, "black", 6_000, lag_ms=60_000, game_on=True)
    assert slow.black == MINUTES_3 - (5_000 - MAX_LAG_CREDIT_MS) + 2_000
    assert clock.after_move(three_two, "black", 1_050, lag_ms=200, game_on=True).black == MINUTES_3 + 2_000
    # Correspondence: each move has the whole period again.
    day = time_control("1d")
    assert Clock(5, day.initial_ms, "black", 0).after_move(day, "black", 4, 0, True).black == day.initial_ms
    assert Clock(100, 100, "black", 0).left("black", 500) == 0 and Clock(100, 100, "black", 0).flag_at() == 100


def test_a_time_control_outside_the_allowed_set_is_refused():
    for bad in ("1+0", "3+2 ", "4d", "", None, 180, "test:2+0"):
        with pytest.raises(ValueError, match="time_control must be one of: untimed, 3\\+2, 5\\+0, 10\\+5"):
            time_control(bad)
    assert time_control("test:2+0", allow_test=True).initial_ms == 2_000  # the test servers' setting only


def test_creating_a_room_with_a_time_control_outside_the_set_is_refused_and_stores_nothing(tmp_path):
    async def scenario(pair: Pair, _: Time) -> None:
        for bad in ("2+1", "test:2+0", ["3+2"]):
            with pytest.raises(ProtocolError) as refused:
                await pair.a.create_room("american", "black", "127.0.0.1", bad)
            assert refused.value.code == "bad_time_control" and "3+2" in refused.value.message
        assert (await pair.a.describe(pair.room))["time_control"]["name"] == "3+2"

    in_timed_room(tmp_path, scenario)


def test_both_processes_see_the_same_remaining_times_after_a_move(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(1_500)
        pair.black.client.lag_ms = 200
        await pair.black.move("11-15", "b1")
        on_a, on_b = await pair.black.wait_for(shows(3)), await pair.white.wait_for(shows(3))
        expected = {"black": MINUTES_3 - 1_300 + 2_000, "white": MINUTES_3, "running": "white"}
        assert clock_of(on_a) == clock_of(on_b) == expected
        assert on_b["data"]["clock"]["since"] == START * 1000 + 1_500
        # Each process's copy holds the same clock, so a move on either is counted alike.
        assert pair.a.rooms.cached(pair.room).clock == pair.b.rooms.cached(pair.room).clock

    in_timed_room(tmp_path, scenario)


def test_a_player_who_never_comes_back_loses_on_time(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        await pair.black.move("11-15", "b1")
        await pair.white.wait_for(shows(3))
        await pair.white.leave()  # White's page is gone, and its clock keeps running
        time.passes(MINUTES_3 - 1)
        await pair.a.look_for_flags()
        assert not [m for m in pair.black.received if event("time_out")(m)]
        time.passes(1)
        await pair.a.look_for_flags()  # Black's process decides it: White is not connected anywhere
        fallen = await pair.black.wait_for(event("time_out"))
        assert fallen["state"]["game"]["result"] == {"winner": "black", "reason": "time"}
        assert clock_of(fallen) == {"black": MINUTES_3 + 2_000, "white": 0, "running": None}
        assert fallen["state"]["score"] == {"black": 1, "white": 0, "draws": 0}

    in_timed_room(tmp_path, scenario)


def test_a_game_whose_time_ran_out_while_the_server_was_down_is_decided_when_it_starts(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(MINUTES_3 + 60_000)  # every process was down meanwhile
        restarted = OnlineService(RoomStore(pair.a.store.database), LocalPubSub(), OnlineConfig())
        restarted.clock = time
        await restarted.look_for_flags()
        room = await restarted.rooms.load(pair.room, fresh=True)
        assert room.game.result is not None and (room.game.result.winner, room.game.result.reason) == (
            "white",
            "time",
        )
        assert room.clock == Clock(0, MINUTES_3, None, 0)

    in_timed_room(tmp_path, scenario)


def test_a_move_after_the_flag_fell_is_refused_and_the_clocks_do_not_change(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(MINUTES_3 + 5)
        with pytest.raises(ProtocolError) as refused:
            await pair.black.move("11-15", "late")
        assert refused.value.code == "time_out" and refused.value.move_id == "late"
        assert refused.value.message == "black's time ran out: white wins on time"
        fallen = await pair.white.wait_for(event("time_out"))
        assert clock_of(fallen) == {"black": 0, "white": MINUTES_3, "running": None}
        time.passes(10_000)
        with pytest.raises(ProtocolError) as again:
            await pair.black.move("11-15", "later")
        assert again.value.code == "game_over"
        room = await pair.b.rooms.load(pair.room, fresh=True)
        assert room.clock == Clock(0, MINUTES_3, None, 0) and room.game.moves == []

    in_timed_room(tmp_path, scenario)


def test_a_copy_that_missed_a_move_never_takes_it_for_a_fallen_flag(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        pair.bus.losing = True  # White's process never hears of Black's move...
        time.passes(1_000)
        await pair.black.move("11-15", "b1")
        pair.bus.losing = False
        time.passes(MINUTES_3 - 500)  # ... so its copy has Black's clock run out, not White's
        await pair.white.move("22-18", "w1")  # White, with 0.5 s left, still plays
        await pair.white.wait_for(is_ack("w1"))
        moved = await pair.black.wait_for(shows(4))
        assert clock_of(moved) == {"black": MINUTES_3 + 1_000, "white": 2_500, "running": "black"}

    in_timed_room(tmp_path, scenario)


def test_a_move_replayed_after_a_reconnect_is_acknowledged_once_and_the_clocks_do_not_change(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(3_000)
        await pair.black.move("11-15", "b1")
        clock = (await pair.a.rooms.load(pair.room)).clock
        time.passes(20_000)  # the page reconnects and sends its move again
        await pair.black.move("11-15", "b1")
        duplicate = await pair.black.wait_for(lambda m: m.get("duplicate"))
        assert duplicate["n"] == 3
        assert (await pair.a.rooms.load(pair.room, fresh=True)).clock == clock
        with pytest.raises(ProtocolError) as reused:  # another move under that id changes nothing either
            await pair.black.move("9-14", "b1")
        assert reused.value.code == "move_id_reused"
        assert (await pair.a.rooms.load(pair.room, fresh=True)).clock == clock

    in_timed_room(tmp_path, scenario)


def test_draw_offers_undo_and_resignation_work_and_stop_or_restart_the_clock(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(1_000)
        await pair.black.move("11-15", "b1")
        await pair.white.wait_for(shows(3))
        time.passes(4_000)
        await pair.b.act(pair.white.client, DrawOffer())
        await pair.a.act(pair.black.client, UndoRequest())
        time.passes(2_000)
        await pair.b.act(pair.white.client, UndoAccept())  # Black's move is taken back, not its time
        undone = await pair.black.wait_for(event("undo_accepted"))
        assert clock_of(undone) == {"black": MINUTES_3 + 1_000, "white": MINUTES_3 - 6_000, "running": "black"}
        await pair.a.act(pair.black.client, DrawOffer())
        time.passes(500)
        await pair.b.act(pair.white.client, DrawAccept())
        agreed = await pair.black.wait_for(event("draw_agreed"))
        assert clock_of(agreed) == {"black": MINUTES_3 + 500, "white": MINUTES_3 - 6_000, "running": None}

    in_timed_room(tmp_path, scenario)


def test_a_rematch_keeps_the_time_control_with_full_clocks(tmp_path):
    async def scenario(pair: Pair, time: Time) -> None:
        time.passes(7_000)
        await pair.a.act(pair.black.client, Resign())
        await pair.a.act(pair.black.client, PlayAgain())
        time.passes(1_000)
        await pair.b.act(pair.white.client, PlayAgain())
        started = await pair.black.wait_for(event("new_game"))
        ten = 600_000
        assert started["state"]["time_control"]["name"] == "10+5"
        assert clock_of(started) == {"black": ten, "white": ten, "running": "black"}
        # Sides switched: White (player 2) now has Black and its clock runs from the new game.
        time.passes(2_000)
        await pair.white.move("11-15", "w1")
        await pair.white.wait_for(is_ack("w1"))
        assert clock_of(last_event(pair.black, "move"))["black"] == ten - 2_000 + 5_000

    in_timed_room(tmp_path, scenario, "10+5")


def test_an_untimed_room_has_no_clock(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path) as pair:
            await pair.black.move("11-15", "b1")
            moved = await pair.white.wait_for(shows(3))
            assert moved["state"]["clock"] is None and "clock" not in moved["data"]
            assert moved["state"]["time_control"]["name"] == "untimed"

    run(scenario())
