#!/usr/bin/python3
# Turns bench/run.sh's raw results (one TSV row per runtime, thread count and round)
# into the markdown tables of docs/performance.md: medians of the rounds' medians,
# ingot/ORT ratios with their geometric mean, GFLOP/s (with the % of the measured FMA
# peak, bench/fma_peak.c, when given) and peak RSS.
# Usage: report.py RESULTS.tsv [PEAK_GFLOPS]
import csv
import math
import statistics
import sys


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def fmt_time(us):
    if us is None:
        return "n/a"
    if us < 1000:
        return "%.1f us" % us
    if us < 1e6:
        return "%.2f ms" % (us / 1e3)
    return "%.2f s" % (us / 1e6)


def fmt_macs(m):
    if not m:
        return "-"
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if m >= div:
            return "%.3g%s" % (m / div, unit)
    return str(m)


def gflops(macs, us):
    return "%.2f" % (2 * macs / (us * 1e3)) if macs and us else "-"


def of_peak(macs, us, peak):
    return "%.0f%%" % (100 * 2 * macs / (us * 1e3) / peak) if macs and us and peak else "-"


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    peak = num(sys.argv[2]) if len(sys.argv) > 2 else None
    models, data = [], {}
    for r in rows:
        if r["model"] not in data:
            models.append(r["model"])
            data[r["model"]] = {"macs": int(r["macs"] or 0)}
        key = (r["runtime"], r["threads"])
        d = data[r["model"]].setdefault(key, {"median": [], "p10": [], "sync": [], "sync_p10": [],
                                              "rss": [], "budget": []})
        for field, col in (("median", "median_us"), ("p10", "p10_us"),
                           ("sync", "sync_median_us"), ("sync_p10", "sync_p10_us"),
                           ("rss", "maxrss_kb"), ("budget", "budget_kb")):
            v = num(r.get(col))
            if v is not None:
                d[field].append(v)

    def med(m, key, field):
        v = data[m].get(key, {}).get(field)
        return statistics.median(v) if v else None

    def best(m, key, field):
        v = data[m].get(key, {}).get(field)
        return min(v) if v else None

    ingot2 = any(("ingot", "2") in data[m] for m in models)
    sync = any(med(m, ("ort", "1"), "sync") for m in models)

    # The ORT figure is `await session.run()` (what npm users see); the
    # binding's synchronous call is shown beside it, with the stricter ratio.
    head = ["model", "MACs", "ORT 1T"] + (["ORT 1T sync"] if sync else []) + ["ORT 2T"] + \
        ["ingot 1T"] + (["ingot 2T", "ingot 2T speedup"] if ingot2 else []) + \
        ["ingot/ORT"] + (["ingot/ORT sync"] if sync else []) + \
        ["ingot GFLOP/s", "ORT GFLOP/s"] + (["ingot % of peak", "ORT % of peak"] if peak else []) + \
        ["peak RSS ORT", "peak RSS ingot", "ingot RSS budget"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    ratios, sratios = [], []

    def ratio_cell(r, acc):
        if not r:
            return "n/a"
        acc.append(r)
        return "%.2fx" % r

    for m in models:
        macs = data[m]["macs"]
        o1, o2 = med(m, ("ort", "1"), "median"), med(m, ("ort", "2"), "median")
        s1 = med(m, ("ort", "1"), "sync")
        i1, i2 = med(m, ("ingot", "1"), "median"), med(m, ("ingot", "2"), "median")
        rss_o = max(data[m].get(("ort", "1"), {}).get("rss") or [0]) / 1024
        rss_i = max(data[m].get(("ingot", "1"), {}).get("rss") or [0]) / 1024
        budget = max(data[m].get(("ingot", "1"), {}).get("budget") or [0]) / 1024
        cells = [m, fmt_macs(macs), fmt_time(o1)] + ([fmt_time(s1)] if sync else []) + \
            [fmt_time(o2), fmt_time(i1)]
        if ingot2:
            cells += [fmt_time(i2), "%.2fx" % (i1 / i2) if i1 and i2 else "n/a"]
        cells.append(ratio_cell(i1 / o1 if i1 and o1 else None, ratios))
        if sync:
            cells.append(ratio_cell(i1 / s1 if i1 and s1 else None, sratios))
        cells += [gflops(macs, i1), gflops(macs, o1)]
        if peak:
            cells += [of_peak(macs, i1, peak), of_peak(macs, o1, peak)]
        cells += ["%.0f MB" % rss_o if rss_o else "n/a", "%.1f MB" % rss_i if rss_i else "n/a",
                  "%.1f MB" % budget if budget else "n/a"]
        out.append("| " + " | ".join(cells) + " |")
    cells = ["**geometric mean**"] + [""] * (len(head) - 1)
    for col, acc in (("ingot/ORT", ratios), ("ingot/ORT sync", sratios)):
        if acc and col in head:
            cells[head.index(col)] = "**%.2fx**" % math.exp(sum(math.log(r) for r in acc) / len(acc))
    if ratios:
        out.append("| " + " | ".join(cells) + " |")

    # the fastest decile shows what the machine does when the other tenants leave it alone
    out += ["", "Fastest decile (p10; lowest over the rounds), less disturbed by the machine's load:", "",
            "| model | ORT 1T p10 | ingot 1T p10 | ingot/ORT p10 |", "|---|---:|---:|---:|"]
    ratios = []
    for m in models:
        o = best(m, ("ort", "1"), "p10")
        i = best(m, ("ingot", "1"), "p10")
        ratio = i / o if i and o else None
        if ratio:
            ratios.append(ratio)
        out.append("| %s | %s | %s | %s |" % (m, fmt_time(o), fmt_time(i),
                                              "%.2fx" % ratio if ratio else "n/a"))
    if ratios:
        out.append("| **geometric mean** | | | **%.2fx** |" %
                   math.exp(sum(math.log(r) for r in ratios) / len(ratios)))
    print("\n".join(out))


if __name__ == "__main__":
    main()
