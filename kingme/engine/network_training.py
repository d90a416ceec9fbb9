"""Training the evaluation network on engine games (``kingme tune net``).

The data are ``kingme tune selfplay``'s games (``kingme.engine.selfplay``). Each quiet position
(no capture for the side to move: where the search asks the evaluation) becomes the network's
128 inputs, seen from the side to move (``network.py``), and a label: its TD(lambda) return.
Each searched position's score is turned into an expected result, ``sigmoid(score / s)`` with
``s`` the scale that best predicts the games' results from the scores
(``search_scale``); a position's label is then ``(1 - TD)`` of its own expected result
plus ``TD`` of the next position's label, and the last position's is the game's result. With
``TD`` 0 the network would learn to see at a glance what a search of the self-play budget sees,
as the learned table did; with ``TD`` 0.9 it also learns from what the searches of the
following moves found, a dozen plies further on, so from what the game showed beyond the horizon
of the search that scored the position.

The training is plain mini-batch gradient descent with Adam on the cross-entropy, in numpy:
``EPOCHS`` passes over the positions in a random order drawn from ``SEED``, the step size held
for the first half and cut by ``DECAY`` after each later pass. Every ``HOLD_OUT``-th batch
of games is held out and its loss printed after each pass, so over-fitting shows. The float
weights are then rounded to the whole numbers ``network.py`` computes with (its units ``ONE`` and
``WEIGHT_ONE``), and written with the scale, so a score is in the search's hundredths of a man.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from kingme.engine import network
from kingme.engine.bitops import turned
from kingme.engine.egdb.database import Tables
from kingme.engine.egdb.probe import DRAW, UNKNOWN, is_win, probe
from kingme.engine.movegen import capturers
from kingme.engine.relabel import Quiet
from kingme.engine.search import DECIDED_BOUND
from kingme.engine.selfplay import read_batches, split_games

#: One batch of games in ``HOLD_OUT`` is held out to measure the fit.
HOLD_OUT = 10
#: Search scores beyond this (hundredths of a man) are wins or losses found by the search (mate
#: and endgame-database scores are thousands): they are taken as this much, already certain.
SCORE_CLIP = 1000
#: Neurons of the first and second layers. 128 and 32 held out 0.60170 on 4,000-odd games where
#: 256 and 32 held out 0.60147 at more than twice the cost a position, and 64 and 32 0.60215.
HIDDEN = 128
SECOND = 32
#: Passes over the training positions, positions a step, Adam's step size and its cut per pass
#: in the second half of the passes.
EPOCHS = 12
BATCH = 1024
LEARNING_RATE = 1e-3
DECAY = 0.7
#: The TD(lambda) of the labels: how much of a position's label is what the game's later
#: positions' searches (and in the end its result) say rather than its own search. 0 is the
#: search's score alone, 1 the result alone. (Measured: docs/engine.md, *The evaluation network*.)
TD = 0.9
#: The random draws (first weights, order of the positions): the same games give the same network.
SEED = 1
#: How much of the label of a position with a deep score (``kingme tune relabel``) is that
#: score's expected result, the rest its TD return.
DEEP_WEIGHT = 0.5
#: Positions a forward pass takes at once when only predicting (bounds the memory used).
CHUNK = 65536


@dataclass(frozen=True)
class Examples:
    """Quiet positions as network inputs (``(n, INPUTS)`` of 0 and 1) with their labels (the side
    to move's expected result) and its search scores (hundredths of a man, NaN where the move was
    forced and not searched)."""

    inputs: np.ndarray
    labels: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)


@njit(cache=True)
def _encode(
    black: np.ndarray, white: np.ndarray, kings: np.ndarray, to_move: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Inputs of every position, and which positions are quiet (the others' rows stay zero)."""
    n = black.shape[0]
    inputs = np.zeros((n, network.INPUTS), dtype=np.uint8)
    quiet = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        own, opp, king_bits = black[i], white[i], kings[i]
        if not to_move[i]:
            own, opp, king_bits = turned(white[i]), turned(black[i]), turned(kings[i])
        if capturers(own, opp, king_bits, True) != 0:
            continue
        quiet[i] = True
        planes = (own & ~king_bits, own & king_bits, opp & ~king_bits, opp & king_bits)
        for plane in range(4):
            for square in range(32):
                if planes[plane] >> square & 1:
                    inputs[i, plane * 32 + square] = 1
    return inputs, quiet


def expected_result(scores: np.ndarray, scale: float) -> np.ndarray:
    """The expected result from search scores: ``sigmoid(score / scale)``."""
    return _sigmoid(np.clip(scores, -SCORE_CLIP, SCORE_CLIP) / scale)


def search_scale(scores: np.ndarray, results: np.ndarray) -> float:
    """The hundredths of a man per logit that make the search's ``scores`` the best predictor of
    the games' ``results`` (least cross-entropy, by golden-section search on a log scale over
    10..2,000; NaN scores, of moves not searched, are left out).

    >>> scores = np.array([-300.0, -100.0, 0.0, 100.0, 300.0] * 20)
    >>> results = 1.0 / (1.0 + np.exp(-scores / 150.0))  # a population whose true scale is 150
    >>> round(search_scale(scores, results))
    150
    """
    known = ~np.isnan(scores)
    scores, results = scores[known], results[known]
    if len(scores) == 0:
        raise ValueError("no search scores recorded: play the games again with this version's kingme tune selfplay")
    low, high = math.log(10.0), math.log(2000.0)
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(60):  # each step keeps 62% of the range: 60 narrow it a trillionfold
        a, b = high - golden * (high - low), low + golden * (high - low)
        if cross_entropy(expected_result(scores, math.exp(a)), results) < cross_entropy(
            expected_result(scores, math.exp(b)), results
        ):
            high = b
        else:
            low = a
    return math.exp((low + high) / 2)


@njit(cache=True)
def _returns(
    expected: np.ndarray, searched: np.ndarray, results: np.ndarray, game: np.ndarray, td: float, exact: np.ndarray
) -> np.ndarray:
    """Each position's TD(``td``) return, worked backwards through its game from the result:
    ``(1 - td) * expected + td * (the next position's return)`` where the move was searched,
    the next position's return where it was forced. A position with an ``exact`` value (not NaN:
    the endgame tables know it) is its own return and starts the blend anew, as a game's end
    does: what the game did after it, perhaps a win thrown away, does not reach back past it."""
    n = expected.shape[0]
    returns = np.empty(n)
    following = 0.5
    for i in range(n - 1, -1, -1):
        if i == n - 1 or game[i] != game[i + 1]:
            following = results[i]
        if not np.isnan(exact[i]):
            following = exact[i]
        elif searched[i]:
            following = (1.0 - td) * expected[i] + td * following
        returns[i] = following
    return returns


@njit(cache=True)
def _exact_results(
    offsets: np.ndarray,
    values: np.ndarray,
    black: np.ndarray,
    white: np.ndarray,
    kings: np.ndarray,
    to_move: np.ndarray,
) -> np.ndarray:
    """Black's result with best play (1, 0.5 or 0) of each position the tables hold, NaN for
    the others. The distance to conversion is not checked against the 80-ply count, which the
    records do not keep: a long win counted from a count already under way is taken as a win."""
    n = black.shape[0]
    exact = np.full(n, np.nan)
    for i in range(n):
        value = probe(offsets, values, black[i], white[i], kings[i], to_move[i])
        if value == UNKNOWN:
            continue
        own = 0.5 if value == DRAW else (1.0 if is_win(value) else 0.0)
        exact[i] = own if to_move[i] else 1.0 - own
    return exact


class Labelled(NamedTuple):
    """What ``read_examples`` read: the training and held-out positions, the scale (hundredths
    of a man a logit) that turned the self-play searches' scores into expected results, and the
    one that turned the deep scores into theirs (NaN without deep scores)."""

    train: Examples
    held_out: Examples
    scale: float
    deep_scale: float


def _decided(deep_scores: np.ndarray) -> np.ndarray:
    """Which of ``deep_scores`` the search proved (beyond ``DECIDED_BOUND``; NaN is not)."""
    decided: np.ndarray = np.abs(np.nan_to_num(deep_scores)) >= DECIDED_BOUND
    return decided


def read_examples(
    paths: list[Path],
    td: float = TD,
    tables: Tables | None = None,
    deep: Mapping[Quiet, int] | None = None,
    deep_weight: float = DEEP_WEIGHT,
) -> Labelled:
    """The training and held-out positions of the self-play files, labelled by their TD(``td``)
    returns, with the scale that predicts the training games' results best from the search's
    scores (``search_scale``). With ``tables``, every position they hold is labelled by its exact
    result and ends its game's blend (see ``_returns``): self-play runs without tables and does not
    always convert a won ending. With ``deep`` (Black's scores of positions by deeper searches,
    ``relabel.read_scores``), a position it holds is labelled ``deep_weight`` of the deep score's
    expected result (at the scale fitted to the games' results the same way; 1 or 0 for a score
    the search proved) and the rest its TD return; only its own label changes, the blend of the
    positions before it does not, and a position the tables hold keeps its exact result."""
    sets: list[list[tuple[int, int, int, bool, float, float, int, float]]] = [[], []]
    game = 0
    for batch, positions in read_batches(paths):
        target = sets[1 if batch % HOLD_OUT == HOLD_OUT - 1 else 0]
        for played in split_games(positions):
            game += 1
            for p in played:
                score = math.nan if p.score is None else p.score
                key = (p.black, p.white, p.kings, p.black_to_move)
                deep_score = math.nan if deep is None else deep.get(key, math.nan)
                target.append((p.black, p.white, p.kings, p.black_to_move, p.result, score, game, deep_score))
    columns = [list(zip(*rows, strict=True)) if rows else [()] * 8 for rows in sets]
    # Black's scores and results, as the files hold them.
    scores = [np.array(c[5], dtype=np.float64) for c in columns]
    results = [np.array(c[4], dtype=np.float64) for c in columns]
    deep_scores = [np.array(c[7], dtype=np.float64) for c in columns]
    scale = search_scale(scores[0], results[0])
    if deep is not None and np.isnan(deep_scores[0]).all():
        raise ValueError("no training position has a deep score: they were searched for other games")
    # A decided deep score (a win proven through the tables or to the end) is its result, not
    # evidence for the scale.
    deep_scale = math.nan
    if deep is not None:
        deep_scale = search_scale(np.where(_decided(deep_scores[0]), np.nan, deep_scores[0]), results[0])
    out = []
    for c, black_scores, black_results, black_deep in zip(columns, scores, results, deep_scores, strict=True):
        black, white, kings = (np.array(c[i], dtype=np.int64) for i in range(3))
        to_move = np.array(c[3], dtype=np.bool_)
        expected = expected_result(np.nan_to_num(black_scores), scale)
        exact = (
            np.full(len(black), np.nan)
            if tables is None
            else _exact_results(tables.offsets, tables.values, black, white, kings, to_move)
        )
        games = np.array(c[6], dtype=np.int64)
        returns = _returns(expected, ~np.isnan(black_scores), black_results, games, td, exact)
        if deep is not None:
            deep_expected = np.where(
                _decided(black_deep), black_deep > 0, expected_result(np.nan_to_num(black_deep), deep_scale)
            )
            deeper = deep_weight * deep_expected + (1 - deep_weight) * returns
            returns = np.where(np.isnan(black_deep) | ~np.isnan(exact), returns, deeper)
        inputs, quiet = _encode(black, white, kings, to_move)
        # Turned to the side to move's view.
        black_moves = to_move[quiet]
        labels = np.where(black_moves, returns[quiet], 1.0 - returns[quiet])
        own_scores = np.where(black_moves, black_scores[quiet], -black_scores[quiet])
        out.append(Examples(inputs[quiet], labels, own_scores))
    return Labelled(out[0], out[1], scale, deep_scale)


@dataclass
class Weights:
    """A network's float weights, as trained: ``first`` (INPUTS, HIDDEN), ``second`` (HIDDEN,
    SECOND), ``output`` (SECOND, 1), each with its biases."""

    first: np.ndarray
    first_bias: np.ndarray
    second: np.ndarray
    second_bias: np.ndarray
    output: np.ndarray
    output_bias: np.ndarray

    def arrays(self) -> list[np.ndarray]:
        return [self.first, self.first_bias, self.second, self.second_bias, self.output, self.output_bias]

    @classmethod
    def initial(cls, rng: np.random.Generator, hidden: int = HIDDEN, second: int = SECOND) -> Weights:
        """He-initialised weights (suited to ReLU layers), zero biases."""

        def layer(inputs: int, outputs: int) -> np.ndarray:
            return rng.normal(0.0, math.sqrt(2.0 / inputs), (inputs, outputs)).astype(np.float32)

        zeros = np.zeros
        return cls(
            layer(network.INPUTS, hidden),
            zeros(hidden, np.float32),
            layer(hidden, second),
            zeros(second, np.float32),
            layer(second, 1),
            zeros(1, np.float32),
        )

    @classmethod
    def of_network(cls, net: network.Network) -> Weights:
        """A network file's whole-number weights back in float units (``quantised``'s inverse):
        a start for training that keeps what the network knows."""
        one, weight_one = network.ONE, network.WEIGHT_ONE

        def real(array: np.ndarray, unit: float) -> np.ndarray:
            return (array / unit).astype(np.float32)

        return cls(
            real(net.first, one),
            real(net.first_bias, one),
            real(net.second.T, weight_one),
            real(net.second_bias, one * weight_one),
            real(net.output[:, None], weight_one),
            real(np.array([net.output_bias]), one * weight_one),
        )

    def forward(self, inputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Both layers' activations (clipped ReLU, 0 to 1, as ``network.py`` computes them) and
        the output logits."""
        first = np.clip(inputs @ self.first + self.first_bias, 0.0, 1.0)
        second = np.clip(first @ self.second + self.second_bias, 0.0, 1.0)
        return first, second, (second @ self.output + self.output_bias)[:, 0]

    def predict(self, inputs: np.ndarray) -> np.ndarray:
        """The expected result of each position (uint8 inputs), a chunk at a time."""
        logits = [self.forward(inputs[i : i + CHUNK].astype(np.float32))[2] for i in range(0, len(inputs), CHUNK)]
        return _sigmoid(np.concatenate(logits)) if logits else np.zeros(0)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    result: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return result


def cross_entropy(predicted: np.ndarray, labels: np.ndarray) -> float:
    """The mean cross-entropy of predicted expected results against the labels."""
    p = np.clip(predicted, 1e-7, 1 - 1e-7)
    return float(-(labels * np.log(p) + (1 - labels) * np.log(1 - p)).mean())


def _gradients(weights: Weights, inputs: np.ndarray, labels: np.ndarray) -> list[np.ndarray]:
    """The gradient of the mean cross-entropy by each of ``weights.arrays()``."""
    first, second, logits = weights.forward(inputs)
    delta = ((_sigmoid(logits) - labels) / len(labels)).astype(np.float32)[:, None]
    output, output_bias = second.T @ delta, delta.sum(axis=0)
    # A clipped ReLU passes the gradient only where it is not clipped.
    delta = (delta @ weights.output.T) * ((second > 0) & (second < 1))
    second_grad, second_bias = first.T @ delta, delta.sum(axis=0)
    delta = (delta @ weights.second.T) * ((first > 0) & (first < 1))
    first_grad, first_bias = inputs.T @ delta, delta.sum(axis=0)
    return [first_grad, first_bias, second_grad, second_bias, output, output_bias]


def train(
    examples: Examples,
    held_out: Examples,
    epochs: int = EPOCHS,
    progress: Callable[[str], None] | None = None,
    hidden: int = HIDDEN,
    batch: int = BATCH,
    second: int = SECOND,
    start: Weights | None = None,
) -> tuple[Weights, float]:
    """Adam over ``epochs`` passes of ``batch`` positions a step, with layers of ``hidden`` and
    ``second`` neurons, from random weights or from ``start`` (whose widths then hold); the
    weights and their final held-out loss."""
    rng = np.random.default_rng(SEED)
    weights = Weights.initial(rng, hidden, second) if start is None else copy.deepcopy(start)
    params = weights.arrays()
    first_moment = [np.zeros_like(p) for p in params]
    second_moment = [np.zeros_like(p) for p in params]
    beta1, beta2, step, rate = 0.9, 0.999, 0, LEARNING_RATE
    held = math.nan
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(examples))
        for first in range(0, len(order), batch):
            chosen = order[first : first + batch]
            grads = _gradients(weights, examples.inputs[chosen].astype(np.float32), examples.labels[chosen])
            step += 1
            for p, g, m, v in zip(params, grads, first_moment, second_moment, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                p -= rate * (m / (1 - beta1**step)) / (np.sqrt(v / (1 - beta2**step)) + 1e-8)
        if epoch > epochs // 2:
            rate *= DECAY
        held = cross_entropy(weights.predict(held_out.inputs), held_out.labels)
        if progress:
            progress(f"pass {epoch}/{epochs}: held-out loss {held:.5f}")
    return weights, held


def quantised(weights: Weights, scale: float, note: str) -> dict[str, object]:
    """The network file's contents: ``weights`` rounded to ``network.py``'s whole-number units."""
    one, weight_one = network.ONE, network.WEIGHT_ONE

    def whole(array: np.ndarray, unit: float) -> list[object]:
        rounded: list[object] = np.rint(array.astype(np.float64) * unit).astype(np.int64).tolist()
        return rounded

    return {
        "note": note,
        "scale": scale,
        "first": whole(weights.first, one),
        "first_bias": whole(weights.first_bias, one),
        "second": whole(weights.second.T, weight_one),
        "second_bias": whole(weights.second_bias, one * weight_one),
        "output": whole(weights.output[:, 0], weight_one),
        "output_bias": int(np.rint(float(weights.output_bias[0]) * one * weight_one)),
    }


def network_text(contents: dict[str, object], source: str) -> str:
    """A network file's text, one layer a line, once ``network.py`` has read it back (a
    ``ValueError`` naming ``source`` if it would not)."""
    text = json.dumps(contents, separators=(",", ":"))
    network.read_network(text, source)
    return text.replace(',"', ',\n"') + "\n"
