#!/usr/bin/env python3
"""Draws the chart of a benchmark run: chart.py RESULTS_JSON OUT_PNG (needs matplotlib)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"dekaf": "#d95f02", "kstreams": "#1b9e77", "ceiling": "#7570b3"}


def main(src: str, out: str) -> None:
    with open(src, encoding="utf-8") as f:
        report = json.load(f)
    rows = [r for r in report["results"] if r["status"]["kind"] == "ok"]
    combos = []
    for r in report["results"]:
        c = (r["workload"], r["guarantee"])
        if c not in combos:
            combos.append(c)
    systems = [s for s in ("dekaf", "kstreams", "ceiling") if any(r["system"] == s for r in rows)]
    labels = [f"{w}\n{'EOS' if g == 'exactly_once' else 'ALOS'}" for w, g in combos]
    panels = [
        ("throughput_rps", "throughput (input records/s)", True),
        ("p99_ms", "latency p99 (ms)", False),
        ("peak_rss_mib", "peak RSS (MiB)", True),
        ("cpu_seconds_backlog", "CPU seconds (start → backlog done)", False),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(14, 8.5))
    width = 0.8 / max(1, len(systems))
    for ax, (field, title, log) in zip(axes.flat, panels):
        for i, s in enumerate(systems):
            xs, ys = [], []
            for j, c in enumerate(combos):
                hit = [r for r in rows if (r["workload"], r["guarantee"]) == c and r["system"] == s]
                if hit and hit[0].get(field) is not None:
                    xs.append(j + (i - (len(systems) - 1) / 2) * width)
                    ys.append(hit[0][field])
            ax.bar(xs, ys, width, label=s, color=COLORS.get(s))
        failed = [
            j for j, c in enumerate(combos)
            if any((r["workload"], r["guarantee"]) == c and r["status"]["kind"] == "failed" for r in report["results"])
        ]
        for j in failed:
            ax.annotate("failed", (j, 0), ha="center", va="bottom", color="red", fontsize=8)
        ax.set_title(title)
        ax.set_xticks(range(len(combos)))
        ax.set_xticklabels(labels, fontsize=8)
        if log:
            ax.set_yscale("log")
        ax.grid(axis="y", alpha=0.3)
    axes.flat[0].legend()
    v = report.get("versions", {})
    fig.suptitle(
        f"dekaf-streams vs Kafka Streams {v.get('Kafka Streams', '').split(' ')[0]} — {report.get('machine', '')}\n"
        f"{report.get('started', '')}; librdkafka {v.get('librdkafka', '?')}; {v.get('java', '')}; "
        f"N={report.get('settings', {}).get('records', '?')}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: chart.py RESULTS_JSON OUT_PNG")
    main(sys.argv[1], sys.argv[2])
