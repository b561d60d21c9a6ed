#!/usr/bin/env bash
# The demo command of dekaf-streams: starts a single-node Apache Kafka 4.4 broker on 127.0.0.1
# (as scripts/kafka.sh; installs Java and Maven when missing, resolves the broker's jars from
# Maven Central once) and runs the demo. For now the demo shows streams-group membership: two
# members join the group of a word-count-shaped topology, get their tasks, rebalance and leave.
# The broker keeps running afterwards (stop it with `scripts/kafka.sh stop`).
#
# Environment: DEKAF_KAFKA_PORT (default 9092), DEKAF_CACHE_DIR (see scripts/kafka.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEKAF_KAFKA_PORT="${DEKAF_KAFKA_PORT:-9092}"
bash scripts/kafka.sh start
export DEKAF_BOOTSTRAP="127.0.0.1:$DEKAF_KAFKA_PORT"
cargo run -q -p dekaf-streams --example streams_member
