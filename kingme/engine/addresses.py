"""Arrays handed to the compiled recursive search by address instead of as arrays.

numba passes an array argument as a struct of seven fields and counts a reference to it on every
call. The search's ``negamax`` is called once a node, so each array it took cost every node.
Handed the address of its work array as one int64 instead, each node rebuilds a view of it with
``carray`` (no copy and no reference count), and the endgame tables' addresses are read from the
work array: the same searches, about 8% less CPU (docs/engine.md, *Speed*).

The caller keeps the arrays alive while the search runs (``search.search_root`` is called with
them in hand) and passes only C-contiguous arrays of the right type (it checks).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.numpy_support import carray

from kingme.engine import numba_cache  # noqa: F401  (sets the cache directory before numba compiles)


def _pointer_to(kind: Any) -> Callable[[int], Any]:
    """An intrinsic turning an int64 address into a pointer to ``kind`` (a numba integer type)."""

    @intrinsic
    def pointer(typingctx: Any, address: Any) -> Any:
        signature = types.CPointer(kind)(types.int64)

        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            return builder.inttoptr(args[0], ir.IntType(kind.bitwidth).as_pointer())

        return signature, codegen

    return cast(Callable[[int], Any], pointer)


_int64_pointer = _pointer_to(types.int64)
_uint8_pointer = _pointer_to(types.uint8)


@njit(cache=True)
def int64_array(address: int, size: int) -> np.ndarray:
    """The ``size`` int64 numbers at ``address``, as an array (a view, not a copy)."""
    return carray(_int64_pointer(address), size)


@njit(cache=True)
def uint8_array(address: int, size: int) -> np.ndarray:
    """The ``size`` bytes at ``address``, as an array (a view, not a copy)."""
    return carray(_uint8_pointer(address), size)


@intrinsic
def _prefetch_hint(typingctx: Any, address: Any) -> Any:
    signature = types.void(types.int64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        byte, word = ir.IntType(8).as_pointer(), ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte, word, word, word]), "llvm.prefetch.p0"
        )
        # read (0), keep in every cache level (3), data (1)
        flags = [ir.Constant(word, value) for value in (0, 3, 1)]
        builder.call(function, [builder.inttoptr(args[0], byte), *flags])
        return context.get_dummy_value()

    return signature, codegen


_prefetch = cast(Callable[[int], None], _prefetch_hint)


@njit(cache=True)
def prefetch(address: int) -> None:
    """Ask the processor to start bringing the memory at ``address`` into its caches, so a read
    of it soon after does not wait as long (a hint: it changes no number, and an address outside
    the program's memory is ignored)."""
    _prefetch(address)


def address_of(array: np.ndarray, dtype: type) -> int:
    """Where ``array``'s numbers start, once it is known to be C-contiguous ``dtype`` (a
    ``ValueError`` otherwise: a view of anything else would read the wrong memory)."""
    if array.dtype != dtype or not array.flags.c_contiguous:
        raise ValueError(f"expected a contiguous array of {np.dtype(dtype).name}, got {array.dtype} {array.shape}")
    return int(array.ctypes.data)
