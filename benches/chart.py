#!/usr/bin/env python3
"""Draws the chart of a benchmark run: chart.py RESULTS_JSON OUT_PNG (needs matplotlib).

One column per workload, one row per figure (throughput, p50, p99, peak RSS, CPU per record);
along each panel's x axis the run's thread counts (`1×2`: two instances of one thread) and
guarantees, one bar per system. Results of runs made before threads were recorded per result
count as the run's `threads` setting, one instance.
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

COLORS = {"dekaf": "#d95f02", "kstreams": "#1b9e77", "ceiling": "#7570b3"}
NAMES = {"dekaf": "dekaf-streams", "kstreams": "Kafka Streams", "ceiling": "raw rdkafka loop"}
PANELS = [
    ("throughput_rps", "throughput (input rec/s)", True),
    ("p50_ms", "latency p50 (ms)", False),
    ("p99_ms", "latency p99 (ms)", False),
    ("peak_rss_mib", "peak RSS (MiB)", True),
    ("cpu_us_per_record", "CPU µs per input record", True),
]


def parallelism(result, report):
    threads = result.get("threads")
    if threads is None:
        try:
            threads = int(report.get("settings", {}).get("threads", "1"))
        except ValueError:
            threads = 1
    return threads, result.get("instances", 1)


def label(threads, instances, guarantee, guarantees):
    text = f"{threads}×{instances}" if instances > 1 else str(threads)
    if len(guarantees) > 1:
        text += "\n" + ("EOS" if guarantee == "exactly_once" else "ALOS")
    return text


def figure(result, field):
    if field == "cpu_us_per_record" and result.get(field) is None:
        cpu, n = result.get("cpu_seconds_backlog"), result.get("input_records")
        return cpu * 1e6 / n if cpu is not None and n else None
    return result.get(field)


def main(src: str, out: str) -> None:
    with open(src, encoding="utf-8") as f:
        report = json.load(f)
    results = report["results"]
    workloads = list(dict.fromkeys(r["workload"] for r in results))
    guarantees = list(dict.fromkeys(r["guarantee"] for r in results))
    # Thread counts in order, one instance before several of the same total.
    cases = sorted(
        {(*parallelism(r, report), r["guarantee"]) for r in results},
        key=lambda c: (guarantees.index(c[2]), c[0] * c[1], c[1]),
    )
    systems = [s for s in ("dekaf", "kstreams", "ceiling") if any(r["system"] == s for r in results)]
    width = 0.8 / max(1, len(systems))
    fig, axes = plt.subplots(
        len(PANELS), len(workloads), figsize=(3.6 * len(workloads) + 1, 2.6 * len(PANELS)), squeeze=False
    )
    for col, w in enumerate(workloads):
        for row, (field, title, log) in enumerate(PANELS):
            ax = axes[row][col]
            for i, s in enumerate(systems):
                xs, ys = [], []
                for j, (t, n, g) in enumerate(cases):
                    hit = [
                        r for r in results
                        if r["workload"] == w and r["system"] == s and r["guarantee"] == g
                        and parallelism(r, report) == (t, n) and r["status"]["kind"] == "ok"
                    ]
                    value = figure(hit[0], field) if hit else None
                    if value is not None:
                        xs.append(j + (i - (len(systems) - 1) / 2) * width)
                        ys.append(value)
                ax.bar(xs, ys, width, label=NAMES.get(s, s), color=COLORS.get(s))
            for j, (t, n, g) in enumerate(cases):
                if any(
                    r["workload"] == w and r["guarantee"] == g and parallelism(r, report) == (t, n)
                    and r["status"]["kind"] == "failed"
                    for r in results
                ):
                    ax.annotate("failed", (j, 0), ha="center", va="bottom", color="red", fontsize=7)
            if row == 0:
                ax.set_title(w, fontsize=11, fontweight="bold")
            if col == 0:
                ax.set_ylabel(title, fontsize=9)
            ax.set_xticks(range(len(cases)))
            ax.set_xticklabels([label(t, n, g, guarantees) for t, n, g in cases], fontsize=8)
            if row == len(PANELS) - 1:
                ax.set_xlabel("threads (t×i: i instances)", fontsize=8)
            if log:
                ax.set_yscale("log")
                ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
                ax.yaxis.set_minor_formatter(NullFormatter())
            ax.tick_params(axis="y", labelsize=7)
            ax.grid(axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    v = report.get("versions", {})
    st = report.get("settings", {})
    fig.suptitle(
        f"dekaf-streams ({v.get('dekaf-streams commit', '?')}) vs Kafka Streams "
        f"{v.get('Kafka Streams', '').split(' ')[0]}, same thread counts — {report.get('machine', '')}\n"
        f"{report.get('started', '')}; N={st.get('records', '?')}, partitions={st.get('partitions', '?')}, "
        f"{', '.join(g for g in guarantees)}; librdkafka {v.get('librdkafka', '?')}; {v.get('java', '')}",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: chart.py RESULTS_JSON OUT_PNG")
    main(sys.argv[1], sys.argv[2])
