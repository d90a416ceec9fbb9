"""``Result``: how a game ended, with the reason in words a player understands."""

from __future__ import annotations

from dataclasses import dataclass

from kingme.rules.board import Color

#: Reasons a game ends, checked in this order after each whole turn (resignation and agreement
#: come from the players, not from the position).
REASONS = ("no-pieces", "blocked", "repetition", "no-progress", "resignation", "agreement")

_EXPLANATIONS = {
    "no-pieces": "{loser} has no pieces left.",
    "blocked": "{loser} has pieces left but none of them can move.",
    "repetition": "The same position occurred for the third time with the same side to move.",
    "no-progress": "40 moves each (80 turns in a row) passed without a capture or a man moving.",
    "resignation": "{loser} resigned.",
    "agreement": "The players agreed to a draw.",
}


@dataclass(frozen=True)
class Result:
    """``winner`` is ``"black"``, ``"white"`` or ``None`` for a draw; ``reason`` one of ``REASONS``."""

    winner: Color | None
    reason: str

    @property
    def loser(self) -> Color | None:
        if self.winner is None:
            return None
        return "white" if self.winner == "black" else "black"

    @property
    def pdn(self) -> str:
        """The PDN result token: ``1-0`` when Black wins, ``0-1`` when White wins, ``1/2-1/2``."""
        return {"black": "1-0", "white": "0-1", None: "1/2-1/2"}[self.winner]

    def explanation(self, names: dict[str, str] | None = None) -> str:
        """The reason in words, with colour names from ``names`` (default Black/White).

        >>> Result("white", "blocked").explanation({"black": "Red", "white": "White"})
        'Red has pieces left but none of them can move.'
        """
        names = names or {"black": "Black", "white": "White"}
        loser = names.get(self.loser, "") if self.loser else ""
        return _EXPLANATIONS[self.reason].format(loser=loser)

    def to_dict(self) -> dict[str, str | None]:
        return {"winner": self.winner, "reason": self.reason, "explanation": self.explanation()}
