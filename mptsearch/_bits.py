"""Bit-twiddling intrinsics for the compiled kernels (population count, trailing zeros).

Numba has no popcount of its own; these emit LLVM's ``ctpop`` and ``cttz``, which become
single ``popcnt``/``tzcnt`` instructions on current x86 and ARM processors.
"""

from numba import njit, types
from numba.extending import intrinsic

__all__ = ["popcount", "ctz"]


@intrinsic
def _ctpop(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, False))

    return sig, codegen


@njit(inline="always")
def popcount(x):
    """Number of set bits of an integer (any width)."""
    return _ctpop(x)


@njit(inline="always")
def ctz(x):
    """Index of the lowest set bit (x must be nonzero)."""
    return _cttz(x)
