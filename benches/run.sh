#!/usr/bin/env bash
# End-to-end benchmarks: dekaf-streams vs Apache Kafka Streams 4.4 vs a raw rdkafka loop, side by
# side on one local broker (workloads: benches/WORKLOADS.md).
#
#   benches/run.sh [driver flags]        e.g. benches/run.sh --records 200k --workloads wordcount
#
# The figures of results/latest.md and latest.png (dekaf-streams against Kafka Streams on 1, 2 and
# 4 threads and on two instances of one thread, 8 partitions; see benches/README.md):
#
#   benches/run.sh --systems dekaf,kstreams --fixed-names true --purge-stale true \
#     --workloads stateless,wordcount,window,join --guarantees exactly_once \
#     --threads 1,2,4,1x2 --partitions 8 --records 100k --restore false --repeat 3
#
# It starts the broker (scripts/kafka.sh start; DEKAF_KAFKA_PORT, default 9092), builds the Kafka
# Streams jar (Maven) and the Rust binaries (release), runs the driver (`bench --help` lists its
# flags; by default all four workloads × both guarantees on kstreams and ceiling, N=100k), draws
# the chart (matplotlib in a venv under ~/.cache/dekaf-streams; python3-venv from Debian if missing) and writes
# benches/results/<time>-<run>/{report.md,results.json,chart.png}, copies the chart to
# benches/results/latest.png, and rewrites benches/results/latest.md, the index of the newest
# figures of every workload over all runs kept (bench-index). Topics and groups of the run are deleted at
# its end. The broker is left running (stop it with scripts/kafka.sh stop).
#
# The Avro word count (avro_wordcount, also part of `--workloads all`, the default) needs a schema
# registry: unless --registry-url names one, this script starts Apicurio Registry with
# scripts/registry.sh start (port DEKAF_REGISTRY_PORT, default 8480) and stops it at the end if it
# was the one that started it.
#
# Environment: DEKAF_KAFKA_PORT, DEKAF_REGISTRY_PORT, DEKAF_CACHE_DIR (as scripts/kafka.sh and
# scripts/registry.sh), CARGO_TARGET_DIR,
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

# The value of a flag among the driver's arguments ($2 when absent).
flag_value() {
  local name="$1" value="$2" prev="" a
  shift 2
  for a in "$@"; do [ "$prev" = "$name" ] && value="$a"; prev="$a"; done
  echo "$value"
}

# A schema registry for the Avro workload, unless the arguments name one.
registry_args=()
workloads="$(flag_value --workloads all "$@")"
case ",$workloads," in
  *,all,* | *,avro_wordcount,*) needs_registry=1 ;;
  *) needs_registry="" ;;
esac
if [ -n "$needs_registry" ] && [ -z "$(flag_value --registry-url "" "$@")" ]; then
  registry_port="${DEKAF_REGISTRY_PORT:-8480}"
  started_registry=""
  bash scripts/registry.sh status >/dev/null 2>&1 || started_registry=1
  if bash scripts/registry.sh start; then
    if [ -n "$started_registry" ]; then
      trap 'bash "$root/scripts/registry.sh" stop' EXIT
    fi
    registry_args=(--registry-url "http://127.0.0.1:$registry_port/apis/ccompat/v7")
  elif [ "$workloads" = all ]; then
    say "warning: no schema registry (scripts/registry.sh start failed): the avro_wordcount rows will fail"
  else
    say "the Avro workload needs a schema registry; scripts/registry.sh start failed"
    exit 1
  fi
fi

port="${DEKAF_KAFKA_PORT:-9092}"
out="$("$bin_dir/bench" --bootstrap "127.0.0.1:$port" --kstreams-jar "$jar" --bin-dir "$bin_dir" \
  --results-dir "$here/results" --broker-version "${broker_version:-4.4.0}" \
  "${registry_args[@]}" "$@")"
say "report: $out/report.md"

# The chart needs Python 3 with venv (Debian: python3-venv) and matplotlib (PyPI, into a venv of
# its own): installed here when missing, so that this script works on a fresh Debian machine.
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    say "need root (or sudo) to run: $*"; return 1
  fi
}
chart_python() {
  local venv="${DEKAF_CACHE_DIR:-$HOME/.cache/dekaf-streams}/bench-venv"
  if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
    echo "$venv/bin/python"
    return 0
  fi
  if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    command -v apt-get >/dev/null || { say "no python3 with venv, and no apt-get to install it"; return 1; }
    say "installing python3 and python3-venv (Debian packages) for the chart"
    as_root apt-get update -qq >&2 &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        python3 python3-venv >&2 || return 1
  fi
  say "installing matplotlib into $venv (PyPI)"
  rm -rf "$venv"
  python3 -m venv "$venv" >&2 && "$venv/bin/pip" install -q 'matplotlib>=3.8,<4' >&2 || return 1
  echo "$venv/bin/python"
}

if [ -z "${BENCH_NO_CHART:-}" ]; then
  if py="$(chart_python)" && "$py" "$here/chart.py" "$out/results.json" "$out/chart.png"; then
    # latest.png shows threads side by side: only a run of several thread counts replaces it
    # (a run of a few single-thread rows keeps its chart in its own directory).
    threads=1 prev=""
    for a in "$@"; do [ "$prev" = --threads ] && threads="$a"; prev="$a"; done
    case "$threads" in *,*) cp "$out/chart.png" "$here/results/latest.png" ;; esac
  else
    say "warning: the chart could not be drawn; the report stands without it"
  fi
fi
# latest.md: the newest figures of every workload × guarantee over all runs kept in results/
# (a run of a few workloads must not hide the others' figures, nor leave a stale run standing).
"$bin_dir/bench-index" "$here/results" >"$here/results/latest.md"
# The top-level README's figures follow (a test fails when they differ from latest.md).
"$bin_dir/bench-index" --readme "$here/../README.md" "$here/results/latest.md"
say "latest: $here/results/latest.md"
