"""The package's public names: ``kingme.Board``, ``kingme.engine.choose_move`` and the rest are
there, yet importing the packages loads nothing until a name is used (numba takes half a second)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import kingme
import kingme.engine

#: Prints, as JSON, which of the heavy modules are loaded after each step of using the package.
_PROBE = """
import json, sys
def loaded():
    return [name for name in ("kingme.rules", "kingme.game", "kingme.engine.player", "numba") if name in sys.modules]
steps = {}
import kingme, kingme.engine
steps["import"] = loaded()
kingme.Board()
levels = kingme.engine.LEVELS
steps["kingme.Board, kingme.engine.LEVELS"] = loaded()
kingme.engine.choose_move
steps["kingme.engine.choose_move"] = loaded()
print(json.dumps(steps))
"""


def test_the_packages_load_what_a_name_needs_when_it_is_first_used() -> None:
    result = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(result.stdout) == {
        "import": [],
        "kingme.Board, kingme.engine.LEVELS": ["kingme.rules"],
        "kingme.engine.choose_move": ["kingme.rules", "kingme.game", "kingme.engine.player", "numba"],
    }


@pytest.mark.parametrize("package", [kingme, kingme.engine])
def test_every_public_name_is_there_and_listed(package: object) -> None:
    names = package.__all__  # type: ignore[attr-defined]
    assert all(getattr(package, name) is not None for name in names)
    assert set(names) <= set(dir(package))


def test_a_name_the_package_does_not_have_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match=r"module 'kingme\.engine' has no attribute 'choose'"):
        kingme.engine.choose  # noqa: B018
    from kingme.engine import movegen  # a submodule is still found by its own import

    assert movegen.__name__ == "kingme.engine.movegen"
