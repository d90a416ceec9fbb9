"""The material-and-squares table of the weak levels: read back as written, and refused with
what is wrong when it is not a weights file."""

from __future__ import annotations

import numpy as np
import pytest

from kingme.engine import evaluation as ev


def test_a_weights_file_read_back_is_the_table_written() -> None:
    from importlib import resources

    text = resources.files("kingme.engine").joinpath(ev.WEIGHTS_FILE).read_text()
    assert np.array_equal(ev.read_weights(text, "shipped"), ev.WEIGHTS)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("not json", "Expecting value: line 1 column 1 (char 0)"),
        ('{"weights": {}}', "it has no 'man'"),
        ('{"weights": {"man": {"opening": [1, 2], "ending": [1]}}}', "man.opening has 2 weights, expected 1"),
        ('{"weights": {"man": {"opening": ["x"], "ending": [1]}}}', "invalid literal for int() with base 10: 'x'"),
    ],
)
def test_a_file_that_is_not_a_weights_table_is_refused_with_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=r"^w\.json is not an evaluation weights file: ") as refusal:
        ev.read_weights(text, "w.json")
    assert str(refusal.value).endswith(problem)
