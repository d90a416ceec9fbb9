"""``Setup``: what a game starts from — rules variant, start position and replay seed.

A game is its setup plus its moves; everything else is derived. The seed does not change the
rules: it only makes the computer's choices repeatable.
"""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules.errors import FenError, KingmeError
from kingme.rules.fen import START_FEN, format_fen, parse_fen
from kingme.rules.variants import get_variant

#: Seed 000's 'Practice · double jump': a black man on 9, white men on 14 and 23, Black to move.
DOUBLE_JUMP_FEN = "B:W14,23:B9"
DEFAULT_SEED = "checkers-1"
MAX_SEED_LENGTH = 96

#: Named start positions, as the front end offers them.
POSITIONS = {"standard": START_FEN, "double-jump": DOUBLE_JUMP_FEN}


class SetupError(KingmeError):
    """A setup that cannot start a game (bad seed, unknown position name)."""


def clean_seed(seed: object) -> str:
    """The seed with surrounding spaces removed; it must keep 1 to 96 characters.

    >>> clean_seed("  checkers-1 ")
    'checkers-1'
    """
    if not isinstance(seed, str):
        raise SetupError("the replay seed must be text")
    cleaned = seed.strip()
    if not 1 <= len(cleaned) <= MAX_SEED_LENGTH:
        raise SetupError(f"the replay seed must have 1 to {MAX_SEED_LENGTH} characters after trimming spaces")
    return cleaned


@dataclass(frozen=True)
class Setup:
    """Variant, start position (FEN, normalised) and seed of a game.

    >>> Setup.named("double-jump").fen
    'B:W14,23:B9'
    """

    variant: str = "american"
    fen: str = START_FEN
    seed: str = DEFAULT_SEED

    def __post_init__(self) -> None:
        get_variant(self.variant)
        object.__setattr__(self, "fen", format_fen(parse_fen(self.fen)))
        object.__setattr__(self, "seed", clean_seed(self.seed))

    @classmethod
    def named(cls, position: str, variant: str = "american", seed: str = DEFAULT_SEED) -> Setup:
        """A setup for one of the named positions in ``POSITIONS``."""
        if not isinstance(position, str) or position not in POSITIONS:
            raise SetupError(f"unknown position {position!r}; choose one of: {', '.join(POSITIONS)}")
        return cls(variant, POSITIONS[position], seed)

    @property
    def is_standard(self) -> bool:
        """True for the standard start position (only those games count in the totals)."""
        return self.fen == START_FEN

    def to_dict(self) -> dict[str, str]:
        return {"variant": self.variant, "fen": self.fen, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: object) -> Setup:
        """Read a setup sent from outside; missing keys take their defaults."""
        if not isinstance(data, dict):
            raise SetupError("the setup must be an object with variant, fen and seed")
        unknown = set(data) - {"variant", "fen", "seed", "position"}
        if unknown:
            raise SetupError(f"unknown setup field(s): {', '.join(sorted(map(str, unknown)))}")
        if "position" in data:
            if "fen" in data:
                raise SetupError("give either a named position or a FEN, not both")
            return cls.named(data["position"], data.get("variant", "american"), data.get("seed", DEFAULT_SEED))
        fen = data.get("fen", START_FEN)
        if not isinstance(fen, str):
            raise FenError("the setup's fen must be text")
        return cls(data.get("variant", "american"), fen, data.get("seed", DEFAULT_SEED))
