#!/usr/bin/env bash
# A schema registry for tests and the demo: Apicurio Registry 3 (a Quarkus application from Maven
# Central, io.apicurio:apicurio-registry-app:3.3.3, classifier `all`, type tar.gz) with in-memory
# storage on 127.0.0.1. It serves the Confluent-compatible API under /apis/ccompat/v7.
#
#   scripts/registry.sh start    resolve the application (first run only), start it and wait
#                                until its Confluent API answers
#   scripts/registry.sh stop     stop the registry started by this script (by its pid)
#   scripts/registry.sh status   say whether it runs, where, and where its log is
#   scripts/registry.sh log      print the tail of its log
#   scripts/registry.sh env      print the exports that point tests at it (DEKAF_REGISTRY_URL)
#
# Environment:
#   DEKAF_REGISTRY_PORT   HTTP port (default 8480); its management interface (health) takes the
#                         next port
#   DEKAF_CACHE_DIR       where the application and its logs live (default ~/.cache/dekaf-streams,
#                         as scripts/kafka.sh)
#   DEKAF_REGISTRY_JAVA   a java binary of Java 21+ (default: the newest JDK 21+ found under
#                         /usr/lib/jvm or /opt, else `java` on the PATH if it is 21+)
#   DEKAF_REGISTRY_START_TIMEOUT  seconds to wait for it to answer (default 120)
#
# The storage is in memory: every start is an empty registry.
#
# Apicurio's differences from Confluent's Schema Registry met so far (ccompat v7 API):
# - the default compatibility is NONE (Confluent's is BACKWARD): `GET /config` answers
#   {"compatibilityLevel":"NONE"}; tests that need a check set it per subject
#   (PUT /config/<subject> {"compatibility":"BACKWARD"});
# - schema ids of the Confluent API are Apicurio's content ids: the same schema text under two
#   subjects has one id, as with Confluent, and Apicurio's Java serdes write the same ids with
#   `apicurio.registry.use-id=contentId` (their default in 3.x, with the 4-byte id handler);
# - Apicurio's Java serdes do not use the Confluent API but Apicurio's own (/apis/registry/v3); a
#   subject of the Confluent API is an artifact of group `default` there, so both see the same
#   schemas;
# - errors carry Confluent's codes (40401 subject not found, 40403 schema not found);
# - Protobuf: the schema text is kept as registered (not normalized), `references` are accepted
#   and returned by /schemas/ids/<id> and /subjects/<s>/versions/<v>, and well-known
#   google/protobuf/* imports need no reference; Apicurio's Java Protobuf serdes (3.1.7) write a
#   `Ref` message with the type name after the id by default, and Confluent's message indexes
#   (zigzag varints, [0] written in full as 2 0) only with apicurio.registry.serde.send-indexes=true
#   and send-type-ref=false; their deserializer (read-indexes=true, read-type-ref=false) skips the
#   indexes and needs the message's name (setMessageTypeName) to decode; the text their
#   serializer registers is printed by Square's Wire ("// Proto schema formatted by Wire");
# - JSON Schema: Apicurio's Java serdes validate (networknt) and cannot derive a schema from a
#   Jackson node: they write with the subject's latest schema (apicurio.registry.find-latest=true).
set -euo pipefail

APP_VERSION=3.3.3
PORT="${DEKAF_REGISTRY_PORT:-8480}"
CACHE_ROOT="${DEKAF_CACHE_DIR:-$HOME/.cache/dekaf-streams}"
DIST="$CACHE_ROOT/apicurio-registry-$APP_VERSION"
RUN="$CACHE_ROOT/registry-$PORT"
LOGS="$RUN/logs"
PIDFILE="$RUN/registry.pid"
START_TIMEOUT="${DEKAF_REGISTRY_START_TIMEOUT:-120}"
HEAP="${DEKAF_REGISTRY_HEAP:--Xms64m -Xmx512m}"

say() { printf '[registry.sh] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

java_major_of() {
  "$1" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -n1
}

# A java of version 21 or newer: DEKAF_REGISTRY_JAVA, else the newest JDK under /usr/lib/jvm or
# /opt (the machines have a Temurin 25 JDK beside the system's OpenJDK 17), else `java`.
find_java() {
  if [ -n "${DEKAF_REGISTRY_JAVA:-}" ]; then
    echo "$DEKAF_REGISTRY_JAVA"
    return
  fi
  local best="" best_major=0 candidate major
  for candidate in /usr/lib/jvm/*/bin/java /opt/*/bin/java /opt/*/*/bin/java "$(command -v java || true)"; do
    [ -x "$candidate" ] || continue
    major="$(java_major_of "$candidate")"
    [ -n "$major" ] || continue
    if [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  [ -n "$best" ] || die "Apicurio Registry 3 needs Java 21+: none found under /usr/lib/jvm or /opt (set DEKAF_REGISTRY_JAVA)"
  echo "$best"
}

ensure_maven() {
  command -v mvn >/dev/null && return
  say "installing Maven from Debian's packages"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven >/dev/null
}

# Resolves the application's tar.gz with Maven (through a settings file whose mirror sends every
# repository to Maven Central) and unpacks it into $DIST, once.
resolve_app() {
  [ -f "$DIST/.complete" ] && [ -f "$DIST/quarkus-run.jar" ] && return
  ensure_maven
  say "resolving io.apicurio:apicurio-registry-app:$APP_VERSION (all, tar.gz) from Maven Central into $DIST"
  mkdir -p "$CACHE_ROOT"
  rm -rf "$DIST.tmp"
  mkdir -p "$DIST.tmp"
  cat >"$DIST.tmp/settings.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by dekaf-streams scripts/registry.sh: every repository through Maven Central. -->
<settings>
  <mirrors>
    <mirror>
      <id>central-for-all</id>
      <mirrorOf>*</mirrorOf>
      <url>https://repo.maven.apache.org/maven2</url>
    </mirror>
  </mirrors>
</settings>
EOF
  if ! mvn -B -q -s "$DIST.tmp/settings.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy \
      -Dartifact="io.apicurio:apicurio-registry-app:$APP_VERSION:tar.gz:all" \
      -DoutputDirectory="$DIST.tmp" >"$DIST.tmp/mvn.log" 2>&1; then
    tail -n 40 "$DIST.tmp/mvn.log" >&2
    die "Maven could not resolve the registry (full log: $DIST.tmp/mvn.log)"
  fi
  tar xzf "$DIST.tmp/apicurio-registry-app-$APP_VERSION-all.tar.gz" -C "$DIST.tmp" \
    || die "could not unpack the registry's tar.gz"
  rm -f "$DIST.tmp/apicurio-registry-app-$APP_VERSION-all.tar.gz"
  [ -f "$DIST.tmp/quarkus-run.jar" ] || die "quarkus-run.jar missing from the registry's tar.gz"
  rm -rf "$DIST"
  mv "$DIST.tmp" "$DIST"
  touch "$DIST/.complete"
}

# The pid of the registry this script started, if it still runs.
running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] \
      && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "quarkus.http.port=$PORT .*quarkus-run.jar"; then
    echo "$pid"
    return 0
  fi
  return 1
}

# True when the Confluent API answers on the port.
answers() {
  curl -fsS --max-time 3 "http://127.0.0.1:$PORT/apis/ccompat/v7/subjects" >/dev/null 2>&1
}

print_log_tail() {
  say "last lines of $LOGS/registry.log:"
  tail -n "${1:-40}" "$LOGS/registry.log" >&2 2>/dev/null || true
}

start() {
  mkdir -p "$RUN" "$LOGS"
  exec 9>"$RUN/lock"
  flock 9
  local pid
  if pid="$(running_pid)"; then
    if answers; then
      say "already running: pid $pid on 127.0.0.1:$PORT (log: $LOGS/registry.log)"
      return 0
    fi
    say "pid $pid runs but does not answer yet; waiting"
  else
    rm -f "$PIDFILE"
    if answers; then
      say "a registry not started by this script already answers on 127.0.0.1:$PORT; using it"
      return 0
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      die "port $PORT is taken by something that is not a schema registry; set DEKAF_REGISTRY_PORT"
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$((PORT + 1))") 2>/dev/null; then
      die "port $((PORT + 1)) (the registry's management interface, port + 1) is taken; set DEKAF_REGISTRY_PORT to a port whose next port is free too"
    fi
    command -v curl >/dev/null || die "curl is needed to see when the registry answers"
    resolve_app
    local java
    java="$(find_java)"
    say "starting Apicurio Registry $APP_VERSION on 127.0.0.1:$PORT with $java (Java $(java_major_of "$java"))"
    [ -f "$LOGS/registry.log" ] && mv -f "$LOGS/registry.log" "$LOGS/registry.log.1"
    # Its own session (a Ctrl-C in this shell does not reach it); the shell that execs the JVM
    # writes its own pid, which becomes the JVM's. H2 in memory is the default storage.
    # Quarkus' management interface (health, metrics) listens on *:9000 by default: a second
    # registry, or anything else on 9000, made the start fail ("Address already in use"). It
    # goes on 127.0.0.1, port+1.
    # shellcheck disable=SC2086
    nohup setsid bash -c 'echo $$ >"$0"; cd "$1"; shift; exec "$@"' "$PIDFILE" "$DIST" \
      "$java" $HEAP -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$PORT" \
      -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$((PORT + 1))" \
      -Dapicurio.storage.kind=sql -Dapicurio.storage.sql.kind=h2 \
      -Dquarkus.log.level=INFO -jar "$DIST/quarkus-run.jar" >>"$LOGS/registry.log" 2>&1 </dev/null 9>&- &
    local waited=0
    until [ -s "$PIDFILE" ]; do
      ((waited++ < 100)) || die "the registry did not start (see $LOGS/registry.log)"
      sleep 0.05
    done
    pid="$(cat "$PIDFILE")"
  fi
  local started=$SECONDS
  until answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDFILE"
      print_log_tail
      die "the registry exited during start-up"
    fi
    if ((SECONDS - started > START_TIMEOUT)); then
      print_log_tail
      die "the registry did not answer on 127.0.0.1:$PORT within ${START_TIMEOUT}s (pid $pid still runs; stop it with: $0 stop)"
    fi
    sleep 0.5
  done
  say "ready after $((SECONDS - started))s: http://127.0.0.1:$PORT/apis/ccompat/v7, pid $pid, log $LOGS/registry.log"
}

stop() {
  mkdir -p "$RUN"
  exec 9>"$RUN/lock"
  flock 9
  local pid
  if ! pid="$(running_pid)"; then
    say "not running (no registry of ours on port $PORT)"
    rm -f "$PIDFILE"
    return 0
  fi
  say "stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local waited=0
  while kill -0 "$pid" 2>/dev/null; do
    if ((waited >= 60)); then
      say "pid $pid still runs after 30s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.5
      break
    fi
    sleep 0.5
    waited=$((waited + 1))
  done
  rm -f "$PIDFILE"
  say "stopped"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    if answers; then
      echo "running: pid $pid on http://127.0.0.1:$PORT/apis/ccompat/v7; log $LOGS/registry.log"
    else
      echo "starting or unresponsive: pid $pid on 127.0.0.1:$PORT; log $LOGS/registry.log"
    fi
  elif answers; then
    echo "a registry not started by this script answers on 127.0.0.1:$PORT"
  else
    echo "not running (port $PORT); log $LOGS/registry.log"
    return 3
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export DEKAF_REGISTRY_URL=http://127.0.0.1:$PORT/apis/ccompat/v7" ;;
  log) echo "$LOGS/registry.log" >&2; tail -n "${2:-100}" "$LOGS/registry.log" ;;
  *)
    echo "usage: $0 start|stop|status|env|log [lines]" >&2
    exit 2
    ;;
esac
