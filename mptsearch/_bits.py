"""Intrinsics for the compiled kernels: bit twiddling (population count, trailing zeros) and
a prefetch hint.

Numba has no popcount of its own; these emit LLVM's ``ctpop`` and ``cttz``, which become
single ``popcnt``/``tzcnt`` instructions on current x86 and ARM processors. :func:`prefetch`
emits LLVM's ``prefetch``, which asks the processor to start loading a cache line that a
kernel will read soon (a hash table's slot, say) and has no other effect.
"""

from llvmlite import ir
from numba import types
from numba.core import cgutils
from ._jit import njit
from numba.extending import intrinsic

__all__ = ["popcount", "ctz", "prefetch"]


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


@intrinsic
def prefetch(typingctx, arr, i):
    """Hint that ``arr[i, 0, ...]`` (the start of row ``i`` of a C-contiguous array) will be
    read soon. No bounds check and no effect on any result: a prefetch of an address past the
    array does not fault. Lets a kernel overlap the cache misses of several random reads."""
    if not isinstance(arr, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        idx = context.cast(builder, args[1], signature.args[1], types.intp)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer2(context, builder, data=ary.data, shape=cgutils.unpack_tuple(builder, ary.shape),
                                        strides=cgutils.unpack_tuple(builder, ary.strides), layout=aryty.layout,
                                        inds=[idx] + [zero] * (aryty.ndim - 1), wraparound=False)
        i8p, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0i8")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep in all levels, data
        return context.get_dummy_value()

    return types.void(arr, i), codegen
