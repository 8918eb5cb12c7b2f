"""Pictures of a solution: the prefix trie of a layout as text or Graphviz, a hierarchy as
nested JSON with I(v), and an annealing run's best value against time.

The trie drawn is exactly the one :func:`mptsearch.trie.trie_cost` sums: one node per distinct
prefix of the layout's sequences, weighing w(x) for its last chunk x, so the node weights of
the picture add up to the cost (tested). Each node also lists the requests whose sequence ends
there (every request ends at a node of its own, since requests are distinct sets).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Sequence

from .hierarchy import Hierarchy, _mask_ids
from .instance import Instance
from .trie import check_layout

__all__ = ["TrieNode", "layout_trie", "trie_to_json", "draw_trie", "trie_dot", "hierarchy_to_json",
           "plot_anneal_history"]


@dataclass
class TrieNode:
    """A node of the prefix trie: its chunk id (None at the root), the requests ending at it,
    and its children in the order the requests first reach them."""

    chunk: int | None
    ends: list[int] = field(default_factory=list)
    children: list["TrieNode"] = field(default_factory=list)

    def walk(self):
        """Every node below the root (preorder)."""
        stack = list(reversed(self.children))
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))


def layout_trie(inst: Instance, layout: Sequence[Sequence[int]]) -> TrieNode:
    """The prefix trie of ``layout`` (validated against ``inst``), root first.

    Runs in O(sum_i |R_i|) time.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> root = layout_trie(parse_instance("01 02"), [(0, 1), (0, 2)])
    >>> [n.chunk for n in root.walk()]
    [0, 1, 2]
    """
    layout = check_layout(inst, layout)
    root = TrieNode(None)
    index: dict[tuple[int, int], TrieNode] = {}
    for i, seq in enumerate(layout):
        node = root
        for x in seq:
            key = (id(node), x)
            child = index.get(key)
            if child is None:
                child = index[key] = TrieNode(x)
                node.children.append(child)
            node = child
        node.ends.append(i)
    return root


def trie_to_json(inst: Instance, layout: Sequence[Sequence[int]]) -> dict:
    """The trie as nested objects ``{"chunk": label, "weight": w, "ends": [i...], "children": [...]}``
    under a root ``{"cost": ..., "children": [...]}``."""
    root = layout_trie(inst, layout)

    top: dict = {"cost": 0, "children": []}
    stack = [(top, c) for c in reversed(root.children)]
    while stack:  # preorder without recursion; children keep their order
        parent, n = stack.pop()
        w = int(inst.weights[n.chunk])
        top["cost"] += w
        d = {"chunk": inst.labels[n.chunk], "weight": w, "ends": list(n.ends), "children": []}
        parent["children"].append(d)
        stack.extend((d, c) for c in reversed(n.children))
    return top


def draw_trie(inst: Instance, layout: Sequence[Sequence[int]], *, title: str | None = None) -> str:
    """The trie as an indented text tree: one line per node with its chunk label, its weight
    ``w=`` and the requests ``R<i>`` whose sequence ends there.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> print(draw_trie(parse_instance("01 02"), [(0, 1), (0, 2)]))
    trie, cost 3 (sum of the node weights)
    └── 0  w=1
        ├── 1  w=1  ends R0
        └── 2  w=1  ends R1
    """
    root = layout_trie(inst, layout)
    cost = sum(int(inst.weights[n.chunk]) for n in root.walk())
    lines = [f"{title or 'trie'}, cost {cost} (sum of the node weights)"]

    kids = root.children
    stack = [(c, "", j == len(kids) - 1) for j, c in reversed(list(enumerate(kids)))]
    while stack:  # iterative: a request may hold more chunks than Python's recursion limit
        node, prefix, last = stack.pop()
        ends = f"  ends {' '.join(f'R{i}' for i in node.ends)}" if node.ends else ""
        lines.append(f"{prefix}{'└── ' if last else '├── '}{inst.labels[node.chunk]}  "
                     f"w={int(inst.weights[node.chunk])}{ends}")
        below = prefix + ("    " if last else "│   ")
        kids = node.children
        stack.extend((c, below, j == len(kids) - 1) for j, c in reversed(list(enumerate(kids))))
    return "\n".join(lines)


def trie_dot(inst: Instance, layout: Sequence[Sequence[int]], *, name: str = "trie") -> str:
    """The trie in Graphviz dot: a box per node labelled with chunk, weight and ending
    requests (drawn with a double border); render with ``dot -Tsvg``."""
    root = layout_trie(inst, layout)
    cost = sum(int(inst.weights[n.chunk]) for n in root.walk())
    out = [f"digraph {json.dumps(name)} {{", "  node [shape=box, fontname=\"monospace\"];",
           f"  n0 [label={json.dumps(f'root (cost {cost})')}, shape=ellipse];"]
    ids = {id(root): 0}
    stack = [(root, c) for c in reversed(root.children)]
    while stack:
        parent, node = stack.pop()
        ids[id(node)] = k = len(ids)
        label = f"{inst.labels[node.chunk]}\\nw={int(inst.weights[node.chunk])}"
        extra = ""
        if node.ends:
            label += "\\n" + " ".join(f"R{i}" for i in node.ends)
            extra = ", peripheries=2"
        out.append(f"  n{k} [label=\"{_dot_escape(label)}\"{extra}];")
        out.append(f"  n{ids[id(parent)]} -> n{k};")
        stack.extend((node, c) for c in reversed(node.children))
    out.append("}")
    return "\n".join(out) + "\n"


def _dot_escape(label: str) -> str:
    # keep our own \n line breaks, escape quotes and backslashes coming from chunk labels
    parts = label.split("\\n")
    return "\\n".join(p.replace("\\", "\\\\").replace('"', '\\"') for p in parts)


def hierarchy_to_json(inst: Instance, hierarchy: Hierarchy) -> dict:
    """A hierarchy (Theorem 1) as nested objects: an internal node is
    ``{"I": [labels of I(v)], "weight": w(I(v)), "children": [left, right]}``, a leaf
    ``{"request": i, "I": [its chunks]}``. The savings are the sum of internal weights.

    Examples
    --------
    >>> from mptsearch.instance import parse_instance
    >>> from mptsearch.hierarchy import Hierarchy
    >>> inst = parse_instance("01 02 3")
    >>> h = hierarchy_to_json(inst, Hierarchy.from_nested(((0, 1), 2)))
    >>> h["I"], h["children"][0]["I"], h["children"][0]["weight"]
    ([], [0], 1)
    """
    inter = hierarchy.intersections(inst)

    def chunks(mask: int) -> list:
        return [inst.labels[x] for x in _mask_ids(mask)]

    built: dict[int, dict] = {}
    for v in reversed(hierarchy.preorder()):  # children before parents, no recursion
        if v < hierarchy.m:
            built[v] = {"request": v, "I": chunks(inter[v])}
        else:
            a, b = hierarchy.kids(v)
            built[v] = {"I": chunks(inter[v]), "weight": int(sum(int(inst.weights[x]) for x in _mask_ids(inter[v]))),
                        "children": [built.pop(a), built.pop(b)]}
    return built[hierarchy.root]


def plot_anneal_history(runs: Sequence[tuple[str, Sequence[Sequence[float]], float]], path: str, *,
                        ylabel: str = "best OPT_glob / OPT_free", title: str | None = None) -> None:
    """Plot each run's best value against time as a step line and save it to ``path``.

    ``runs`` holds ``(label, history, seconds)``: ``history`` is the ``[[seconds, best], ...]``
    list of an annealing record (one entry per improvement), ``seconds`` the run's length, to
    which the last best value is drawn.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 3.8))
    for label, history, seconds in runs:
        if not history:
            continue
        t = [float(h[0]) for h in history] + [float(seconds)]
        v = [float(h[1]) for h in history] + [float(history[-1][1])]
        ax.step(t, v, where="post", label=label)
        ax.plot(t[:-1], v[:-1], "o", ms=3, color=ax.lines[-1].get_color())
    ax.set_xlabel("seconds from the start of the search")
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
