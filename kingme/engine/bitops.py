"""Bit tricks for the compiled core: popcount and count-trailing-zeros as LLVM intrinsics.

numba has neither built in; ``llvm.ctpop`` and ``llvm.cttz`` compile to single instructions
and are cacheable. Every board in the core is an ``int64`` holding 32 bits (bit ``i`` is
square ``i + 1``), so signed/unsigned mixing (which numba turns into floats) never happens.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from kingme.engine import numba_cache  # noqa: F401  (sets the cache directory before numba compiles)


@intrinsic
def _popcount(typingctx, x):  # type: ignore[no-untyped-def]
    """Number of set bits of an int64."""
    signature = types.int64(types.int64)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(function, args)

    return signature, codegen


@intrinsic
def _lowest_index(typingctx, x):  # type: ignore[no-untyped-def]
    """Index of the lowest set bit of a non-zero int64."""
    signature = types.int64(types.int64)

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        i64 = ir.IntType(64)
        function_type = ir.FunctionType(i64, [i64, ir.IntType(1)])
        function = cgutils.get_or_insert_function(builder.module, function_type, "llvm.cttz.i64")
        return builder.call(function, [args[0], ir.Constant(ir.IntType(1), 0)])

    return signature, codegen


# Compiled callers call these as ``popcount(x)``; an intrinsic's own signature is its typing
# function's, ``(typingctx, x)``, so the names are typed for mypy as the calls they stand for.
popcount = cast(Callable[[Any], int], _popcount)
lowest_index = cast(Callable[[Any], int], _lowest_index)


@njit(cache=True)
def turned(bits: int) -> int:
    """The board turned 180 degrees: square ``i`` becomes ``31 - i`` (a 32-bit reversal)."""
    bits = ((bits >> 1) & 0x55555555) | ((bits & 0x55555555) << 1)
    bits = ((bits >> 2) & 0x33333333) | ((bits & 0x33333333) << 2)
    bits = ((bits >> 4) & 0x0F0F0F0F) | ((bits & 0x0F0F0F0F) << 4)
    bits = ((bits >> 8) & 0x00FF00FF) | ((bits & 0x00FF00FF) << 8)
    return ((bits >> 16) & 0xFFFF) | ((bits & 0xFFFF) << 16)
