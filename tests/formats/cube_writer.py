"""Write small CUBE 4 profiles (``.cubex``) for tests, as Score-P lays them out.

A ``.cubex`` file is a tar archive: ``anchor.xml`` (metrics, regions, the call tree, the
system tree of processes) and, per metric id, ``N.index`` (``CUBEX.INDEX``, the byte order
marker 1, a version, an index type, the number of call-tree nodes and their positions) and
``N.data`` (``CUBEX.DATA`` and one value per call-tree node and process). Exclusive metrics
store the nodes in depth-first order, inclusive ones in CUBE's "wide" order (a node's
children listed before any grandchild); the values stored are the metric's own kind.
"""

from __future__ import annotations

import io
import struct
import tarfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

__all__ = ["CubeMetric", "write_cubex"]

_DTYPES = {"DOUBLE": "<f8", "UINT64": "<u8"}


@dataclass(frozen=True)
class CubeMetric:
    name: str
    kind: str  # "INCLUSIVE" or "EXCLUSIVE": what the stored values are
    dtype: str = "DOUBLE"
    unit: str = "sec"


@dataclass
class _Node:
    id: int
    path: str
    region: str
    children: list[_Node]


def _nodes(tree: dict, prefix: str, counter: list[int]) -> list[_Node]:
    out = []
    for name, subtree in tree.items():
        path = f"{prefix}->{name}" if prefix else name
        node = _Node(counter[0], path, name, [])
        counter[0] += 1
        node.children = _nodes(subtree, path, counter)
        out.append(node)
    return out


def _deep(roots: list[_Node]) -> list[_Node]:
    return [n for root in roots for n in [root, *_deep(root.children)]]


def _wide(roots: list[_Node]) -> list[_Node]:
    order = []
    for root in roots:
        order.append(root)
        stack = [root]
        while stack:
            node = stack.pop()
            order.extend(node.children)
            stack.extend(reversed(node.children))
    return order


def _cnode_xml(node: _Node, regions: dict[str, int]) -> str:
    inner = "".join(_cnode_xml(c, regions) for c in node.children)
    return f'<cnode id="{node.id}" calleeId="{regions[node.region]}">{inner}</cnode>'


def _anchor(metrics: list[CubeMetric], roots: list[_Node], processes: int) -> str:
    regions: dict[str, int] = {}
    for node in _deep(roots):
        regions.setdefault(node.region, len(regions))
    metric_xml = "".join(
        f'<metric id="{i}" type="{m.kind}"><disp_name>{escape(m.name)}</disp_name>'
        f"<uniq_name>{escape(m.name)}</uniq_name><dtype>{m.dtype}</dtype>"
        f"<uom>{escape(m.unit)}</uom><url></url><descr></descr></metric>"
        for i, m in enumerate(metrics)
    )
    region_xml = "".join(
        f'<region id="{i}" mod="app.c" begin="1" end="2"><name>{escape(name)}</name>'
        "<url></url><descr>user</descr></region>"
        for name, i in regions.items()
    )
    cnodes = "".join(_cnode_xml(r, regions) for r in roots)
    groups = "".join(
        f'<locationgroup Id="{p}"><name>Process</name><rank>{p}</rank><type>process</type>'
        f'<location Id="{p}"><name>Master thread</name><rank>0</rank><type>thread</type>'
        "</location></locationgroup>"
        for p in range(processes)
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<cube version="4.3">'
        '<attr key="Creator" value="perfguard tests"/>'
        f"<metrics>{metric_xml}</metrics><program>{region_xml}{cnodes}</program>"
        '<system><systemtreenode Id="0"><name>machine</name><class>machine</class>'
        f'<systemtreenode Id="1"><name>node</name><class>node</class>{groups}'
        "</systemtreenode></systemtreenode></system></cube>"
    )


def write_cubex(
    path: Path,
    tree: dict,
    metrics: list[CubeMetric],
    values: dict[str, dict[str, list[float]]],
    processes: int,
) -> None:
    """Write one profile: ``values[metric][call path]`` lists one value per process.

    ``tree`` is the call tree as nested dicts (``{"main": {"solve": {}}}``); a call path
    without values holds zeros. A metric absent from ``values`` gets no data files, as a
    metric Score-P did not record.
    """
    roots = _nodes(tree, "", [0])
    files = {"anchor.xml": _anchor(metrics, roots, processes).encode()}
    for i, metric in enumerate(metrics):
        if metric.name not in values:
            continue
        order = _deep(roots) if metric.kind == "EXCLUSIVE" else _wide(roots)
        table = np.zeros((len(order), processes))
        for row, node in enumerate(order):
            if node.path in values[metric.name]:
                table[row] = values[metric.name][node.path]
        n = len(order)
        files[f"{i}.index"] = (
            b"CUBEX.INDEX" + struct.pack("<ihbi", 1, 0, 0, n) + struct.pack(f"<{n}i", *range(n))
        )
        files[f"{i}.data"] = b"CUBEX.DATA" + table.astype(_DTYPES[metric.dtype]).tobytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(path, "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
