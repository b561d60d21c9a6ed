#!/usr/bin/env bash
# The demo command of dekaf-streams: word count on a real Apache Kafka 4.4 broker.
#
#   scripts/demo.sh           word count over UTF-8 text (examples/src/word_count.rs)
#   scripts/demo.sh --avro    word count over Avro records through a schema registry
#                             (examples/src/avro_words.rs)
#
#   1. starts a single-node broker on 127.0.0.1 (scripts/kafka.sh: installs Java and Maven when
#      missing, resolves the broker's jars from Maven Central once); with --avro also a schema
#      registry (scripts/registry.sh: Apicurio Registry 3.3.3 from Maven Central, in memory,
#      Java 21+), each only when none runs on its port;
#   2. builds the examples (rdkafka's bundled librdkafka needs build-essential, cmake,
#      libssl-dev, libcurl4-openssl-dev, zlib1g-dev: installed when missing);
#   3. creates the topics `sentences` and `word-counts` (--avro: `avro-wc-sentences` and
#      `avro-wc-counts`) afresh and produces sample sentences (--avro: Avro records of
#      `dekaf.it.Sentence` version 1, `{text}`, in the Confluent wire format, their schema
#      registered under `avro-wc-sentences-value`);
#   4. runs the word-count example as a member of the streams group `word-count` (--avro:
#      `avro-wc`, which reads the version-1 sentences as its version 2 and writes Avro
#      `dekaf.it.WordCount` records), exactly-once, until the counts of every word are committed;
#   5. prints the counts as an independent read_committed consumer sees them (--avro: decoded
#      with the writer's schema fetched from the registry by id), and stops the app (which
#      commits, closes its tasks and leaves the group).
#
# The broker and the registry keep running afterwards (stop them with `scripts/kafka.sh stop`,
# `scripts/registry.sh stop`; each stops only one it started).
# Environment: DEKAF_KAFKA_PORT (default 9092), DEKAF_REGISTRY_PORT (default 8480),
# DEKAF_CACHE_DIR (see scripts/kafka.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
avro=""
case "${1:-}" in
  "") ;;
  --avro) avro=1 ;;
  *) echo "usage: $0 [--avro]" >&2; exit 2 ;;
esac
export DEKAF_KAFKA_PORT="${DEKAF_KAFKA_PORT:-9092}"
say() { printf '[demo.sh] %s\n' "$*" >&2; }

missing=()
for pkg in build-essential pkg-config cmake libssl-dev libcurl4-openssl-dev zlib1g-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" = 0 ] || sudo_cmd=sudo
  $sudo_cmd apt-get update -qq
  $sudo_cmd env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

bash scripts/kafka.sh start
export DEKAF_BOOTSTRAP="127.0.0.1:$DEKAF_KAFKA_PORT"

if [ -n "$avro" ]; then
  bash scripts/registry.sh start
  eval "$(bash scripts/registry.sh env)"
  example=avro-word-count io=demo-io-avro features=(--features avro)
else
  example=word-count io=demo-io features=()
fi

say "building the examples (the first build compiles librdkafka: a few minutes)"
cargo build -q -p dekaf-streams-examples "${features[@]}" --bin "$example"
cargo build -q -p dekaf-streams-harness "${features[@]}" --bin "$io"
bin="${CARGO_TARGET_DIR:-target}/debug"

"$bin/$io" setup
say "starting $example (logs in $bin/demo-$example.log)"
RUST_LOG="${RUST_LOG:-info,rdkafka=warn}" "$bin/$example" >"$bin/demo-$example.log" 2>&1 &
app=$!
trap 'kill -TERM $app 2>/dev/null || true' EXIT
"$bin/$io" counts
kill -TERM "$app"
wait "$app" && say "$example committed, closed its tasks and left the group" \
  || { say "$example failed; its log:"; tail -n 20 "$bin/demo-$example.log" >&2; exit 1; }
trap - EXIT
