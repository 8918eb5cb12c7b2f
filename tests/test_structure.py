"""The package's structure: no module of mptsearch imports itself back through others.

A static check over the source (no import is executed): every ``import`` and ``from ... import``
naming an mptsearch module, at module level or inside a function (a deferred import still ties
the two modules together), is an edge; a strongly connected component of more than one module
is a cycle.
"""

import ast
import functools
import gc
from pathlib import Path

import mptsearch

PACKAGE = Path(mptsearch.__file__).parent


def _modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (source file, is a package)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
    return out


@functools.lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    """A source file's syntax tree, parsed once for all the checks of this file (the cyclic
    garbage collector paused meanwhile: a syntax tree holds no cycles, and the hundreds of
    thousands of nodes would otherwise set it off again and again)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(path.read_text(encoding="utf-8"), str(path))
    finally:
        if enabled:
            gc.enable()


#: the nodes that hold statements (an import is a statement, and an expression never holds one)
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.AST):
    """Every statement of ``tree`` at any depth (inside functions, classes, branches, handlers,
    match cases), without visiting the expressions: the imports ``ast.walk`` would find, at a
    tenth of the nodes."""
    work = [tree]
    while work:
        node = work.pop()
        yield node
        for _, value in ast.iter_fields(node):
            if isinstance(value, list):
                work.extend(x for x in value if isinstance(x, _HOLDS_STATEMENTS))


@functools.lru_cache(maxsize=None)
def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (relative imports resolved; ``from pkg import
    name`` is the submodule ``pkg.name`` when that is a module, else ``pkg``). Built once for
    the checks of this file; they only read it."""
    mods = _modules(root)
    top = root.name

    def owner(name: str) -> str:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for name, (path, is_pkg) in mods.items():
        here = name if is_pkg else name.rpartition(".")[0]
        deps = set()
        for node in _statements(_tree(path)):
            if isinstance(node, ast.Import):
                deps.update(owner(a.name) for a in node.names if a.name.split(".")[0] == top)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")[:len(here.split(".")) - node.level + 1]
                    mod = ".".join(base + ([node.module] if node.module else []))
                else:
                    mod = node.module or ""
                if mod.split(".")[0] != top:
                    continue
                for a in node.names:
                    sub = f"{mod}.{a.name}"
                    deps.add(sub if sub in mods else owner(mod))
        deps.discard(name)
        deps.discard("")
        graph[name] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_cycle_finder_sees_a_deferred_import_cycle():
    # the shape of the layout/pinning cycle (issue 21): one side imports the other inside a function
    g = {"p.a": {"p.b"}, "p.b": {"p.c"}, "p.c": {"p.a"}, "p.d": {"p.a"}}
    assert cycles(g) == [["p.a", "p.b", "p.c"]]
    assert cycles({"p.a": {"p.b"}, "p.b": set()}) == []


def test_graph_resolves_relative_and_deferred_imports():
    g = import_graph()
    assert "mptsearch.serving.sparse" in g["mptsearch.serving.pinning"]  # from .sparse import ...
    assert "mptsearch.serving.pinning" in g["mptsearch.serving.layout"]  # inside method_orders
    assert "mptsearch.instance" in g["mptsearch.serving.layout"]  # from ..instance import ...


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_every_cached_kernel_module_takes_njit_from_mptsearch_jit():
    """A module that caches compiled kernels must use mptsearch._jit's njit: numba's own cache
    stamp ignores the helpers a kernel compiles in from other files (see mptsearch/_jit.py)."""
    offenders = []
    for name, (path, _) in _modules(PACKAGE).items():
        if name == "mptsearch._jit":
            continue
        tree = _tree(path)
        direct = any(isinstance(node, ast.ImportFrom) and node.module == "numba"
                     and any(a.name == "njit" for a in node.names) for node in _statements(tree))
        uses_jit = any(isinstance(node, ast.ImportFrom) and (node.module or "").endswith("_jit")
                       and node.level > 0 for node in _statements(tree))
        if direct or ("cache=True" in path.read_text() and not uses_jit):
            offenders.append(name)
    assert offenders == []
