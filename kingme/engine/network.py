"""The evaluation network, compiled: how good a quiet position is for the side to move.

A small neural network reads the whole board at once, where the learned table of
``evaluation.py`` sums features of a few squares each (two rows at most): it sees a formation
together with what stands anywhere else, which is what the table could not express however it
was refitted (see the README's *Strength*).

Inputs (``INPUTS`` = 128): the side to move's men, its kings, the opponent's men and its kings,
one input a square each, the board turned 180 degrees when White is to move (square ``i`` ↔
``31 - i``, ``bitops.turned``), so one network serves both colours and the turn is implicit.
Layers: ``INPUTS`` → ``HIDDEN`` (clipped ReLU) → ``SECOND`` (clipped ReLU) → 1, the logit of the
side to move's expected result, times ``scale`` hundredths of a man a logit: the unit the search,
its margins and the levels' noise are written in.

Integer arithmetic in floats. The weights are whole numbers (``kingme tune net`` rounds them:
inputs' weights in ``ONE``-ths, the other layers' in ``WEIGHT_ONE``-ths) and the activations
whole numbers from 0 to ``ONE``, so every product and every partial sum is a whole number. The
loader refuses a file in which any neuron's sum could reach ``EXACT`` (2**24), below which a
float32 holds every whole number exactly: the compiler may then add in any order (it vectorises
the sums, ``fastmath`` reassociation) and the score is still the same on every machine, so the
computer's moves stay a pure function of the game.

The network needs ``HIDDEN`` floats of scratch; numba would allocate them on every call, so the
search lends a slice of its work array (``scratch``, int64 words viewed as float32).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numba import njit

from kingme.engine.bitops import lowest_index, turned

#: The package's network (``kingme tune net`` writes it).
NETWORK_FILE = "data/network.json"
#: One input per square for each of: own men, own kings, opponent's men, opponent's kings.
INPUTS = 4 * 32
#: The activation 1.0 of a clipped ReLU, and the first layer's weight unit.
ONE = 127
#: The weight unit of the second and third layers: their products are in ``ONE * WEIGHT_ONE``-ths.
WEIGHT_ONE = 256
#: float32 holds every whole number below this exactly.
EXACT = 1 << 24
#: Scratch words (int64) the search lends the network: room for the widest first layer allowed.
SCRATCH_WORDS = 256


@dataclass(frozen=True)
class Network:
    """A network's whole-number weights as float32 arrays: ``first`` (INPUTS, hidden),
    ``first_bias`` (hidden), ``second`` (second, hidden: one row a neuron, so its sum reads
    contiguous memory), ``second_bias`` (second), ``output`` (second), ``output_bias`` and
    ``scale`` (hundredths of a man a logit)."""

    first: np.ndarray
    first_bias: np.ndarray
    second: np.ndarray
    second_bias: np.ndarray
    output: np.ndarray
    output_bias: float
    scale: float


def _matrix(value: object, rows: int, columns: int | None, name: str) -> np.ndarray:
    array = np.array(value, dtype=np.float64)
    shape = (rows,) if columns is None else (rows, columns)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, expected {shape}")
    if not np.all(np.isfinite(array)) or np.any(array != np.rint(array)):
        raise ValueError(f"{name} holds a number that is not a whole number")
    return array


def read_network(text: str, source: str) -> Network:
    """A network file's weights, checked: shapes that fit each other, whole numbers, and sums
    that float32 computes exactly (see the module's docstring). ``source`` names the file in
    the ``ValueError`` a malformed one raises."""
    try:
        data = json.loads(text)
        hidden = len(data["first_bias"])
        second = len(data["second_bias"])
        if not 1 <= hidden <= 2 * SCRATCH_WORDS or not 1 <= second <= 256:
            raise ValueError(f"layers of {hidden} and {second} neurons; at most {2 * SCRATCH_WORDS} and 256")
        first = _matrix(data["first"], INPUTS, hidden, "first")
        first_bias = _matrix(data["first_bias"], hidden, None, "first_bias")
        second_layer = _matrix(data["second"], second, hidden, "second")
        second_bias = _matrix(data["second_bias"], second, None, "second_bias")
        output = _matrix(data["output"], second, None, "output")
        output_bias = _matrix([data["output_bias"]], 1, None, "output_bias")[0]
        scale = float(data["scale"])
        if not 1.0 <= scale <= 10_000.0:
            raise ValueError(f"scale {scale} is not between 1 and 10,000 hundredths a logit")
        # The largest sum each neuron can reach: its bias and every weight at the extreme
        # activation (a board has at most 24 pieces, so the first layer adds at most 24 rows).
        reach_first = np.abs(first_bias) + np.sort(np.abs(first), axis=0)[-24:].sum(axis=0)
        reach_second = np.abs(second_bias) + ONE * np.abs(second_layer).sum(axis=1)
        reach_output = abs(output_bias) + ONE * np.abs(output).sum()
        if max(reach_first.max(), reach_second.max(), reach_output) >= EXACT:
            raise ValueError("weights so large that float32 could round a sum")
    except KeyError as error:
        raise ValueError(f"{source} is not a network file: it has no {error}") from None
    except (ValueError, TypeError) as error:
        raise ValueError(f"{source} is not a network file: {error}") from None
    as32 = np.float32
    return Network(
        first.astype(as32),
        first_bias.astype(as32),
        second_layer.astype(as32),
        second_bias.astype(as32),
        output.astype(as32),
        float(output_bias),
        scale,
    )


def _load() -> Network:
    """The package's network (``NETWORK_FILE``), which the search uses."""
    return read_network(resources.files("kingme.engine").joinpath(NETWORK_FILE).read_text(), NETWORK_FILE)


_NETWORK = _load()
# Compiled in as constants (so the file is part of the numba cache key, as the weights table is).
FIRST, FIRST_BIAS = _NETWORK.first, _NETWORK.first_bias
SECOND, SECOND_BIAS = _NETWORK.second, _NETWORK.second_bias
OUTPUT, OUTPUT_BIAS = _NETWORK.output, np.float32(_NETWORK.output_bias)
HIDDEN, SECOND_SIZE = FIRST.shape[1], SECOND.shape[0]
#: Hundredths of a man per unit of the output sum: the scale over the output's unit.
OUTPUT_TO_HUNDREDTHS = _NETWORK.scale / (ONE * WEIGHT_ONE)

#: Reassociation is what lets the sums be vectorised; they are exact, so it changes nothing.
_EXACT_MATH = {"reassoc", "nsz", "contract"}


@njit(cache=True, fastmath=_EXACT_MATH, boundscheck=False)
def network_score(own: int, opp: int, kings: int, black: bool, scratch: np.ndarray) -> int:
    """The network's value of the position for the side to move (``own``), in hundredths of a
    man, rounded towards minus infinity; ``scratch`` holds at least ``HIDDEN`` float32."""
    if not black:
        own, opp, kings = turned(own), turned(opp), turned(kings)
    hidden = scratch
    for j in range(HIDDEN):
        hidden[j] = FIRST_BIAS[j]
    for plane in range(4):
        if plane == 0:
            bits = own & ~kings
        elif plane == 1:
            bits = own & kings
        elif plane == 2:
            bits = opp & ~kings
        else:
            bits = opp & kings
        while bits:
            row = FIRST[plane * 32 + lowest_index(bits)]
            bits &= bits - 1
            for j in range(HIDDEN):
                hidden[j] += row[j]
    for j in range(HIDDEN):
        hidden[j] = min(max(hidden[j], np.float32(0.0)), np.float32(ONE))
    total = OUTPUT_BIAS
    for k in range(SECOND_SIZE):
        weights = SECOND[k]
        neuron = SECOND_BIAS[k]
        for j in range(HIDDEN):
            neuron += hidden[j] * weights[j]
        # Back to activation units: a division by a power of two, exact, then rounded down.
        activation = min(max(np.floor(neuron * np.float32(1.0 / WEIGHT_ONE)), np.float32(0.0)), np.float32(ONE))
        total += activation * OUTPUT[k]
    return int(np.floor(np.float64(total) * OUTPUT_TO_HUNDREDTHS))
