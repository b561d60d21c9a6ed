#!/usr/bin/env bash
# End-to-end benchmarks: dekaf-streams vs Apache Kafka Streams 4.4 vs a raw rdkafka loop, side by
# side on one local broker (workloads: benches/WORKLOADS.md).
#
#   benches/run.sh [driver flags]        e.g. benches/run.sh --records 200k --workloads wordcount
#
# It starts the broker (scripts/kafka.sh start; DEKAF_KAFKA_PORT, default 9092), builds the Kafka
# Streams jar (Maven) and the Rust binaries (release), runs the driver (`bench --help` lists its
# flags; by default all four workloads × both guarantees on kstreams and ceiling, N=100k), draws
# the chart (matplotlib in a venv under ~/.cache/dekaf-streams) and writes
# benches/results/<time>-<run>/{report.md,results.json,chart.png}, copies the chart to
# benches/results/latest.png, and rewrites benches/results/latest.md, the index of the newest
# figures of every workload over all runs kept (bench-index). Topics and groups of the run are deleted at
# its end. The broker is left running (stop it with scripts/kafka.sh stop).
#
# Environment: DEKAF_KAFKA_PORT, DEKAF_CACHE_DIR (as scripts/kafka.sh), CARGO_TARGET_DIR,
# BENCH_PROFILE (cargo profile, default release), BENCH_BIN_DIR (use binaries built elsewhere, no
# cargo build), BENCH_NO_CHART=1 (skip the chart).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
say() { printf '[run.sh] %s\n' "$*" >&2; }

cd "$root"
bash scripts/kafka.sh start
broker_version="$(sed -n 's/^KAFKA_VERSION=//p' scripts/kafka.sh | head -n1)"

say "building the Kafka Streams application (Maven)"
jar="$("$here/kstreams/build.sh")"

profile="${BENCH_PROFILE:-release}"
if [ -n "${BENCH_BIN_DIR:-}" ]; then
  bin_dir="$BENCH_BIN_DIR"
  say "using the benchmark binaries in $bin_dir"
else
  say "building the benchmark binaries (cargo, profile $profile)"
  cargo build --profile "$profile" -p dekaf-streams-benches --bins
  target_dir="${CARGO_TARGET_DIR:-$root/target}"
  bin_dir="$target_dir/$([ "$profile" = dev ] && echo debug || echo "$profile")"
fi

port="${DEKAF_KAFKA_PORT:-9092}"
out="$("$bin_dir/bench" --bootstrap "127.0.0.1:$port" --kstreams-jar "$jar" --bin-dir "$bin_dir" \
  --results-dir "$here/results" --broker-version "${broker_version:-4.4.0}" "$@")"
say "report: $out/report.md"

if [ -z "${BENCH_NO_CHART:-}" ]; then
  venv="${DEKAF_CACHE_DIR:-$HOME/.cache/dekaf-streams}/bench-venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    say "installing matplotlib into $venv (PyPI)"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q 'matplotlib>=3.8,<4'
  fi
  if "$venv/bin/python" "$here/chart.py" "$out/results.json" "$out/chart.png"; then
    cp "$out/chart.png" "$here/results/latest.png"
  else
    say "warning: the chart could not be drawn; the report stands without it"
  fi
fi
# latest.md: the newest figures of every workload × guarantee over all runs kept in results/
# (a run of a few workloads must not hide the others' figures, nor leave a stale run standing).
"$bin_dir/bench-index" "$here/results" >"$here/results/latest.md"
say "latest: $here/results/latest.md"
