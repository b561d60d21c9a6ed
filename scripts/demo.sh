#!/usr/bin/env bash
# The demo command of dekaf-streams: word count on a real Apache Kafka 4.4 broker.
#
#   1. starts a single-node broker on 127.0.0.1 (scripts/kafka.sh: installs Java and Maven when
#      missing, resolves the broker's jars from Maven Central once);
#   2. builds the examples (rdkafka's bundled librdkafka needs build-essential, cmake,
#      libssl-dev, libcurl4-openssl-dev, zlib1g-dev: installed when missing);
#   3. creates the topics `sentences` and `word-counts` afresh and produces sample sentences;
#   4. runs the word-count example (examples/src/word_count.rs) as a member of the streams group
#      `word-count`, exactly-once, until the counts of every word are committed;
#   5. prints the counts as an independent read_committed consumer sees them, and stops the app
#      (which commits, closes its tasks and leaves the group).
#
# The broker keeps running afterwards (stop it with `scripts/kafka.sh stop`).
# Environment: DEKAF_KAFKA_PORT (default 9092), DEKAF_CACHE_DIR (see scripts/kafka.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
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

say "building the examples (the first build compiles librdkafka: a few minutes)"
cargo build -q -p dekaf-streams-examples --bin word-count
cargo build -q -p dekaf-streams-harness --bin demo-io
bin="${CARGO_TARGET_DIR:-target}/debug"

"$bin/demo-io" setup
say "starting word-count (logs in $bin/demo-word-count.log)"
RUST_LOG="${RUST_LOG:-info,rdkafka=warn}" "$bin/word-count" >"$bin/demo-word-count.log" 2>&1 &
app=$!
trap 'kill -TERM $app 2>/dev/null || true' EXIT
"$bin/demo-io" counts
kill -TERM "$app"
wait "$app" && say "word-count committed, closed its tasks and left the group" \
  || { say "word-count failed; its log:"; tail -n 20 "$bin/demo-word-count.log" >&2; exit 1; }
trap - EXIT
