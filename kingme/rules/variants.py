"""The rules variants kingme plays.

``american`` is American checkers / English draughts, the default everywhere. ``casual`` is the
variant of seed 002: captures are optional and a capture may stop after any jump; everything else
(men forward only, short kings, crowning ends the move, the draw rules) is the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules.errors import VariantError


@dataclass(frozen=True)
class Variant:
    """One set of rules. ``captures_compulsory`` is the only thing that differs between them."""

    name: str
    captures_compulsory: bool
    title: str


VARIANTS: dict[str, Variant] = {
    "american": Variant("american", True, "American checkers (captures compulsory)"),
    "casual": Variant("casual", False, "Casual (captures optional)"),
}


def get_variant(name: str) -> Variant:
    """The variant called ``name``.

    >>> get_variant("casual").captures_compulsory
    False
    """
    try:
        return VARIANTS[name]
    except (KeyError, TypeError):
        raise VariantError(f"unknown variant {name!r}; choose one of: {', '.join(VARIANTS)}") from None
