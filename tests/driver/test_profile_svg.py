#!/usr/bin/env python3
"""profile_svg: the runner of a model compiled with --profile, given `--profile-svg
FILE`, draws its profile table as an SVG bar chart that parses as XML: one bar per
row of the table printed in the same run, in the table's order (slowest first), each
titled with the row's op and ONNX nodes, carrying its median time, and as long as
its time in proportion to the slowest (the slowest 380 px). A runner built without
--profile refuses the flag (exit 2, one line).

    test_profile_svg.py INGOT WORKDIR
"""
import os
import xml.etree.ElementTree as ET

from common import Fail, check, ingot_compile, main, run, run_ok
from test_profile import table
from test_threads import cnn

SVG = "{http://www.w3.org/2000/svg}"
BAR_W = 380.0


def test(ingot, work):
    p = os.path.join(work, "cnn.onnx")
    cnn(p)
    d = os.path.join(work, "prof")
    ingot_compile(ingot, p, d, "m", "--emit", "exe", "--profile")
    svg = os.path.join(work, "prof.svg")
    out, _ = run_ok([os.path.join(d, "m"), "--bench", "5", "--profile-svg", svg], cwd=d)
    _, rows = table(out, "--bench 5 --profile-svg")
    try:
        root = ET.parse(svg).getroot()
    except (ET.ParseError, OSError) as e:
        raise Fail("%s is not valid SVG/XML: %s" % (svg, e))
    check(root.tag == SVG + "svg", "root element %s" % root.tag)
    bars = []
    for g in root.iter(SVG + "g"):
        rect = g.find(SVG + "rect")
        if g.get("class") == "node" and rect is not None and rect.get("class") == "bar":
            bars.append((g.find(SVG + "title").text, float(rect.get("y")), float(rect.get("width")),
                         float(rect.get("data-us"))))
    check(len(bars) == len(rows), "%d bars for %d table rows" % (len(bars), len(rows)))
    check([b[1] for b in bars] == sorted(b[1] for b in bars), "bars not drawn top to bottom")
    slowest = rows[0][0]
    check(slowest > 0, "the slowest node took no time")
    for (title, _, width, us), row in zip(bars, rows):
        check(title.startswith("%s %s %s:" % (row[3], row[5], row[4])),
              "bar '%s' for row %s %s" % (title, row[3], row[5]))
        check(abs(us - row[0]) < 1e-9, "bar %s: %.2f us, the table says %.2f" % (row[5], us, row[0]))
        want = BAR_W * row[0] / slowest
        # the table's times are rounded to 0.01 us; the bars use the exact medians
        slack = BAR_W * 0.01 / slowest * (1 + row[0] / slowest) + 0.002
        check(abs(width - want) <= slack, "bar %s: width %.3f, expected %.3f (+-%.3f)" %
              (row[5], width, want, slack))
    check(abs(bars[0][2] - BAR_W) < 1e-3, "the slowest bar is %.3f px, not %.0f" % (bars[0][2], BAR_W))
    # without --profile: the flag is refused
    d2 = os.path.join(work, "plain")
    ingot_compile(ingot, p, d2, "m", "--emit", "exe")
    rc, out, err = run([os.path.join(d2, "m"), "--bench", "3", "--profile-svg", svg + "2"], cwd=d2)
    check(rc == 2 and "--profile" in err and len(err.strip().splitlines()) == 1,
          "without --profile: exit %d, %r (expected 2 and one line)" % (rc, err))
    check(not os.path.exists(svg + "2"), "without --profile: the chart was written")
    print("%d bars" % len(bars))


if __name__ == "__main__":
    main(test)
