#!/usr/bin/env bash
# Builds the Kafka Streams benchmark application into one runnable jar with Maven (dependencies
# from Maven Central, every repository sent there by settings.xml):
# benches/kstreams/target/kstreams-bench.jar. Needs Java 17+ and Maven
# (scripts/kafka.sh installs both from Debian packages when missing).
set -euo pipefail
cd "$(dirname "$0")"
command -v mvn >/dev/null || { echo "build.sh: Maven (mvn) missing; run scripts/kafka.sh start once, or apt-get install maven" >&2; exit 1; }
jar=target/kstreams-bench.jar
# Rebuild only when a source is newer than the jar.
if [ -f "$jar" ] && [ -z "$(find pom.xml settings.xml src -newer "$jar" -print -quit)" ]; then
  echo "$PWD/$jar"
  exit 0
fi
if ! mvn -B -q -s settings.xml package >target-build.log 2>&1; then
  tail -n 40 target-build.log >&2
  echo "build.sh: Maven build failed (full log: $PWD/target-build.log)" >&2
  exit 1
fi
rm -f target-build.log
echo "$PWD/$jar"
