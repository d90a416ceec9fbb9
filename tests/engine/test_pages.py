"""The transposition table's memory: zeroed, writable, aligned where the search wants it."""

import numpy as np
import pytest

from kingme.engine import search
from kingme.engine.pages import HUGE_PAGE, WORD, zeroed_words


def test_words_are_zeroed_writable_and_aligned_at_the_word_asked() -> None:
    words = zeroed_words(10_000, 1_234)
    assert words.dtype == np.int64 and len(words) == 10_000 and words.flags.c_contiguous
    assert not words.any()
    assert (words.ctypes.data + 1_234 * WORD) % HUGE_PAGE == 0
    words[:] = 7
    assert int(words.sum()) == 70_000


def test_a_word_outside_the_array_cannot_be_aligned() -> None:
    with pytest.raises(ValueError, match="word 11 is not within 10 words"):
        zeroed_words(10, 11)


def test_the_work_arrays_table_starts_on_a_huge_page_so_no_bucket_spans_two_cache_lines() -> None:
    work = search.new_work(12)
    assert (work.ctypes.data + search.TT_AT * WORD) % HUGE_PAGE == 0
    assert not work[search.TT_AT :].any()
