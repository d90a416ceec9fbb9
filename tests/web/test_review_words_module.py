"""js/review.js's evaluation in words, as a unit in Chromium: a table win says what its plies count
(the distance to the next capture or man's move), and one ply is "ply"."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def eval_text(play, table_plies: int) -> str:
    """``evalText`` of a table win in ``table_plies`` plies (positive: Red wins), in English."""
    return play.page.evaluate(
        """async (plies) => {
            const i18n = await import('/js/i18n.js');
            await i18n.loadPart('review');
            const review = await import('/js/review.js');
            return review.evalText({ score: null, win: plies > 0 ? 100 : 0, table_plies: plies });
        }""",
        table_plies,
    )


def test_a_table_win_is_told_in_plies_and_one_ply_in_the_singular(play):
    assert eval_text(play, 9) == "Red wins (endgame tables): a capture or a man's move within 9 plies."
    assert eval_text(play, -1) == "White wins (endgame tables): a capture or a man's move within 1 ply."
