"""One timed serving task in this process, for ``bench_serving_scale.py --before-after``.

    python benchmarks/serving_worker.py '{"task": "layout", "trace": PATH, "method": "greedy"}'

Runs with whichever mptsearch ``PYTHONPATH`` gives (the tree before or after a change), so it
uses only what both trees have: ``read_sparse``, ``method_orders``, ``simulate`` and the
``-o`` writer (``cli.serving._write_layout`` before, ``serving.fastwrite.write_layout`` after).
Kernels are compiled (or loaded) on a small trace first (the writer's too, after); the trace
is read before the clock
except for the ``read`` task. Prints one JSON object: wall and CPU seconds of the task, and a
digest of its output (equal digests: equal outputs).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time


def main() -> None:
    job = json.loads(sys.argv[1])
    from mptsearch.serving.layout import compile_kernels, method_orders
    from mptsearch.serving.sparse import Layout, read_sparse

    compile_kernels()
    task = job["task"]
    if task == "read":
        t0, c0 = time.perf_counter(), time.process_time()
        tr = read_sparse(job["trace"])
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        digest = hashlib.sha256(tr.chunks.tobytes() + tr.req_chunks.tobytes() + repr(tr.labels).encode()).hexdigest()
    else:
        tr = read_sparse(job["trace"])
    if task == "layout":
        t0, c0 = time.perf_counter(), time.process_time()
        # online over the whole trace at once: a speed figure, not a layout anyone should serve
        lay, _ = method_orders(tr, job["method"], window=tr.size if job["method"] == "online" else None)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        digest = hashlib.sha256(lay.seq.astype("int32").tobytes()).hexdigest()
    elif task == "simulate":
        from mptsearch.serving import cache
        from mptsearch.serving.cache import simulate

        if hasattr(cache, "compile_kernels"):  # the tree before has nothing to compile
            cache.compile_kernels()
        import numpy as np

        seqs = Layout(tr.indptr, tr.chunks).rows()
        cap1 = int(np.add.reduceat(tr.weights[tr.chunks], tr.indptr[:-1]).max())
        cap = None if job["capacity"] is None else int(round(job["capacity"] * cap1))
        t0, c0 = time.perf_counter(), time.process_time()
        r = simulate(tr.weights, seqs, cap, job["schedule"], 32, block_size=job["block"], lpm_fcfs_above=128)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        digest = hashlib.sha256(f"{r.prefill} {r.unbounded} {r.order}".encode()).hexdigest()
    elif task == "write":
        lay, _ = method_orders(tr, "agglomerative")
        try:
            from mptsearch.serving.fastwrite import write_layout
            from mptsearch.serving.layout import serving_rank

            def write(fh):
                write_layout(fh, tr, lay, serving_rank(lay))
            binary = True
        except ImportError:
            from mptsearch.cli.serving import _write_layout

            def write(fh):
                _write_layout(fh, tr, lay)
            binary = False
        with open(job["out"], "wb" if binary else "w", encoding=None if binary else "utf-8") as fh:
            t0, c0 = time.perf_counter(), time.process_time()
            write(fh)
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        with open(job["out"], "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
    print(json.dumps({"wall": wall, "cpu": cpu, "digest": digest}))


if __name__ == "__main__":
    main()
