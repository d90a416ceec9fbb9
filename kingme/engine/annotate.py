"""Where a game was lost: every position of a game judged by an engine, and each move's cost.

A *judge* is any program speaking the kingme engine protocol (docs/engine-protocol.md) — kingme's
own ``kingme engine`` by default, or another engine such as the one a match was played against.
It searches the position before every move with the same budget and reports its score for the
side to move and the move it prefers. A move's value to its mover is minus the judge's score of
the position it leads to, so what a move *cost* is the judge's score before it less that value,
counted only when the judge preferred another move (the same move scored twice differs only by
the search's horizon). The issue that asked for a stronger master measured its games this way:
no single move lost a man, but many cost 0.4 to 0.9 of one.

A position with one legal move is not searched by kingme's protocol (it answers the move without
a score); its score is then minus the score of the position after that forced move, so a move
that walks into a forced capture is still charged with what the capture costs.

Nothing here knows the rules beyond ``Game``: the judge is a ``Callable[[Game], Judgement]``,
so a test can give scores by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kingme.game import Game
from kingme.rules import Move
from kingme.rules.pdn import PdnGame


@dataclass(frozen=True)
class Judgement:
    """The judge's view of a position: the move it prefers and its score for the side to move
    (hundredths of a man), ``None`` when it gave none (a forced move)."""

    best: Move
    score: int | None


#: Judges a position (a game not over): the judge's preferred move and score.
Judge = Callable[[Game], Judgement]

#: Scores beyond this many hundredths of a man (ten men) are wins found by the judge (kingme's
#: win scores are tens of thousands): they are taken as this much, so that a move throwing a win
#: away costs ten men and not three hundred, and the comment says who wins.
DECIDED = 1000


@dataclass(frozen=True)
class Verdict:
    """One move of a game as the judge saw it: ``ply`` (0 for the first move), the ``mover``'s
    colour, the move ``played``, the judge's ``best`` move and ``score`` of the position before
    it, and the played move's ``value`` to its mover (minus the judge's score of the next
    position); a score or value the judge could not give (the game ended) is ``None``."""

    ply: int
    mover: str
    played: Move
    best: Move
    score: int | None
    value: int | None

    @property
    def cost(self) -> int:
        """What the move lost by the judge's scores, 0 when it is the judge's own choice or a
        score is missing."""
        if self.played == self.best or self.score is None or self.value is None:
            return 0
        return max(0, _clipped(self.score) - _clipped(self.value))


def _clipped(score: int) -> int:
    return max(-DECIDED, min(DECIDED, score))


def judge_game(game: Game, judge: Judge) -> list[Verdict]:
    """Every move of ``game`` judged: the position before each move searched by ``judge``.

    >>> from kingme.game import Setup
    >>> played = Game(Setup(), ["11-15", "23-19"])
    >>> scores = iter([10, -40, 60])  # before 11-15, before 23-19, after both
    >>> def judge(game):
    ...     return Judgement(game.board.parse_move("9-13" if game.turn == "black" else "22-18"), next(scores))
    >>> [(v.played.notation, v.score, v.value, v.cost) for v in judge_game(played, judge)]
    [('11-15', 10, 40, 0), ('23-19', -40, -60, 20)]
    """
    replay = Game(game.setup)
    seen: list[tuple[str, Judgement, bool]] = []  # mover, judgement, whether the move was forced
    for move in game.moves:
        seen.append((replay.turn, judge(replay), len(replay.legal_moves()) == 1))
        replay.push(move)
    after = judge(replay).score if not replay.is_over else None
    verdicts: list[Verdict] = []
    for ply in range(len(game.moves) - 1, -1, -1):  # backwards, so a forced move takes the next score
        mover, judgement, forced = seen[ply]
        value = None if after is None else -after
        score = value if judgement.score is None and forced else judgement.score
        verdicts.append(Verdict(ply, mover, game.moves[ply], judgement.best, score, value))
        after = score
    return verdicts[::-1]


def annotated(pdn: PdnGame, verdicts: list[Verdict], threshold: int, skip: int = 0) -> PdnGame:
    """``pdn`` with a comment after each move: the judge's score of the position it leads to,
    from Black's side (``+0.35``: Black stands better by a third of a man; ``White wins`` past
    ``DECIDED``), and, after a move that cost at least ``threshold`` (after the first ``skip``
    plies, which were not the players' choice), the judge's move and what the played one lost."""
    comments = list(pdn.comments)
    for verdict in verdicts:
        words = []
        if verdict.value is not None:
            black = verdict.value if verdict.mover == "black" else -verdict.value
            winner = "Black" if black > 0 else "White"
            words.append(f"{winner} wins" if abs(black) >= DECIDED else f"{black / 100:+.2f}")
        if verdict.ply >= skip and verdict.cost >= threshold:
            words.append(f"lost {verdict.cost / 100:.2f}, best {verdict.best.notation}")
        if words:
            comments.append((verdict.ply + 1, "; ".join(words)))
    return PdnGame(tags=dict(pdn.tags), moves=list(pdn.moves), result=pdn.result, comments=comments)


def engine_judge(command: str, nodes: int | None) -> Judge:
    """A judge that asks the protocol engine run by ``command`` to search ``nodes`` nodes (its
    own default when ``None``) in each position."""
    from kingme.engine.match import ExternalEngine

    engine = ExternalEngine.of(command)

    def judge(game: Game) -> Judgement:
        return Judgement(*engine.search(game, nodes))

    return judge
