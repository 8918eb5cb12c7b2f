"""Bit-twiddling intrinsics for the compiled kernels (population count, trailing zeros).

Numba has no popcount of its own; these emit LLVM's ``ctpop`` and ``cttz``, which become
single ``popcnt``/``tzcnt`` instructions on current x86 and ARM processors.
"""

from numba import types
from ._jit import njit
from numba.extending import intrinsic

__all__ = ["popcount", "ctz"]


def _unary(emit):
    """An intrinsic applying one LLVM integer instruction, ``emit(builder, value, context)``,
    to an integer of any width."""

    @intrinsic
    def op(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, args[0], context)

        return x(x), codegen

    return op


_ctpop = _unary(lambda builder, v, context: builder.ctpop(v))
_cttz = _unary(lambda builder, v, context: builder.cttz(v, context.get_constant(types.boolean, False)))


@njit(inline="always")
def popcount(x):
    """Number of set bits of an integer (any width)."""
    return _ctpop(x)


@njit(inline="always")
def ctz(x):
    """Index of the lowest set bit (x must be nonzero)."""
    return _cttz(x)
