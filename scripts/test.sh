#!/usr/bin/env bash
# The test command of dekaf-streams: prepares a (fresh) Debian machine, starts a single-node
# Apache Kafka 4.4 broker on 127.0.0.1, runs every test of the workspace against it
# (`cargo test --workspace`, extra arguments passed on; without extra arguments also the runtime
# without its `kafka` feature), and stops the broker again.
#
# Installs, when missing (apt-get, needs root or sudo):
#   - build-essential, pkg-config, cmake, libssl-dev, libcurl4-openssl-dev, zlib1g-dev:
#     to build librdkafka 2.12.1 from the sources bundled with the rdkafka crate;
#   - openjdk-17-jre-headless and maven (through scripts/kafka.sh): to resolve and run the broker;
#   - graphviz: `dot` lays out the topology pictures (tests/topology_picture.rs checks it can);
#   - chromium: the status page's browser test (tests/status_page.rs) loads it headless.
# Needs Rust (cargo) 1.95 or newer, from rustup.
#
# A broker it starts itself begins from empty storage (`scripts/kafka.sh reset`) and is stopped at
# the end; a broker that already answers on the test port with the listeners the tests need is
# used as it is and left running (see step 3).
#
# Before the broker starts it runs the house rules as gates (skip them with DEKAF_SKIP_GATES=1 while
# iterating): `cargo fmt --check`, `cargo clippy --workspace --all-targets -D warnings` and
# `cargo doc --no-deps` with warnings denied. A gate that fails fails the command.
#
# The broker it starts also has the secured listeners (DEKAF_KAFKA_SECURE=1 of scripts/kafka.sh:
# SSL on port+2, SASL_SSL on port+3, with a test CA made by openssl) for the security tests.
#
# Environment: DEKAF_TEST_KAFKA_PORT (the tests' broker port, default 19092: not the demo's 9092),
# DEKAF_CACHE_DIR (see scripts/kafka.sh).
# The tests find the broker through DEKAF_BOOTSTRAP, and the secured listeners through
# DEKAF_SSL_BOOTSTRAP, DEKAF_SASL_SSL_BOOTSTRAP and DEKAF_TLS_DIR, which this script exports
# (`scripts/kafka.sh env` prints them).
# It also starts a schema registry (scripts/registry.sh: Apicurio Registry on DEKAF_REGISTRY_PORT,
# default 8480, Java 21+) when none answers, for the schema registry tests (features `avro`,
# `protobuf`, `json-schema`, on in the full run), and stops it at the end if it started it.
# It also starts the replicated 3-node cluster of the fault tests on DEKAF_CLUSTER_PORT
# (default 9192..9197, SASL_SSL on 9202..9204) and runs DEKAF_FAULT_LOOP_RUNS (default 2) runs of
# the mixed fault loop over SASL_SSL at the end (exactly-once, then at-least-once).
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[test.sh] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root (or sudo) to run: $*"
  fi
}

started=$SECONDS
# The schema registry serdes (Avro, Protobuf, JSON Schema) and their tests (a schema registry is
# started for them below), and the query server's Prometheus endpoint (`prometheus`, which
# implies `http`; the examples' tests also turn both on), and the word-count service example
# (`service`): every optional feature the gates and the full run build.
FEATURES="dekaf-streams/avro,dekaf-streams-examples/avro,dekaf-streams/protobuf,dekaf-streams-examples/protobuf,dekaf-streams/json-schema,dekaf-streams-examples/json-schema,dekaf-streams/prometheus,dekaf-streams-examples/service,dekaf-streams-harness/avro,dekaf-streams-harness/protobuf,dekaf-streams-harness/json-schema"

# 1. Build dependencies of rdkafka's bundled librdkafka, graphviz and chromium.
missing=()
for pkg in build-essential pkg-config cmake libssl-dev libcurl4-openssl-dev zlib1g-dev graphviz chromium; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || die "install these packages (or their equivalents): ${missing[*]}"
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v cargo >/dev/null || die "cargo not found: install Rust 1.95+ with rustup (https://rustup.rs)"

# 2. The house rules, before anything slow: formatting, lints, documentation.
if [ -z "${DEKAF_SKIP_GATES:-}" ]; then
  gates_started=$SECONDS
  cargo fmt --version >/dev/null 2>&1 || die "rustfmt missing: rustup component add rustfmt"
  cargo clippy --version >/dev/null 2>&1 || die "clippy missing: rustup component add clippy"
  cargo fmt --all -- --check || die "cargo fmt --check: run \`cargo fmt --all\` and commit"
  cargo clippy --workspace --all-targets --features "$FEATURES" -- -D warnings || die "clippy found warnings (denied)"
  # The runtime without its `kafka` feature (no librdkafka): stores, serdes, TestDriver.
  cargo clippy -p dekaf-streams --no-default-features --all-targets -- -D warnings \
    || die "dekaf-streams without the kafka feature: clippy found warnings or errors"
  RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --features "$FEATURES" \
    || die "cargo doc found warnings (denied): fix the rustdoc"
  say "gates (fmt, clippy, doc) took $((SECONDS - gates_started))s"
fi

# What this script started, it stops at the end.
stop_broker=""
stop_cluster=""
stop_registry=""
cleanup() {
  if [ -n "$stop_cluster" ]; then cluster stop; fi
  if [ -n "$stop_broker" ]; then bash scripts/kafka.sh stop; fi
  if [ -n "$stop_registry" ]; then bash scripts/registry.sh stop; fi
}
trap cleanup EXIT

# 3. The broker (Java and Maven are installed by kafka.sh when missing). The tests have a broker of
# their own, on their own port (DEKAF_TEST_KAFKA_PORT, default 19092): the demo's broker, or any
# other a user runs on 9092, is never reused, so the README's two commands work in either order.
# A broker already on the test port is used only when it has every listener the tests need
# (SSL, SASL_SSL, PROXIED); one of ours that lacks them is restarted with them, a foreign one
# stops this script with what to do.
export DEKAF_KAFKA_PORT="${DEKAF_TEST_KAFKA_PORT:-19092}"
has_test_listeners() {
  local env
  env="$(bash scripts/kafka.sh env)" || return 1
  grep -q DEKAF_SASL_SSL_BOOTSTRAP <<<"$env" && grep -q DEKAF_PROXIED_LISTENER <<<"$env"
}
if broker_state="$(bash scripts/kafka.sh status 2>&1)"; then
  if has_test_listeners; then
    say "a broker with the tests' listeners already runs on port $DEKAF_KAFKA_PORT; using it and leaving it running"
  elif [[ "$broker_state" == running:* ]]; then
    say "the broker of ours on port $DEKAF_KAFKA_PORT lacks the secured or proxied listeners; restarting it from empty storage with them"
    bash scripts/kafka.sh stop
    bash scripts/kafka.sh reset
    DEKAF_KAFKA_SECURE=1 bash scripts/kafka.sh start
    stop_broker=1
  else
    die "port $DEKAF_KAFKA_PORT: $broker_state, without the listeners the tests need (SSL, SASL_SSL, PROXIED); stop it, or set DEKAF_TEST_KAFKA_PORT to a free port"
  fi
else
  # A broker of its own starts from empty storage: no topics or groups of earlier runs.
  bash scripts/kafka.sh reset
  DEKAF_KAFKA_SECURE=1 bash scripts/kafka.sh start
  stop_broker=1
fi
eval "$(bash scripts/kafka.sh env)"

# 3a. The schema registry of the Avro, Protobuf and JSON Schema tests (in memory: a registry of its own starts empty).
if bash scripts/registry.sh status >/dev/null 2>&1; then
  say "a schema registry already answers; using it and leaving it running"
else
  stop_registry=1
  bash scripts/registry.sh start
fi
eval "$(bash scripts/registry.sh env)"

# 3b. The replicated 3-node cluster of the fault tests (examples/harness/tests/cluster_faults.rs and the
# fault-kill-loop), on its own ports (DEKAF_CLUSTER_PORT, default 9192: nodes on 9192/9194/9196).
export DEKAF_CLUSTER_PORT="${DEKAF_CLUSTER_PORT:-9192}"
cluster() { DEKAF_KAFKA_PORT="$DEKAF_CLUSTER_PORT" bash scripts/kafka.sh "$@" --brokers 3; }
if cluster status >/dev/null 2>&1; then
  say "the 3-node cluster already runs on $DEKAF_CLUSTER_PORT; using it and leaving it running"
else
  cluster reset
  cluster start
  stop_cluster=1
fi
say "set-up took $((SECONDS - started))s; DEKAF_BOOTSTRAP=$DEKAF_BOOTSTRAP DEKAF_SASL_SSL_BOOTSTRAP=${DEKAF_SASL_SSL_BOOTSTRAP:-none}"

# 4. The tests. Those on the 3-node cluster (examples/harness/tests/cluster_faults.rs, then a short run of
# the mixed fault loop) run beside the others, which use only the single broker and the registry:
# the cluster's faults never touch them, and most of both is waiting on brokers, so running them
# side by side takes about the time of the longer of the two.
tests_started=$SECONDS
status=0
bin="${CARGO_TARGET_DIR:-target}/debug"

# The cluster's tests and loop, in the background (their output is printed once both are done):
# the cluster_faults binary of this build, one test at a time (each fault hits the whole
# cluster), then the mixed fault loop over SASL_SSL: instance SIGKILLs and SIGKILLs of input
# leaders and group and transaction coordinators' brokers (the full one, which alternates
# plaintext and SASL_SSL: fault-kill-loop --mixed 30). The loop's binaries are those the tests
# built: a `cargo run` with another feature set would build them a second time.
cluster_job() {
  local job_status=0 job_started=$SECONDS
  if [ -n "$1" ]; then
    (cd examples/harness && "$1" --test-threads 1) || job_status=$?
    say "cluster_faults took $((SECONDS - job_started))s (exit $job_status)"
  fi
  local loop_started=$SECONDS
  "$bin/fault-kill-loop" --mixed --security sasl_ssl "${DEKAF_FAULT_LOOP_RUNS:-2}" || job_status=$?
  say "fault-kill-loop took $((SECONDS - loop_started))s (exit $job_status)"
  return "$job_status"
}

if [ "$#" -eq 0 ]; then
  # The differential suite's Java side (Kafka Streams' TopologyTestDriver, examples/parity): its
  # expected outputs, which the workspace's tests then compare record by record.
  if bash scripts/parity.sh java; then export PARITY_SKIP_JAVA=1; else status=$?; fi
  # Everything is built once, first: the cluster job runs binaries of this build.
  build_log="$(mktemp)"
  if ! cargo test --workspace --features "$FEATURES" --no-run 2>&1 | tee "$build_log" >&2; then
    die "the tests did not build (above)"
  fi
  test_binary() { # the executable of examples/harness/tests/$1.rs in this build
    local path
    path="$(sed -n "s|^ *Executable tests/$1.rs (\(.*\))\$|\1|p" "$build_log" | head -n1)"
    [ -n "$path" ] || die "the build named no $1 binary"
    case "$path" in /*) echo "$path" ;; *) echo "$PWD/$path" ;; esac
  }
  cluster_tests="$(test_binary cluster_faults)"
  proxy_tests="$(test_binary network_faults)"
  rm -f "$build_log"
  cluster_log="$(mktemp)"
  cluster_job "$cluster_tests" >"$cluster_log" 2>&1 &
  cluster_pid=$!
  # The network-fault tests (examples/harness/tests/network_faults.rs, `on_the_proxy::…`) share
  # the broker's proxied listener and run one at a time, mostly waiting for timeouts: beside the
  # others too, instead of adding their minutes to the main run.
  proxy_log="$(mktemp)"
  (
    proxy_started=$SECONDS proxy_status=0
    (cd examples/harness && "$proxy_tests" --test-threads 1 on_the_proxy::) || proxy_status=$?
    say "network_faults took $((SECONDS - proxy_started))s (exit $proxy_status)"
    exit "$proxy_status"
  ) >"$proxy_log" 2>&1 &
  proxy_pid=$!
  # --no-fail-fast: one failing test binary does not hide the results of the others.
  cargo test --workspace --features "$FEATURES" --no-fail-fast -- --skip on_the_cluster:: --skip on_the_proxy:: || status=$?
  # The runtime without its `kafka` feature, as a crate that only unit-tests topologies uses it:
  # its unit tests, the LMDB test and the doctests (a doctest that needs Kafka says so with a cfg).
  cargo test -p dekaf-streams --no-default-features --no-fail-fast || status=$?
  say "cargo test took $((SECONDS - tests_started))s (exit $status); waiting for the network-fault and cluster tests"
  proxy_status=0
  wait "$proxy_pid" || proxy_status=$?
  say "the network-fault tests (run beside the others) printed:"
  cat "$proxy_log" >&2
  rm -f "$proxy_log"
  [ "$proxy_status" -eq 0 ] || status=$proxy_status
  cluster_status=0
  wait "$cluster_pid" || cluster_status=$?
  say "the cluster's tests and fault loop (run beside the others) printed:"
  cat "$cluster_log" >&2
  rm -f "$cluster_log"
  [ "$cluster_status" -eq 0 ] || status=$cluster_status
else
  cargo test --workspace --no-fail-fast "$@" || status=$?
  if [ ! -x "$bin/fault-kill-loop" ] || [ ! -x "$bin/fault-instance" ]; then
    cargo build -q -p dekaf-streams-harness --bin fault-kill-loop --bin fault-instance || status=$?
  fi
  cluster_job "" || status=$?
fi
say "the tests took $((SECONDS - tests_started))s (exit $status); $((SECONDS - started))s in all"
say "disk: target/ takes $(du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null | cut -f1); $(df -h . | awk 'NR==2 {print $4}') left"
if [ "$status" -ne 0 ]; then
  say "the broker's log: $(bash scripts/kafka.sh log 0 2>&1 | head -n1)"
fi
exit "$status"
