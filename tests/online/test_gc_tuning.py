"""A server keeps what is alive frozen, so that no young collection walks the games' moves again
and again, and still collects reference cycles at its full collections."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable, Iterator

import pytest

from kingme.server.gc_tuning import keep_survivors_frozen


class Cycle:
    """An object in a reference cycle with itself: only a collection frees it."""

    def __init__(self) -> None:
        self.me = self


def passes(count: int) -> Callable[[float], bool]:
    """A ``wait`` that lets ``count`` passes run at once, then says stop."""
    left = [count]

    def wait(_seconds: float) -> bool:
        left[0] -= 1
        return left[0] < 0

    return wait


@pytest.fixture(autouse=True)
def unfrozen_afterwards() -> Iterator[None]:
    """This test process's objects are visible to the collector again after each test."""
    try:
        yield
    finally:
        gc.unfreeze()


def test_a_pass_freezes_what_is_alive_and_empties_the_young_generation():
    survivor = [object() for _ in range(1000)]
    keep_survivors_frozen(passes(1), every=1.0, full_every=3600.0)
    assert gc.get_freeze_count() >= len(survivor)
    assert gc.get_count()[0] < 100  # what little the pass itself allocated


def test_a_reference_cycle_frozen_with_the_rest_goes_at_the_next_full_collection():
    cycle = Cycle()
    gone = weakref.ref(cycle)
    keep_survivors_frozen(passes(1), every=1.0, full_every=3.0)
    del cycle
    gc.collect()
    assert gone() is not None  # frozen: not collected, not even by a full collection
    keep_survivors_frozen(passes(3), every=1.0, full_every=3.0)
    assert gone() is None
