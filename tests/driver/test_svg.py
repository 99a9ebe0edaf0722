#!/usr/bin/env python3
"""svg: `--svg FILE` (final graph) and `--svg-before FILE` (imported graph) write SVG
through Graphviz that parses as XML, with one node per IR node (the count --dump-ir
prints; the imported graph's five before -O2 fuses them), node fills by op family
(Conv, elementwise), the fused Conv listing its ONNX members, tensor labels with
shape, bytes and (final graph only) arena offset, and the tensor with the longest
live range drawn in red. Without `dot` on PATH: exit 1 with one line naming graphviz,
and no file written."""
import os
import re
import xml.etree.ElementTree as ET

from onnx import TensorProto, helper

from common import Fail, check, init, main, model, randf, rng, run, run_ok, save, tool, vi

N = helper.make_node
F = TensorProto.FLOAT
SVG = "{http://www.w3.org/2000/svg}"
CONV_COLOR, ELEM_COLOR, WIDEST_COLOR = "#f4a582", "#92c5de", "#d7191c"


def parse_svg(path):
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise Fail("%s is not valid SVG/XML: %s" % (path, e))
    check(root.tag == SVG + "svg", "%s: root element %s, not svg" % (path, root.tag))
    nodes, edges = {}, []
    for g in root.iter(SVG + "g"):
        title = g.find(SVG + "title")
        texts = [t.text or "" for t in g.iter(SVG + "text")]
        if g.get("class") == "node" and re.fullmatch(r"n\d+", title.text or ""):
            poly = g.find(SVG + "polygon")
            nodes[title.text] = (texts, poly.get("fill") if poly is not None else None)
        elif g.get("class") == "edge":
            path_el = g.find(SVG + "path")
            edges.append((title.text, texts, path_el.get("stroke") if path_el is not None else None))
    return nodes, edges


def test(ingot, work):
    tool("dot")
    r = rng(3)
    # c1+r1 is read by c2 and by the Mul at the end: the widest live range
    m = model([N("Conv", ["x", "w1", "b1"], ["c1"], name="c1", pads=[1, 1, 1, 1]),
               N("Relu", ["c1"], ["r1"], name="r1"),
               N("Conv", ["r1", "w2", "b2"], ["c2"], name="c2", pads=[1, 1, 1, 1]),
               N("Sigmoid", ["c2"], ["s"], name="s"),
               N("Mul", ["s", "r1"], ["y"], name="m")],
              [vi("x", F, [1, 3, 8, 8])], [vi("y", F, [1, 4, 8, 8])],
              [init("w1", randf(r, 4, 3, 3, 3)), init("b1", randf(r, 4)),
               init("w2", randf(r, 4, 4, 3, 3)), init("b2", randf(r, 4))])
    p = save(m, os.path.join(work, "g.onnx"))
    after, before, ir = (os.path.join(work, f) for f in ("after.svg", "before.svg", "g.ir"))
    run_ok([ingot, "compile", p, "-o", os.path.join(work, "out"), "--svg", after, "--svg-before",
            before, "--dump-ir", ir])
    ir_nodes = sum(1 for line in open(ir) if re.match(r"^%.* = [A-Za-z]+\(", line))

    nodes, edges = parse_svg(after)
    check(len(nodes) == ir_nodes, "--svg has %d nodes, the final IR %d" % (len(nodes), ir_nodes))
    by_op = {}
    for texts, fill in nodes.values():
        by_op.setdefault(texts[0], []).append((texts, fill))
    check(set(by_op) == {"Conv", "Mul"}, "final graph ops %s, expected Conv and Mul" % sorted(by_op))
    fused = [t for t, _ in by_op["Conv"] if "c1" in t]
    check(fused and "+ r1" in fused[0], "the fused Conv does not list c1 + r1: %s" % by_op["Conv"])
    check(all(f == CONV_COLOR for _, f in by_op["Conv"]), "Conv fill %s, expected %s (conv/matmul)" %
          ([f for _, f in by_op["Conv"]], CONV_COLOR))
    check(by_op["Mul"][0][1] == ELEM_COLOR, "Mul fill %s, expected %s (elementwise)" %
          (by_op["Mul"][0][1], ELEM_COLOR))
    r1 = [e for e in edges if e[1] and e[1][0] == "r1"]
    check(len(r1) == 2, "expected r1 on two edges (to c2 and m), got %d" % len(r1))
    for _, texts, stroke in r1:
        label = " ".join(texts)
        check("f32[1,4,8,8]" in label and re.search(r"@arena\+\d+, 1024 B", label),
              "r1's label lacks shape, offset and bytes: %r" % label)
        check(stroke == WIDEST_COLOR, "r1 (widest live range) stroke %s, expected %s" % (stroke, WIDEST_COLOR))
    others = [e for e in edges if e not in r1]
    check(others and all(e[2] != WIDEST_COLOR for e in others), "a tensor other than r1 is highlighted")

    nodes_b, edges_b = parse_svg(before)
    ops_b = sorted(t[0] for t, _ in nodes_b.values())
    check(ops_b == ["Conv", "Conv", "Mul", "Relu", "Sigmoid"], "--svg-before ops %s" % ops_b)
    labels_b = " ".join(" ".join(e[1]) for e in edges_b)
    check("1024 B" in labels_b and "@arena" not in labels_b,
          "--svg-before labels: bytes but no arena offset expected: %r" % labels_b)

    # no dot on PATH: one clear line, exit 1, nothing written
    missing = os.path.join(work, "missing.svg")
    env = dict(os.environ, PATH=os.path.join(work, "empty-bin"))
    rc, out, err = run([ingot, "compile", p, "-o", os.path.join(work, "out2"), "--svg", missing], env=env)
    lines = [l for l in err.splitlines() if l.strip()]
    check(rc == 1, "without dot: exit %d, expected 1" % rc)
    check(len(lines) == 1 and "graphviz" in lines[0] and "--svg" in lines[0],
          "without dot: expected one line naming --svg and graphviz, got %r" % err)
    check(not os.path.exists(missing), "without dot: %s was written" % missing)


if __name__ == "__main__":
    main(test)
