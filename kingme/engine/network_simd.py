"""The evaluation network's two layers as vector code: numba intrinsics written in LLVM IR.

numba's own loops compute the network correctly but slowly: it types every product of two
16-bit numbers as a 64-bit number (a quarter of a vector register's lanes), adds each neuron's
lanes one by one, and loads and stores the first layer's sums for every piece. Written directly
as vectors, the whole network takes a third of the time (107 against 350 ns a position, see the
docs/engine.md, *Speed*), computing the same whole numbers.

The kernels are made for given sizes (``first_layer``, ``second_layer``) and compiled into
``network.network_score``. They use one processor-specific instruction, AVX2's ``vpmaddwd``
(sixteen 16-bit products added in pairs into eight 32-bit sums), where numba compiles for a
processor that has it (``AVX2``); elsewhere LLVM gets the same sums as plain vector code.
Integer sums do not depend on their order, so both give the same score.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils, config
from numba.extending import intrinsic

#: 16-bit numbers in one vector: 256 bits, an AVX2 register.
LANES = 16
#: 32-bit sums in one vector: the pairs of a ``LANES`` vector.
GROUP = LANES // 2

_BIT, _I16, _I32, _I64 = ir.IntType(1), ir.IntType(16), ir.IntType(32), ir.IntType(64)
_NUMBERS = ir.VectorType(_I16, LANES)
_SUMS = ir.VectorType(_I32, GROUP)
_PRODUCTS = ir.VectorType(_I32, LANES)


def _avx2() -> bool:
    """Whether numba compiles for a processor with AVX2."""
    chosen: str | None = getattr(config, "CPU_FEATURES", None)  # NUMBA_CPU_FEATURES, if set
    features = chosen if chosen is not None else llvm.get_host_cpu_features().flatten()
    return "+avx2" in str(features).split(",")


AVX2 = _avx2()


def _vectors(context: Any, builder: Any, kind: Any, value: Any, vector: Any) -> Any:
    """A contiguous array's data as a pointer to ``vector``s."""
    return builder.bitcast(context.make_array(kind)(context, builder, value).data, vector.as_pointer())


def _load(builder: Any, vectors: Any, index: Any) -> Any:
    """The ``index``-th vector (an LLVM value) from a pointer to vectors."""
    return builder.load(builder.gep(vectors, [index]), align=2)


def _clip(builder: Any, value: Any, top: int) -> Any:
    """Each lane of ``value`` clipped to 0..``top``."""
    zero, most = (ir.Constant(value.type, [bound] * value.type.count) for bound in (0, top))
    value = builder.select(builder.icmp_signed(">", value, zero), value, zero)
    return builder.select(builder.icmp_signed("<", value, most), value, most)


def _shuffled(builder: Any, a: Any, b: Any, lanes: list[int]) -> Any:
    """The lanes of ``a`` then ``b`` picked in the order ``lanes``."""
    return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(_I32, len(lanes)), lanes))


def _pair_products(builder: Any, x: Any, y: Any, avx2: bool) -> Any:
    """The products of two vectors of ``LANES`` 16-bit numbers, added in pairs (lanes 0 + 1,
    2 + 3, ...) into ``GROUP`` 32-bit sums: ``vpmaddwd``, or the same in plain vector code."""
    if avx2:
        instruction = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_SUMS, [_NUMBERS, _NUMBERS]), "llvm.x86.avx2.pmadd.wd"
        )
        return builder.call(instruction, [x, y])
    products = builder.mul(builder.sext(x, _PRODUCTS), builder.sext(y, _PRODUCTS))
    return builder.add(
        _shuffled(builder, products, products, list(range(0, LANES, 2))),
        _shuffled(builder, products, products, list(range(1, LANES, 2))),
    )


def _neighbours_added(builder: Any, a: Any, b: Any) -> Any:
    """Two vectors of sums, lanes added in pairs as AVX2's ``vphaddd`` does: in each half of
    the result, the pair sums of that half of ``a``, then of ``b``."""
    half = GROUP // 2
    firsts = [source + start + pair for start in (0, half) for source in (0, GROUP) for pair in range(0, half, 2)]
    return builder.add(_shuffled(builder, a, b, firsts), _shuffled(builder, a, b, [lane + 1 for lane in firsts]))


def _totals(builder: Any, partial: list[Any]) -> Any:
    """``GROUP`` vectors of partial sums folded into one vector of their totals, in order."""
    while len(partial) > 2:
        partial = [_neighbours_added(builder, partial[i], partial[i + 1]) for i in range(0, len(partial), 2)]
    # Each half of these two vectors holds half of each of four neurons' totals.
    half = GROUP // 2
    low = list(range(half)) + list(range(GROUP, GROUP + half))
    high = [lane + half for lane in low]
    first, second = partial
    return builder.add(_shuffled(builder, first, second, low), _shuffled(builder, first, second, high))


def first_layer(width: int, clip: int) -> Callable[..., None]:
    """A kernel ``(hidden, first, bias, plane0, plane1, plane2, plane3)`` writing to ``hidden``
    (int16, ``width`` of them, a multiple of ``LANES``) each first-layer neuron's activation:
    its ``bias`` plus its weight in the row of ``first`` (int16, 128 rows of ``width``) of every
    set bit of the planes (plane ``p``'s square ``s`` is row ``32 p + s``), clipped to 0..``clip``.
    The sums stay in vector registers while the rows are added."""
    steps = width // LANES

    @intrinsic
    def kernel(
        typingctx: Any, hidden: Any, first: Any, bias: Any, plane0: Any, plane1: Any, plane2: Any, plane3: Any
    ) -> Any:
        signature = types.void(hidden, first, bias, plane0, plane1, plane2, plane3)

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            out, rows, start = (_vectors(context, builder, sig.args[i], args[i], _NUMBERS) for i in range(3))
            sums = [_load(builder, start, ir.Constant(_I64, step)) for step in range(steps)]
            lowest = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_I64, [_I64, _BIT]), "llvm.cttz.i64"
            )
            for plane, bits in enumerate(args[3:]):
                # while bits: add the row of the lowest set bit; clear it
                before = builder.block
                test, add, done = (
                    builder.append_basic_block(f"plane{plane}_{part}") for part in ("test", "add", "done")
                )
                builder.branch(test)
                builder.position_at_end(test)
                left = builder.phi(_I64)
                left.add_incoming(bits, before)
                partial = [builder.phi(_NUMBERS) for _ in range(steps)]
                for phi, value in zip(partial, sums, strict=True):
                    phi.add_incoming(value, before)
                builder.cbranch(builder.icmp_unsigned("!=", left, ir.Constant(_I64, 0)), add, done)
                builder.position_at_end(add)
                square = builder.call(lowest, [left, ir.Constant(_BIT, 1)])
                row = builder.mul(builder.add(square, ir.Constant(_I64, 32 * plane)), ir.Constant(_I64, steps))
                for step, phi in enumerate(partial):
                    phi.add_incoming(
                        builder.add(phi, _load(builder, rows, builder.add(row, ir.Constant(_I64, step)))), add
                    )
                left.add_incoming(builder.and_(left, builder.sub(left, ir.Constant(_I64, 1))), add)
                builder.branch(test)
                builder.position_at_end(done)
                sums = partial
            for step, value in enumerate(sums):
                builder.store(_clip(builder, value, clip), builder.gep(out, [ir.Constant(_I64, step)]), align=2)
            return context.get_dummy_value()

        return signature, codegen

    return cast(Callable[..., None], kernel)


def second_layer(width: int, neurons: int, shift: int, clip: int, avx2: bool = AVX2) -> Callable[..., int]:
    """A kernel ``(hidden, second, bias, output) -> int`` for the second layer and the output:
    each of the ``neurons`` (a multiple of ``GROUP``) sums the ``hidden`` activations (int16,
    ``width``) times its row of ``second`` (int16, ``neurons`` rows of ``width``) and its
    ``bias`` (int32) in 32 bits; the sum shifted right by ``shift`` (a floor division) and
    clipped to 0..``clip`` is its activation; the kernel returns the activations times their
    ``output`` weights (int32), summed. ``GROUP`` neurons at a time: their partial sums are
    folded into one vector of totals, so the shift, the clip and the output work on a vector."""
    steps = width // LANES

    @intrinsic
    def kernel(typingctx: Any, hidden: Any, second: Any, bias: Any, output: Any) -> Any:
        signature = types.int64(hidden, second, bias, output)

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            activations, rows = (_vectors(context, builder, sig.args[i], args[i], _NUMBERS) for i in range(2))
            biases, weights = (_vectors(context, builder, sig.args[i], args[i], _SUMS) for i in range(2, 4))
            inputs = [_load(builder, activations, ir.Constant(_I64, step)) for step in range(steps)]
            total = ir.Constant(_SUMS, [0] * GROUP)
            for group in range(neurons // GROUP):
                partial = []
                for neuron in range(group * GROUP, (group + 1) * GROUP):
                    row = [_load(builder, rows, ir.Constant(_I64, neuron * steps + step)) for step in range(steps)]
                    sums = [_pair_products(builder, x, y, avx2) for x, y in zip(inputs, row, strict=True)]
                    while len(sums) > 1:
                        sums = [
                            builder.add(*sums[i : i + 2]) if i + 1 < len(sums) else sums[i]
                            for i in range(0, len(sums), 2)
                        ]
                    partial.append(sums[0])
                at = ir.Constant(_I64, group)
                value = builder.add(_totals(builder, partial), _load(builder, biases, at))
                value = _clip(builder, builder.ashr(value, ir.Constant(_SUMS, [shift] * GROUP)), clip)
                total = builder.add(total, builder.mul(value, _load(builder, weights, at)))
            reduce = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_I32, [_SUMS]), f"llvm.vector.reduce.add.v{GROUP}i32"
            )
            return builder.sext(builder.call(reduce, [total]), _I64)

        return signature, codegen

    return cast(Callable[..., int], kernel)
