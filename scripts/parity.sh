#!/usr/bin/env bash
# The differential suite against Kafka Streams 4.4 (examples/parity, see its README.md).
#
#   scripts/parity.sh          the Java side, then the Rust side (cargo test -p dekaf-streams-parity;
#                              a plain `cargo test` of that crate runs the Java side itself)
#   scripts/parity.sh java     only the Java side: writes target/parity/expected/<case>.expected.jsonl
#
# The Java side needs Java 17+ and Maven: Maven resolves kafka-streams-test-utils 4.4.0 and its
# dependencies into target/parity/lib once (offline afterwards), javac compiles
# examples/parity/java/src/Parity.java, and it runs every case of examples/parity/cases.
# Builds use one job at low priority (CARGO_BUILD_JOBS=1, nice), as on the shared CI machine.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '[parity.sh] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

OUT="target/parity"
JAVA_DIR="examples/parity/java"

# Exit code 3: the Java side cannot run here (no JDK or Maven); the Rust test then skips outside
# CI and fails in CI.
unavailable() { say "$*"; exit 3; }

# Installs a JDK and Maven with apt-get in CI (a fresh Debian machine, as root), where
# scripts/test.sh installs its other packages too; elsewhere it only says what is missing.
ensure_tools() {
  local missing=()
  command -v javac >/dev/null || missing+=(javac)
  command -v mvn >/dev/null || missing+=(mvn)
  [ "${#missing[@]}" -eq 0 ] && return
  if [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    say "installing a JDK and Maven for the Java side (missing: ${missing[*]})"
    apt-get update -qq
    local jdk
    for jdk in openjdk-17-jdk-headless openjdk-21-jdk-headless default-jdk-headless; do
      if apt-cache show "$jdk" >/dev/null 2>&1; then break; fi
    done
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$jdk" maven >/dev/null \
      || die "apt-get could not install $jdk and maven"
    return
  fi
  unavailable "the Java side cannot run: ${missing[*]} not found (install a JDK 17+ and Maven, e.g. apt-get install openjdk-17-jdk-headless maven)"
}

java_side() {
  ensure_tools
  mkdir -p "$OUT"
  local key
  key="$(sha256sum "$JAVA_DIR/pom.xml" | cut -c1-16)"
  if [ ! -f "$OUT/lib/.complete" ] || [ "$(cat "$OUT/lib/.complete")" != "$key" ]; then
    say "resolving kafka-streams-test-utils 4.4.0 with Maven into $OUT/lib"
    rm -rf "$OUT/lib.tmp"
    if ! mvn -B -q -f "$JAVA_DIR/pom.xml" \
        org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$PWD/$OUT/lib.tmp" >"$OUT/mvn.log" 2>&1; then
      tail -n 40 "$OUT/mvn.log" >&2
      die "Maven could not resolve the Java side's jars (full log: $OUT/mvn.log)"
    fi
    rm -rf "$OUT/lib"
    mv "$OUT/lib.tmp" "$OUT/lib"
    echo "$key" >"$OUT/lib/.complete"
  fi
  rm -rf "$OUT/classes" "$OUT/expected.tmp"
  mkdir -p "$OUT/classes"
  javac -nowarn -d "$OUT/classes" -cp "$OUT/lib/*" "$JAVA_DIR/src/Parity.java"
  nice -n 10 java -cp "$OUT/lib/*:$OUT/classes" Parity examples/parity/cases "$OUT/expected.tmp"
  rm -rf "$OUT/expected"
  mv "$OUT/expected.tmp" "$OUT/expected"
}

case "${1:-all}" in
  java) java_side ;;
  all)
    java_side
    PARITY_SKIP_JAVA=1 CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}" nice -n 10 cargo test -p dekaf-streams-parity -- --nocapture
    ;;
  *) die "usage: scripts/parity.sh [java|all]" ;;
esac
