"""Where a command's numba compilation goes: type inference, lowering, LLVM's passes and its
machine code, and how much of LLVM's input is the callees linked into each kernel again.

Runs one ``mptsearch`` command in this process on an empty numba cache (a temporary
``NUMBA_CACHE_DIR``), timing numba's compiler by wrapping its own methods (``time.process_time``,
each phase's nested phases taken out):

- ``type inference``: numba's typing pass, with the front end of the kernels it compiles
  inside (bytecode, IR, the untyped passes) since those are not wrapped;
- ``lowering``: numba's Python code writing LLVM IR;
- ``LLVM: parse and verify``, ``LLVM: per-function passes``, ``LLVM: module passes`` (the
  final module, callees linked in), ``LLVM: machine code``, ``LLVM: linking``;
- ``cache writes``.

numba finalises each compiled function's module on its own, with every callee's module linked
in (and optimised and emitted again): the report counts LLVM instructions of each module before
linking (its own code) and after (what the module passes and the machine-code step get).

Usage (from the repository root): python benchmarks/compile_split.py anneal -k 4 -n 7 -t 5 -o OUT.json
"""

from __future__ import annotations

import collections
import os
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    if not argv:
        raise SystemExit(__doc__.split("Usage")[1])
    cache = tempfile.mkdtemp(prefix="compile_split_")
    os.environ["NUMBA_CACHE_DIR"] = cache  # before numba is imported: an empty cache

    from numba.core import caching, codegen, lowering, typed_passes

    spent: dict[str, float] = collections.defaultdict(float)
    calls: collections.Counter = collections.Counter()
    stack: list[float] = []

    def wrap(cls, name: str, label: str) -> None:
        original = getattr(cls, name)

        def timed(self, *args, **kwargs):
            start = time.process_time()
            stack.append(0.0)
            try:
                return original(self, *args, **kwargs)
            finally:
                took = time.process_time() - start
                nested = stack.pop()
                spent[label] += took - nested
                calls[label] += 1
                if stack:
                    stack[-1] += took

        setattr(cls, name, timed)

    wrap(typed_passes.BaseTypeInference, "run_pass", "type inference")
    wrap(lowering.Lower, "lower", "lowering")
    wrap(codegen.CPUCodeLibrary, "add_ir_module", "LLVM: parse and verify")
    wrap(codegen.CPUCodeLibrary, "_optimize_functions", "LLVM: per-function passes")
    wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "LLVM: module passes")
    wrap(codegen.JITCodeLibrary, "_finalize_specific", "LLVM: machine code")
    wrap(codegen.CPUCodeLibrary, "finalize", "LLVM: linking")
    wrap(caching.Cache, "save_overload", "cache writes")

    sizes: list[tuple[int, int, str]] = []  # (own instructions, after linking, module)

    def count(module) -> int:
        """The module's LLVM instructions, this count's CPU kept out of every phase: it is the
        script's own work (inside a phase when a callee is finalised during its caller's typing,
        and inside the caller's finalize when counted after linking)."""
        start = time.process_time()
        n = sum(1 for f in module.functions if not f.is_declaration for b in f.blocks for _ in b.instructions)
        took = time.process_time() - start
        spent["(this script's instruction counts)"] += took
        calls["(this script's instruction counts)"] += 1
        if stack:
            stack[-1] += took
        return n

    finalize = codegen.CPUCodeLibrary.finalize

    def measured_finalize(self):
        own = count(self._final_module)
        passes = codegen.CPUCodeLibrary._optimize_final_module

        def counted(lib):
            sizes.append((own, count(lib._final_module), lib.name))
            return passes(lib)

        self._optimize_final_module = counted.__get__(self)
        return finalize(self)

    codegen.CPUCodeLibrary.finalize = measured_finalize

    from mptsearch.cli import main as cli

    start = time.process_time()
    try:
        code = cli(argv)
    except SystemExit as stop:
        code = stop.code
    total = time.process_time() - start

    print(f"\ncommand: mptsearch {' '.join(argv)} (exit {code}), {total:.2f} CPU s in all")
    print("| phase | CPU s | calls |\n|---|---|---|")
    for label, s in sorted(spent.items(), key=lambda x: -x[1]):
        print(f"| {label} | {s:.2f} | {calls[label]} |")
    compiler = sum(v for k, v in spent.items() if not k.startswith("("))
    print(f"| the compiler, all phases | {compiler:.2f} | |")
    own = sum(s[0] for s in sizes)
    linked = sum(s[1] for s in sizes)
    print(f"\nLLVM instructions of the {len(sizes)} modules finalised: {own:,} their own, {linked:,} with "
          f"their callees linked in ({linked / max(own, 1):.2f} times)")
    for o, t, name in sorted(sizes, key=lambda s: -s[1])[:8]:
        print(f"  {t:7,d} {o:7,d}  {name[:70]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
