"""Option types and wording shared by the commands.

Each option gets its own check: argparse names the option in front of the message
(``argument --repeat: must be a whole number of at least 1, not '0'``), so one type per kind
of value serves every option without borrowing another option's words, and an upper bound
always says why it is there.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

from kingme.rules.fen import START_FEN


def whole_number(least: int, most: int | None = None, why: str = "") -> Callable[[str], int]:
    """An option type for a whole number from ``least`` to ``most``; ``why`` explains the upper
    bound in the message, so nobody meets a limit without its reason."""
    bound = f"from {least} to {most}" if most is not None else f"of at least {least}"
    reason = f" ({why})" if why else ""

    def parse(text: str) -> int:
        number = int(text) if text.isascii() and text.isdigit() and len(text) < 20 else least - 1
        if least <= number and (most is None or number <= most):
            return number
        raise argparse.ArgumentTypeError(f"must be a whole number {bound}{reason}, not {text[:20]!r}")

    return parse


def number(least: float, most: float, why: str = "", *, above: bool = False) -> Callable[[str], float]:
    """An option type for a number from ``least`` (or, with ``above``, more than it) to ``most``;
    ``why`` explains the upper bound. Not-a-number and infinities are refused like any number out
    of range."""
    bound = f"more than {least:g} and at most {most:g}" if above else f"from {least:g} to {most:g}"
    reason = f" ({why})" if why else ""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if (least < value if above else least <= value) and value <= most:  # False for nan
            return value
        raise argparse.ArgumentTypeError(f"must be a number {bound}{reason}, not {text[:20]!r}")

    return parse


#: An option type for a share, a number from 0 to 1.
fraction = number(0, 1)


def add_position(parser: argparse.ArgumentParser, *, required: bool = False, variant: bool = True) -> None:
    """``--fen`` (default: the standard start, unless ``required``) and ``--variant``."""
    if required:
        parser.add_argument("--fen", required=True, help="position in PDN FEN")
    else:
        parser.add_argument("--fen", default=START_FEN, help="position in PDN FEN (default: the standard start)")
    if variant:
        add_variant(parser)


def add_variant(parser: argparse.ArgumentParser) -> None:
    """``--variant``: the rules to play by."""
    parser.add_argument("--variant", default="american", help="american (default) or casual")


def plural(count: int, noun: str, nouns: str | None = None) -> str:
    """``1 move``, ``2 moves``, ``1,000 positions``: the count with the noun in the right number.

    >>> plural(1, "ply", "plies"), plural(61, "ply", "plies"), plural(0, "game")
    ('1 ply', '61 plies', '0 games')
    """
    return f"{count:,} {noun if count == 1 else nouns or noun + 's'}"


def check_output(path: Path, names: str) -> None:
    """Fail at once, not after minutes or hours of work, when ``--output`` ``path`` cannot be
    written: it is a directory (``names`` says what it should name), a file stands where one of its
    folders should, or its folder cannot be made or written in (tried by writing and removing
    ``partial_path(path)``, the name a command writes before renaming it into place)."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory; --output names {names} to write")
    for folder in path.parents:
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"{folder} is a file, so {path} cannot be written under it")
    path.parent.mkdir(parents=True, exist_ok=True)
    trial = partial_path(path)
    trial.write_text("", encoding="utf-8")
    trial.unlink()


def partial_path(path: Path) -> Path:
    """Where ``path`` is written before it is renamed into place (so readers never see half a
    file), and so what ``check_output`` tries to write."""
    return path.with_name(path.name + ".partial")


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` by way of ``partial_path(path)``: a run stopped halfway leaves
    the file as it was, never half written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_path(path)
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def printable(name: str, width: int = 60) -> str:
    """A tag value safe to print on a terminal: no control characters, at most ``width`` long."""
    text = "".join(char if char.isprintable() else "?" for char in name)
    return text if len(text) <= width else text[: width - 1] + "…"
