"""Fitting the evaluation's weights to engine games and their search scores (``kingme tune fit``).

The method is logistic regression ("Texel tuning"), as Cake's and Kingsrow's learned
evaluations were made: a position's features (``evaluation.evaluate_black`` records them), each
split into an opening and an ending part by the number of pieces left, predict the result of
the game it came from (Black's score: 1, ½ or 0) through ``sigmoid(weights · features)``. The
weights minimise the cross-entropy plus an L2 penalty that keeps rare patterns near zero.

Only quiet positions are used (the side to move has no capture): those are where the search
calls the evaluation. Positions of every tenth batch of games are held out, and the fit reports
the held-out loss, so over-fitting shows. The fitted weights are in logits; they are scaled so
that a man is worth 100 in the middlegame (``man_value``; what the search and the levels' noise
expect) and written to ``data/evaluation_weights.json``.

The shipped table is fitted to a second label instead (``search_weight`` 1, what ``kingme
tune fit`` does by default): the score the self-play search gave the position, turned into an
expected result by the logistic curve that best predicts the games' results from those scores
(``search_scale``). Results of games between equal engines are mostly draws, and more so at a
few thousand nodes a move without endgame tables, where won endings are often not converted (a
position the search scores three men up scores about 0.6 in its games, and 83% of the positions
come from drawn games); they say little about the position itself. The search's score says how
it stands a dozen plies deeper, so the evaluation learns to see at a glance what the search
would find — as Stockfish's evaluation networks are trained on search scores. Fitted to the
scores of 4,000 games at 10,000 nodes, the table beat the one fitted to results, and refitted to
4,000 games at 20,000 nodes it beat that one in turn, and refitted to 16,000 games of the engine
that table made (``kingme tune selfplay``'s defaults now) it beat that one again (see the
README's *Strength*).

Data: ``kingme.engine.selfplay`` (``kingme tune selfplay``).
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from kingme.engine import evaluation as ev
from kingme.engine.bitops import popcount
from kingme.engine.movegen import capturers
from kingme.engine.selfplay import read_batches

#: L2 penalty per weight (in logits², against the mean loss per position), chosen on the held-out
#: set. On 16,000 self-play games at 20,000 nodes (1.33 million quiet positions; the label
#: entropy, the floor, is 0.60240): 2e-5 held out 0.60943, 1e-5 0.60935, 5e-6 0.60928. On 4,000
#: games, 2e-5 had been best (5e-4 0.61275, 1e-4 0.61254, 2e-5 0.61244): the more games, the more
#: a band's 6,561 rare patterns can be trusted, and the lighter the penalty that suits them.
L2 = 5e-6
#: Adam's step size and number of full passes over the data.
LEARNING_RATE = 0.02
EPOCHS = 400
#: One batch of games in ``HOLD_OUT`` is held out to measure the fit.
HOLD_OUT = 10
#: A man's value, the unit of the scaled weights, is measured over the positions with at least
#: this many pieces: the middlegame, where the search spends most of its evaluations.
MAN_VALUE_PIECES = 16
#: Fewer such positions than this (a small test set) and the slope is taken over every position:
#: a thousand points pin a straight line's slope well enough.
MAN_VALUE_POSITIONS = 1000


@dataclass(frozen=True)
class Dataset:
    """Sparse features (CSR rows over ``2 * FEATURE_COUNT`` columns: opening then ending part),
    the labels (Black's expected result: the game's, or mixed with the search's by
    ``with_search_labels``), the pieces on the board in each position and the self-play
    search's score for Black (NaN where none was recorded)."""

    indptr: np.ndarray
    indices: np.ndarray
    values: np.ndarray
    labels: np.ndarray
    pieces: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)


@njit(cache=True)
def _quiet(black: int, white: int, kings: int, black_to_move: bool) -> bool:
    own, opp = (black, white) if black_to_move else (white, black)
    return capturers(own, opp, kings, black_to_move) == 0


@njit(cache=True)
def _rows(
    black: np.ndarray, white: np.ndarray, kings: np.ndarray, to_move: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n = black.shape[0]
    count = ev.FEATURE_COUNT
    record = np.zeros(count, dtype=np.float64)
    indptr = np.zeros(n + 1, dtype=np.int64)
    capacity = n * 200 + 1024
    indices = np.empty(capacity, dtype=np.int32)
    values = np.empty(capacity, dtype=np.float32)
    kept = np.zeros(n, dtype=np.bool_)
    at = 0
    for i in range(n):
        if not _quiet(black[i], white[i], kings[i], to_move[i]):
            indptr[i + 1] = at
            continue
        kept[i] = True
        ev.evaluate_black(black[i], white[i], kings[i], to_move[i], True, record)
        opening = min(popcount(black[i] | white[i]), ev.PHASE_PIECES) / ev.PHASE_PIECES
        # The table has tens of thousands of features and a position touches a few hundred:
        # find them in one pass that writes nothing (fast), then visit only those.
        touched = np.flatnonzero(record)
        if at + 2 * touched.shape[0] > capacity:
            capacity = 2 * capacity + 2 * touched.shape[0]
            indices = np.concatenate((indices, np.empty(capacity - indices.shape[0], dtype=np.int32)))
            values = np.concatenate((values, np.empty(capacity - values.shape[0], dtype=np.float32)))
        for j in touched:
            value = record[j]
            indices[at], values[at] = j, value * opening
            indices[at + 1], values[at + 1] = count + j, value * (1.0 - opening)
            at += 2
            record[j] = 0.0
        indptr[i + 1] = at
    return indptr, indices[:at], values[:at], kept


def build(paths: list[Path]) -> tuple[Dataset, Dataset]:
    """The training and held-out sets from the self-play files."""
    sets: list[tuple[list[int], list[int], list[int], list[bool], list[float], list[float]]] = [
        ([], [], [], [], [], []),
        ([], [], [], [], [], []),
    ]
    for batch, positions in read_batches(paths):
        target = sets[1 if batch % HOLD_OUT == HOLD_OUT - 1 else 0]
        for p in positions:
            target[0].append(p.black)
            target[1].append(p.white)
            target[2].append(p.kings)
            target[3].append(p.black_to_move)
            target[4].append(p.result)
            target[5].append(math.nan if p.score is None else p.score)
    out = []
    for black, white, kings, to_move, results, scores in sets:
        indptr, indices, values, kept = _rows(
            np.array(black, dtype=np.int64),
            np.array(white, dtype=np.int64),
            np.array(kings, dtype=np.int64),
            np.array(to_move, dtype=np.bool_),
        )
        labels = np.array(results, dtype=np.float64)
        pieces = np.array([(b | w).bit_count() for b, w in zip(black, white, strict=True)], dtype=np.int64)
        # Drop the rows of positions that were not quiet (they are empty).
        starts, ends = indptr[:-1][kept], indptr[1:][kept]
        lengths = ends - starts
        new_indptr = np.concatenate(([0], np.cumsum(lengths)))
        searched = np.array(scores, dtype=np.float64)[kept]
        out.append(Dataset(new_indptr, indices, values, labels[kept], pieces[kept], searched))
    return out[0], out[1]


#: Search scores beyond this (hundredths of a man) are wins or losses found by the search (mate
#: and endgame-database scores are thousands): they are taken as this much, already certain.
SCORE_CLIP = 1000


def _expected(scores: np.ndarray, scale: float) -> np.ndarray:
    """Black's expected result from the search's scores: ``sigmoid(score / scale)``."""
    expected: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(scores, -SCORE_CLIP, SCORE_CLIP) / scale))
    return expected


def search_scale(data: Dataset) -> float:
    """The hundredths of a man per logit that make the search's scores the best predictor of the
    games' results (least cross-entropy, by golden-section search over 10..2,000): what turns a
    score into an expected result for ``with_search_labels``.

    >>> import numpy as np
    >>> scores = np.array([-300.0, -100.0, 0.0, 100.0, 300.0] * 20)
    >>> results = 1.0 / (1.0 + np.exp(-scores / 150.0))  # a population whose true scale is 150
    >>> empty = np.zeros(0)
    >>> data = Dataset(np.zeros(101, dtype=np.int64), empty, empty, results, empty, scores)
    >>> round(search_scale(data))
    150
    """
    known = ~np.isnan(data.scores)
    scores, results = data.scores[known], data.labels[known]
    if len(scores) == 0:
        raise ValueError("no search scores recorded: play the games again with this version's kingme tune selfplay")

    def loss(scale: float) -> float:
        p = np.clip(_expected(scores, scale), 1e-12, 1 - 1e-12)
        return float(-(results * np.log(p) + (1 - results) * np.log(1 - p)).mean())

    return _log_minimum(loss, 10.0, 2000.0)


def _log_minimum(f: Callable[[float], float], low: float, high: float) -> float:
    """Where the one-dimensional ``f`` is least between ``low`` and ``high`` (both positive), by
    golden-section search on a log scale: 60 steps narrow the range a trillionfold."""
    a_end, b_end = math.log(low), math.log(high)
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = b_end - golden * (b_end - a_end), a_end + golden * (b_end - a_end)
        if f(math.exp(a)) < f(math.exp(b)):
            b_end = b
        else:
            a_end = a
    return math.exp((a_end + b_end) / 2)


def with_search_labels(data: Dataset, weight: float, scale: float) -> Dataset:
    """``data`` labelled ``weight * expected result from the search's score + (1 - weight) *
    the game's result``; positions without a score keep their game's result."""
    expected = _expected(np.nan_to_num(data.scores), scale)
    mixed = np.where(np.isnan(data.scores), data.labels, weight * expected + (1 - weight) * data.labels)
    return dataclasses.replace(data, labels=mixed)


@njit(cache=True)
def _logit(theta: np.ndarray, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, row: int) -> float:
    """The fitted score of one position, in logits."""
    score = 0.0
    for k in range(indptr[row], indptr[row + 1]):
        score += theta[indices[k]] * values[k]
    return score


@njit(cache=True)
def _gradient(
    theta: np.ndarray, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, float]:
    grad = np.zeros_like(theta)
    loss = 0.0
    n = labels.shape[0]
    for i in range(n):
        p = 1.0 / (1.0 + math.exp(-_logit(theta, indptr, indices, values, i)))
        y = labels[i]
        loss -= y * math.log(max(p, 1e-12)) + (1.0 - y) * math.log(max(1.0 - p, 1e-12))
        g = p - y
        for k in range(indptr[i], indptr[i + 1]):
            grad[indices[k]] += g * values[k]
    return grad / n, loss / n


@njit(cache=True)
def _logits_and_material(
    theta: np.ndarray, indptr: np.ndarray, indices: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each position's fitted score, and Black's lead in men and in kings (read back from the
    material features, whose opening and ending parts add up to the count)."""
    n = indptr.shape[0] - 1
    logits, men, kings = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        logits[i] = _logit(theta, indptr, indices, values, i)
        for k in range(indptr[i], indptr[i + 1]):
            feature = indices[k] % ev.FEATURE_COUNT
            if feature == ev.MAN_AT:
                men[i] += values[k]
            elif feature == ev.KING_AT:
                kings[i] += values[k]
    return logits, men, kings


def _penalised(theta: np.ndarray) -> np.ndarray:
    """Which weights the L2 penalty applies to: all but material."""
    mask = np.ones_like(theta)
    for at in (ev.MAN_AT, ev.KING_AT):
        mask[at] = mask[ev.FEATURE_COUNT + at] = 0.0
    return mask


def fit(
    train: Dataset,
    held_out: Dataset,
    epochs: int = EPOCHS,
    progress: Callable[[str], None] | None = None,
    l2: float = L2,
    prior: np.ndarray | None = None,
) -> tuple[np.ndarray, float, float]:
    """Adam on the full training set; the logit weights and the final training and held-out
    losses. The L2 penalty pulls the weights towards ``prior`` (logits: see
    ``logits_per_hundredth``), or towards zero without one, and the fit starts there."""
    centre = np.zeros(2 * ev.FEATURE_COUNT) if prior is None else prior.astype(np.float64)
    theta = centre.copy()
    mask = _penalised(theta)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    beta1, beta2 = 0.9, 0.999
    loss = held = math.nan
    for step in range(1, epochs + 1):
        grad, loss = _gradient(theta, train.indptr, train.indices, train.values, train.labels)
        grad += 2 * l2 * mask * (theta - centre)
        m = beta1 * m + (1 - beta1) * grad
        v = beta2 * v + (1 - beta2) * grad * grad
        theta -= LEARNING_RATE * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-9)
        if progress and (step % 25 == 0 or step == epochs):
            _, held = _gradient(theta, held_out.indptr, held_out.indices, held_out.values, held_out.labels)
            progress(f"epoch {step}/{epochs}: training loss {loss:.5f}, held-out loss {held:.5f}")
    _, held = _gradient(theta, held_out.indptr, held_out.indices, held_out.values, held_out.labels)
    return theta, loss, held


def logits_per_hundredth(table: np.ndarray, data: Dataset) -> float:
    """The factor (1e-4..1e-1) that turns a (FEATURE_COUNT, 2) table in hundredths of a man
    (``evaluation.read_weights``) into the logit weights that predict ``data``'s labels best:
    ``fit``'s ``prior`` is ``to_logits(table, factor)``, and a fit started there is written back in
    the table's own units by ``from_logits(theta, factor)``, so the search's scale stays what it was."""
    return _log_minimum(lambda factor: loss(to_logits(table, factor), data), 1e-4, 1e-1)


def loss(theta: np.ndarray, data: Dataset) -> float:
    """The mean cross-entropy of the weights ``theta`` (logits) on ``data``."""
    return float(_gradient(theta, data.indptr, data.indices, data.values, data.labels)[1])


def baseline_loss(data: Dataset) -> float:
    """The loss of always predicting the average result: what the features must beat."""
    mean = float(np.clip(data.labels.mean(), 1e-6, 1 - 1e-6))
    y = data.labels
    return float(-(y * math.log(mean) + (1 - y) * math.log(1 - mean)).mean())


def man_value(theta: np.ndarray, data: Dataset) -> float:
    """What a man is worth to the fitted score, in logits: the slope of the score against
    Black's lead in men over the positions of ``data`` with at least ``MAN_VALUE_PIECES``
    pieces, or over all of them when fewer than ``MAN_VALUE_POSITIONS`` have that many (a
    least-squares fit that also takes the lead in kings into account).

    Not the ``man`` weight itself: the windows count pieces too, so part of a man's value sits
    in their patterns, and the ``man`` weight alone can even come out negative."""
    logits, men, kings = _logits_and_material(theta, data.indptr, data.indices, data.values)
    crowded = data.pieces >= MAN_VALUE_PIECES
    if crowded.sum() < MAN_VALUE_POSITIONS:
        crowded[:] = True
    design = np.column_stack((men[crowded], kings[crowded], np.ones(int(crowded.sum()))))
    slope = float(np.linalg.lstsq(design, logits[crowded], rcond=None)[0][0])
    if slope <= 0:
        raise ValueError("the fitted score does not grow with a lead in men: too few games to fit")
    return slope


def to_hundredths(theta: np.ndarray, data: Dataset) -> np.ndarray:
    """The logit weights scaled so that a man is worth 100 (``man_value`` over ``data``); a
    (2, FEATURE_COUNT) int64 table."""
    return from_logits(theta, man_value(theta, data) / 100.0)


def from_logits(theta: np.ndarray, factor: float) -> np.ndarray:
    """The logit weights ``theta`` as a (2, FEATURE_COUNT) int64 table of ``factor`` logits a unit."""
    scaled: np.ndarray = np.rint(theta.reshape(2, ev.FEATURE_COUNT) / factor).astype(np.int64)
    return scaled


def to_logits(table: np.ndarray, factor: float) -> np.ndarray:
    """A (FEATURE_COUNT, 2) table (``evaluation.read_weights``) as logit weights, ``factor`` a unit."""
    logits: np.ndarray = table.T.reshape(-1) * factor
    return logits


def write_weights(table: np.ndarray, path: Path, note: str) -> None:
    """Write ``table`` as the named weights file ``evaluation.py`` loads."""
    weights = {
        name: {
            "opening": [int(x) for x in table[0, ev.OFFSET[name] : ev.OFFSET[name] + size]],
            "ending": [int(x) for x in table[1, ev.OFFSET[name] : ev.OFFSET[name] + size]],
        }
        for name, size in ev.FEATURES
    }
    text = json.dumps({"note": note, "weights": weights}, separators=(",", ":"))
    path.write_text(text.replace('},"', '},\n"') + "\n")
