"""A move's broadcast that does not get through at once still reaches the opponent: a batch of
broadcasts that timed out on its way to Redis is sent again (issue 41: under load such batches
were dropped, and their hundreds of rooms were caught up from the database all at once, the last
ones after more than 5 s), and a process catching a client up brings its copy of the room forward
from the log instead of reading the whole room again. The losses are injected; nothing here
waits on a clock."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.online.test_delivery import is_ack, shows, two_processes
from tests.online.test_redis_marks import processes


def test_a_batch_of_broadcasts_that_timed_out_is_sent_again_and_the_opponent_sees_the_move(tmp_path, redis_url, run):
    async def scenario() -> None:
        async with processes(tmp_path, redis_url) as pair:
            publisher: Any = pair.a.pubsub
            send_batch, failed = publisher._send_batch, []

            async def times_out_once(batch: list[tuple[str, str]]) -> None:
                if not failed and any('"t":"event"' in text for _, text in batch):
                    failed.append(batch)
                    raise TimeoutError  # as a batch held up past KINGME_REDIS_TIMEOUT
                await send_batch(batch)

            publisher._send_batch = times_out_once
            await pair.black.move("11-15", "b1")
            await pair.black.wait_for(is_ack("b1"))
            # White sees the move as the event itself, sent again: not a catch-up from the database.
            seen = await pair.white.wait_for(shows(3))
            assert failed and seen["type"] == "event"

    run(scenario())


def test_a_lost_broadcast_is_caught_up_from_the_log_without_reading_the_room_again(tmp_path, run):
    async def scenario() -> None:
        async with two_processes(tmp_path, version_check_seconds=0.01) as pair:
            reads: list[str] = []
            load = pair.b.store.load

            async def counted(room_id: str) -> Any:
                reads.append(room_id)
                return await load(room_id)

            pair.b.store.load = counted  # type: ignore[method-assign]
            pair.bus.losing = True  # lost for good: only White's process's version check can help
            await pair.black.move("11-15", "b1")
            checking = asyncio.create_task(pair.b.hub.check_versions())
            try:
                welcome = await pair.white.wait_for(shows(3))
            finally:
                checking.cancel()
            assert [event["n"] for event in welcome["missed"]] == [3]
            assert reads == []  # White's process brought its copy forward by one event
            pair.bus.losing = False
            await pair.white.move("22-18", "w1")  # and that copy is right: White's reply is played
            await pair.white.wait_for(is_ack("w1"))
            await pair.black.wait_for(shows(4))

    run(scenario())
