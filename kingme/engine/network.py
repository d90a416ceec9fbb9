"""The evaluation network, compiled: how good a quiet position is for the side to move.

A small neural network reads the whole board at once, where the learned table of
``evaluation.py`` sums features of a few squares each (two rows at most): it sees a formation
together with what stands anywhere else, which is what the table could not express however it
was refitted (see docs/engine.md).

Inputs (``INPUTS`` = 128): the side to move's men, its kings, the opponent's men and its kings,
one input a square each, the board turned 180 degrees when White is to move (square ``i`` ↔
``31 - i``, ``bitops.turned``), so one network serves both colours and the turn is implicit.
Layers: ``INPUTS`` → ``HIDDEN`` (clipped ReLU) → ``SECOND`` (clipped ReLU) → 1, the logit of the
side to move's expected result, times ``scale`` hundredths of a man a logit: the unit the search,
its margins and the levels' noise are written in.

Integer arithmetic. The weights are whole numbers (``kingme tune net`` rounds them: inputs'
weights in ``ONE``-ths, the other layers' in ``WEIGHT_ONE``-ths) and the activations whole numbers
from 0 to ``ONE``, so the score is computed exactly, the same on every machine, and the computer's
moves stay a pure function of the game. The first layer's sums and the second layer's weights
are 16-bit numbers, the second layer's sums 32-bit ones, computed by the vector code of
``network_simd``; the loader refuses a file whose numbers could leave those widths
(``read_network``). Each layer is padded to whole vectors with neurons that are always 0.

The network needs ``HIDDEN`` 16-bit numbers of scratch; numba would allocate them on every call,
so the search lends a slice of its work array (``scratch``, int64 words viewed as int16).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numba import njit

from kingme.engine import network_simd
from kingme.engine.bitops import turned

#: The package's network (``kingme tune net`` writes it).
NETWORK_FILE = "data/network.json"
#: One input per square for each of: own men, own kings, opponent's men and opponent's kings.
INPUTS = 4 * 32
#: The activation 1.0 of a clipped ReLU, and the first layer's weight unit.
ONE = 127
#: The weight unit of the second and third layers: their products are in ``ONE * WEIGHT_ONE``-ths
#: (a power of two: the second layer's sums come back to activation units by a shift).
WEIGHT_ONE = 256
#: The first layer's sums and the second layer's weights are 16-bit numbers: each below this.
LIMIT16 = 1 << 15
#: The second layer's sums are 32-bit numbers: each below this.
LIMIT32 = 1 << 31
#: Scratch words (int64) the search lends the network: room for the widest first layer allowed.
SCRATCH_WORDS = 128
#: The widest first layer: the 16-bit numbers the scratch words hold.
MOST_HIDDEN = 4 * SCRATCH_WORDS
#: The widest second layer a network file may have (a sanity bound: its cost grows with it).
MOST_SECOND = 256


@dataclass(frozen=True)
class Network:
    """A network's whole-number weights as int64 arrays: ``first`` (INPUTS, hidden),
    ``first_bias`` (hidden), ``second`` (second, hidden: one row a neuron, so its sum reads
    contiguous memory), ``second_bias`` (second), ``output`` (second), ``output_bias`` and
    ``scale`` (hundredths of a man a logit)."""

    first: np.ndarray
    first_bias: np.ndarray
    second: np.ndarray
    second_bias: np.ndarray
    output: np.ndarray
    output_bias: int
    scale: float


def _matrix(value: object, rows: int, columns: int | None, name: str) -> np.ndarray:
    array = np.array(value, dtype=np.float64)
    shape = (rows,) if columns is None else (rows, columns)
    if array.shape != shape:
        raise ValueError(f"{name} has shape {array.shape}, expected {shape}")
    if not np.all(np.isfinite(array)) or np.any(array != np.rint(array)):
        raise ValueError(f"{name} holds a number that is not a whole number")
    if np.any(np.abs(array) >= LIMIT32):
        raise ValueError(f"{name} holds a number too large for 32 bits")
    return array.astype(np.int64)


def check_widths(hidden: int, second: int) -> None:
    """A ``ValueError`` unless layers of ``hidden`` and ``second`` neurons fit the search's
    scratch (``MOST_HIDDEN``) and the second layer's bound (``MOST_SECOND``)."""
    if not 1 <= hidden <= MOST_HIDDEN or not 1 <= second <= MOST_SECOND:
        raise ValueError(f"layers of {hidden} and {second} neurons; at most {MOST_HIDDEN} and {MOST_SECOND}")


def read_network(text: str, source: str) -> Network:
    """A network file's weights, checked: shapes that fit each other, whole numbers, and sums
    that the compiled network's 16- and 32-bit numbers hold (see the module's docstring).
    ``source`` names the file in the ``ValueError`` a malformed one raises."""
    try:
        data = json.loads(text)
        hidden, second = len(data["first_bias"]), len(data["second_bias"])
        check_widths(hidden, second)
        first = _matrix(data["first"], INPUTS, hidden, "first")
        first_bias = _matrix(data["first_bias"], hidden, None, "first_bias")
        second_layer = _matrix(data["second"], second, hidden, "second")
        second_bias = _matrix(data["second_bias"], second, None, "second_bias")
        output = _matrix(data["output"], second, None, "output")
        output_bias = int(_matrix([data["output_bias"]], 1, None, "output_bias")[0])
        scale = float(data["scale"])
        if not 1.0 <= scale <= 10_000.0:
            raise ValueError(f"scale {scale} is not between 1 and 10,000 hundredths a logit")
        # The largest sum each neuron can reach: its bias and every weight at the extreme
        # activation (a board has at most 24 pieces, so the first layer adds at most 24 rows).
        reach_first = np.abs(first_bias) + np.sort(np.abs(first), axis=0)[-24:].sum(axis=0)
        reach_second = np.abs(second_bias) + ONE * np.abs(second_layer).sum(axis=1)
        if reach_first.max() >= LIMIT16 or np.abs(second_layer).max() >= LIMIT16:
            raise ValueError("first-layer sums or second-layer weights too large for 16 bits")
        reach_output = ONE * np.abs(output).sum()
        if max(reach_second.max(), reach_output) >= LIMIT32:
            raise ValueError("second-layer or output sums too large for 32 bits")
    except KeyError as error:
        raise ValueError(f"{source} is not a network file: it has no {error}") from None
    except (ValueError, TypeError) as error:
        raise ValueError(f"{source} is not a network file: {error}") from None
    return Network(first, first_bias, second_layer, second_bias, output, output_bias, scale)


def _load() -> Network:
    """The package's network (``NETWORK_FILE``), which the search uses."""
    return read_network(resources.files("kingme.engine").joinpath(NETWORK_FILE).read_text(), NETWORK_FILE)


def _padded(array: np.ndarray, width: int, dtype: type, axis: int = -1) -> np.ndarray:
    """``array`` widened along ``axis`` to ``width`` by zeros, contiguous, as ``dtype``."""
    padding = [(0, 0)] * array.ndim
    padding[axis] = (0, width - array.shape[axis])
    return np.ascontiguousarray(np.pad(array, padding).astype(dtype))


def _whole(size: int, step: int) -> int:
    """``size`` rounded up to a multiple of ``step``."""
    return -(-size // step) * step


@dataclass(frozen=True)
class Layout:
    """A network's weights as the vector code of ``network_simd`` reads them: the first layer
    widened to whole vectors of ``LANES`` neurons and the second to whole ``GROUP``s, with
    neurons that have no weights and add 0; 16-bit first layer and second-layer weights, 32-bit
    second-layer biases and output weights."""

    first: np.ndarray
    first_bias: np.ndarray
    second: np.ndarray
    second_bias: np.ndarray
    output: np.ndarray

    @classmethod
    def of(cls, net: Network) -> Layout:
        hidden = _whole(net.first.shape[1], network_simd.LANES)
        neurons = _whole(net.second.shape[0], network_simd.GROUP)
        return cls(
            _padded(net.first, hidden, np.int16),
            _padded(net.first_bias, hidden, np.int16),
            _padded(_padded(net.second, hidden, np.int16), neurons, np.int16, axis=0),
            _padded(net.second_bias, neurons, np.int32),
            _padded(net.output, neurons, np.int32),
        )

    def kernels(self, avx2: bool = network_simd.AVX2) -> tuple[Callable[..., None], Callable[..., int]]:
        """The first and second layers' kernels for these sizes (``avx2=False``: the portable
        vector code, whatever the processor)."""
        hidden, neurons = self.first.shape[1], self.second.shape[0]
        shift = WEIGHT_ONE.bit_length() - 1  # the floor division by WEIGHT_ONE
        return (
            network_simd.first_layer(hidden, ONE),
            network_simd.second_layer(hidden, neurons, shift, ONE, avx2),
        )


_NETWORK = _load()
_LAYOUT = Layout.of(_NETWORK)
# Compiled in as constants (so the file is part of the numba cache key, as the weights table is).
FIRST, FIRST_BIAS = _LAYOUT.first, _LAYOUT.first_bias
SECOND, SECOND_BIAS = _LAYOUT.second, _LAYOUT.second_bias
OUTPUT, OUTPUT_BIAS = _LAYOUT.output, _NETWORK.output_bias
#: The layers' widths as compiled (padded to whole vectors).
HIDDEN, SECOND_SIZE = FIRST.shape[1], SECOND.shape[0]
#: Hundredths of a man per unit of the output sum: the scale over the output's unit.
OUTPUT_TO_HUNDREDTHS = _NETWORK.scale / (ONE * WEIGHT_ONE)
_first_layer, _second_layer = _LAYOUT.kernels()


def scratch() -> np.ndarray:
    """Scratch for ``network_score`` outside the search (which lends its own)."""
    return np.zeros(MOST_HIDDEN, dtype=np.int16)


@njit(cache=True, boundscheck=False)
def network_score(own: int, opp: int, kings: int, black: bool, scratch: np.ndarray) -> int:
    """The network's value of the position for the side to move (``own``), in hundredths of a
    man, rounded towards minus infinity; ``scratch`` holds at least ``HIDDEN`` int16."""
    if not black:
        own, opp, kings = turned(own), turned(opp), turned(kings)
    _first_layer(scratch, FIRST, FIRST_BIAS, own & ~kings, own & kings, opp & ~kings, opp & kings)
    total = OUTPUT_BIAS + _second_layer(scratch, SECOND, SECOND_BIAS, OUTPUT)
    return int(np.floor(np.float64(total) * OUTPUT_TO_HUNDREDTHS))
