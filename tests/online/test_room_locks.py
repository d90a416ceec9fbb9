"""A room's lock in one process: changes to a room never overlap, and the lock is forgotten
once nobody uses it. Every interleaving here is stepped through the event loop, so the tests
are deterministic."""

from __future__ import annotations

import asyncio

from kingme.server.online.repository import RoomRepository
from kingme.server.storage import RoomStore

ROOM = "a" * 22


def repository() -> RoomRepository:
    """A repository for its locks alone (nothing here reads the store)."""
    return RoomRepository(RoomStore(database=None))  # type: ignore[arg-type]


async def turns(count: int = 5) -> None:
    """Let every ready task run ``count`` times."""
    for _ in range(count):
        await asyncio.sleep(0)


def test_a_lock_released_to_a_waiting_task_is_not_forgotten_before_that_task_holds_it(run):
    async def scenario() -> None:
        rooms = repository()
        inside: list[str] = []
        first_may_leave, second_in, second_may_leave = asyncio.Event(), asyncio.Event(), asyncio.Event()

        async def first() -> None:
            async with rooms.locked(ROOM):
                await first_may_leave.wait()

        async def second() -> None:
            async with rooms.locked(ROOM):
                inside.append("second")
                second_in.set()
                await second_may_leave.wait()
                inside.remove("second")

        async def third() -> None:
            async with rooms.locked(ROOM):
                inside.append("third")

        tasks = [asyncio.create_task(first())]
        await turns()
        tasks.append(asyncio.create_task(second()))  # waits for the first
        await turns()
        first_may_leave.set()  # the first releases the lock to the second, which is not yet awake
        await second_in.wait()
        tasks.append(asyncio.create_task(third()))
        await turns()
        assert inside == ["second"]  # the third waits: it found the same lock
        second_may_leave.set()
        await asyncio.gather(*tasks)
        assert inside == ["third"]

    run(scenario())


def test_a_lock_is_forgotten_once_unused_and_kept_while_the_room_has_a_client_here(run):
    async def scenario() -> None:
        rooms = repository()
        async with rooms.locked(ROOM):
            assert rooms.locks_kept() == 1
        assert rooms.locks_kept() == 0
        rooms.open(ROOM)
        async with rooms.locked(ROOM):
            pass
        assert rooms.locks_kept() == 1
        rooms.close(ROOM)
        assert rooms.locks_kept() == 0

    run(scenario())


def test_a_lock_held_when_its_room_closes_is_forgotten_when_released(run):
    async def scenario() -> None:
        rooms = repository()
        rooms.open(ROOM)
        async with rooms.locked(ROOM):
            rooms.close(ROOM)
            assert rooms.locks_kept() == 1
        assert rooms.locks_kept() == 0

    run(scenario())
