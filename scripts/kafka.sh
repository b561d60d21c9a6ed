#!/usr/bin/env bash
# A single-node Apache Kafka 4.4 broker (KRaft, broker+controller in one JVM) on 127.0.0.1,
# provisioned from Maven Central jars, for tests and the demo.
#
#   scripts/kafka.sh start    resolve the jars (first run only), format the storage (first run
#                             only), start the broker and wait until it answers requests
#   scripts/kafka.sh stop     stop the broker started by this script (by its pid)
#   scripts/kafka.sh status   say whether it runs, where, and where its log is
#   scripts/kafka.sh log      print the tail of the broker log
#   scripts/kafka.sh reset    stop it and delete its data (the next start formats afresh)
#   scripts/kafka.sh env      print the exports that point tests at the broker's listeners
#
# Secured listeners (opt-in: DEKAF_KAFKA_SECURE=1, or `start --secure`): besides PLAINTEXT, the
# broker then listens with
#   SSL       on port+2: mutual TLS, a client certificate signed by the test CA is required;
#   SASL_SSL  on port+3: SCRAM-SHA-512, PLAIN and OAUTHBEARER (the broker's unsecured JWT
#             validator: development only), sessions re-authenticated every 60 s (KIP-368).
# It generates a CA and the broker's and a client's certificates with openssl at the first start
# (in $DEKAF_CACHE_DIR/broker-<port>/tls: ca.pem, client.pem, client.key encrypted with the
# password in client.key.password), creates the SCRAM-SHA-512 users admin, alice and acl-app
# (passwords <name>-secret; PLAIN knows the same users), and enables the standard authorizer:
# User:admin and User:ANONYMOUS (PLAINTEXT) are super users, and a resource without ACLs is open
# to everyone, so only resources given ACLs (the ACL test's) are restricted.
#
#   scripts/kafka.sh start --brokers 3   a replicated 3-node cluster instead (RF 3, min ISR 2), with
#                             per-node kill-node/stop-node/start-node I and SASL_SSL listeners
#                             (`env --brokers 3` prints them): see scripts/kafka-cluster.sh
#
# Environment:
#   DEKAF_KAFKA_PORT    client port (default 9092); the controller listens on the next port
#   DEKAF_CACHE_DIR     where jars and broker state live (default ~/.cache/dekaf-streams)
#   DEKAF_KAFKA_HEAP    JVM heap options (default "-Xms256m -Xmx1g")
#   DEKAF_KAFKA_START_TIMEOUT  seconds to wait for the broker to answer (default 120)
#   DEKAF_KAFKA_SECURE  1: also start the SSL and SASL_SSL listeners (see above)
#
# Java 17+ and Maven are installed from Debian packages when missing (needs root or sudo).
set -euo pipefail

KAFKA_VERSION=4.4.0
SCALA_VERSION=2.13
LOG4J_VERSION=2.24.3
SLF4J_VERSION=2.0.17

# Changing any version re-resolves the jars.
JARS_KEY="kafka_$SCALA_VERSION-$KAFKA_VERSION log4j-$LOG4J_VERSION slf4j-$SLF4J_VERSION"

PORT="${DEKAF_KAFKA_PORT:-9092}"
CONTROLLER_PORT=$((PORT + 1))
CACHE_ROOT="${DEKAF_CACHE_DIR:-$HOME/.cache/dekaf-streams}"
DIST="$CACHE_ROOT/kafka-$KAFKA_VERSION"
LIBS="$DIST/libs"
RUN="$CACHE_ROOT/broker-$PORT"
DATA="$RUN/data"
LOGS="$RUN/logs"
PIDFILE="$RUN/broker.pid"
PROPS="$RUN/server.properties"
LOG4J_CONF="$RUN/log4j2.properties"
HEAP="${DEKAF_KAFKA_HEAP:--Xms256m -Xmx1g}"
# The JVM options Apache Kafka's bin/kafka-run-class.sh gives a broker (KAFKA_JVM_PERFORMANCE_OPTS):
# G1 aiming at 20 ms pauses. Without MaxGCPauseMillis=20, G1 aims at 200 ms, and its young
# pauses of 60-85 ms held commits and produce acks of the benchmarks' live phase (matched with
# the GC log on 5 December 2026).
JVM_OPTS="-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true"
START_TIMEOUT="${DEKAF_KAFKA_START_TIMEOUT:-120}"
SECURE="${DEKAF_KAFKA_SECURE:-0}"
SSL_PORT=$((PORT + 2))
SASL_SSL_PORT=$((PORT + 3))
PROXIED_PORT=$((PORT + 4))
PROXY_PORT=$((PORT + 5))
TLS="$RUN/tls"
MODE_FILE="$RUN/mode"
SCRAM_USERS="admin alice acl-app"

say() { printf '[kafka.sh] %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root (or sudo) to run: $*"
  fi
}

apt_updated=""
apt_update_once() {
  command -v apt-get >/dev/null || die "apt-get not found; install Java 17+ and Maven yourself"
  if [ -z "$apt_updated" ]; then
    as_root apt-get update -qq
    apt_updated=1
  fi
}
apt_install() {
  apt_update_once
  say "installing Debian packages: $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

java_major() {
  java -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -n1
}

ensure_java() {
  if ! command -v java >/dev/null || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
    # Debian 12 ships OpenJDK 17, Debian 13 OpenJDK 21: take the first one the mirror has.
    apt_update_once
    local pkg
    for pkg in openjdk-17-jre-headless openjdk-21-jre-headless default-jre-headless; do
      if apt-cache show "$pkg" >/dev/null 2>&1; then
        apt_install "$pkg"
        break
      fi
    done
  fi
  local major
  major="$(java_major)"
  [ -n "$major" ] && [ "$major" -ge 17 ] || die "Kafka $KAFKA_VERSION needs Java 17+, found: $(java -version 2>&1 | head -n1)"
}

ensure_maven() {
  command -v mvn >/dev/null || apt_install maven
}

# Resolves kafka_2.13 and log4j2 with Maven into $LIBS, once.
resolve_jars() {
  if [ -f "$LIBS/.complete" ] && [ "$(cat "$LIBS/.complete")" = "$JARS_KEY" ]; then return; fi
  ensure_java
  ensure_maven
  say "resolving org.apache.kafka:kafka_$SCALA_VERSION:$KAFKA_VERSION and log4j2 $LOG4J_VERSION from Maven Central into $LIBS"
  mkdir -p "$DIST"
  cat >"$DIST/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by dekaf-streams scripts/kafka.sh: the jars of a Kafka broker. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dekaf-streams</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>$KAFKA_VERSION</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_$SCALA_VERSION</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <!-- kafka_2.13 brings slf4j-api 1.7, which log4j-slf4j2-impl does not bind to. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-api</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-core</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.logging.log4j</groupId>
      <artifactId>log4j-slf4j2-impl</artifactId>
      <version>$LOG4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
  rm -rf "$LIBS.tmp"
  if ! mvn -B -q -f "$DIST/pom.xml" \
      org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$LIBS.tmp" >"$DIST/mvn.log" 2>&1; then
    tail -n 40 "$DIST/mvn.log" >&2
    die "Maven could not resolve the broker jars (full log: $DIST/mvn.log)"
  fi
  ls "$LIBS.tmp"/kafka_"$SCALA_VERSION"-"$KAFKA_VERSION".jar >/dev/null 2>&1 \
    || die "kafka_$SCALA_VERSION-$KAFKA_VERSION.jar missing after resolution (see $DIST/mvn.log)"
  rm -rf "$LIBS"
  mv "$LIBS.tmp" "$LIBS"
  echo "$JARS_KEY" >"$LIBS/.complete"
  say "resolved $(ls "$LIBS" | wc -l) jars"
}

# The test CA, the broker's certificate (for 127.0.0.1 and localhost) and a client certificate
# whose key is encrypted (PKCS#8, AES-256), made once per broker directory.
make_certificates() {
  [ -f "$TLS/.complete" ] && return
  command -v openssl >/dev/null || apt_install openssl
  say "generating a test CA and certificates in $TLS"
  rm -rf "$TLS"
  mkdir -p "$TLS"
  (
    cd "$TLS"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 3650 \
      -subj "/CN=dekaf-streams test CA" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n' >broker.ext
    openssl req -newkey rsa:2048 -nodes -keyout broker.key -out broker.csr -subj "/CN=localhost" 2>/dev/null
    openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile broker.ext -out broker.crt 2>/dev/null
    # Kafka's PEM keystore: the (unencrypted PKCS#8) key and the certificate in one file.
    cat broker.key broker.crt >broker.pem
    printf 'basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n' >client.ext
    openssl req -newkey rsa:2048 -nodes -keyout client.plain.key -out client.csr \
      -subj "/CN=dekaf-client" 2>/dev/null
    openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile client.ext -out client.pem 2>/dev/null
    echo client-key-secret >client.key.password
    openssl pkcs8 -topk8 -v2 aes-256-cbc -in client.plain.key -out client.key \
      -passout file:client.key.password
    rm -f client.plain.key ./*.csr ./*.srl ./*.ext
  ) || die "openssl could not make the test certificates in $TLS"
  touch "$TLS/.complete"
}

secure_config() {
  secure_listener_config
  cat <<EOF
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:admin;User:ANONYMOUS
allow.everyone.if.no.acl.found=true
EOF
}

# The TLS and SASL settings of the SSL and SASL_SSL listeners (the single broker's and each
# cluster node's): the broker's PEM keystore and the test CA of make_certificates, the
# SCRAM-SHA-512/PLAIN/OAUTHBEARER mechanisms, sessions re-authenticated every 60 s.
secure_listener_config() {
  local plain_users="" user
  for user in $SCRAM_USERS; do plain_users="$plain_users user_$user=\"$user-secret\""; done
  cat <<EOF
# Secured listeners.
ssl.keystore.type=PEM
ssl.keystore.location=$TLS/broker.pem
ssl.truststore.type=PEM
ssl.truststore.location=$TLS/ca.pem
listener.name.ssl.ssl.client.auth=required
listener.name.sasl_ssl.sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN,OAUTHBEARER
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret"$plain_users;
listener.name.sasl_ssl.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="admin";
# Sessions end after 60 s (or at the token's expiry) unless the client re-authenticates (KIP-368).
listener.name.sasl_ssl.connections.max.reauth.ms=60000
EOF
}

# The StorageTool arguments that create the SCRAM-SHA-512 users when formatting, one a line.
scram_format_args() {
  local user
  for user in $SCRAM_USERS; do
    printf '%s\n' --add-scram "SCRAM-SHA-512=[name=$user,password=$user-secret]"
  done
}

write_config() {
  mkdir -p "$DATA" "$LOGS"
  # PROXIED: a plaintext listener on port+4 that tells clients to connect to port+5, where a
  # test's TCP proxy (examples/harness/src/faults/proxy.rs) listens and forwards to port+4; clients that
  # bootstrap from the proxy then reach the broker only through it. Nothing listens on port+5
  # unless a test runs its proxy.
  local listeners="PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT,PROXIED://127.0.0.1:$PROXIED_PORT"
  local advertised="PLAINTEXT://127.0.0.1:$PORT,PROXIED://127.0.0.1:$PROXY_PORT"
  local protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT"
  if [ "$SECURE" = 1 ]; then
    listeners="$listeners,SSL://127.0.0.1:$SSL_PORT,SASL_SSL://127.0.0.1:$SASL_SSL_PORT"
    advertised="$advertised,SSL://127.0.0.1:$SSL_PORT,SASL_SSL://127.0.0.1:$SASL_SSL_PORT"
    protocols="$protocols,SSL:SSL,SASL_SSL:SASL_SSL"
  fi
  cat >"$PROPS" <<EOF
# Generated by dekaf-streams scripts/kafka.sh: a single-node test broker on loopback.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$CONTROLLER_PORT
listeners=$listeners
advertised.listeners=$advertised
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
log.dirs=$DATA
num.partitions=1
auto.create.topics.enable=false
# One replica everywhere.
default.replication.factor=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=3
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=3
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
EOF
  test_timing_config >>"$PROPS"
  if [ "$SECURE" = 1 ]; then secure_config >>"$PROPS"; fi
  write_log4j_conf
}

# The settings every test broker shares (the single broker and each cluster node): transactions
# and group members that time out in seconds, not minutes.
test_timing_config() {
  cat <<EOF
# Abort timed-out transactions within a second (default 10 s), so tests of crashes and stalls
# see the broker's decision quickly.
transaction.abort.timed.out.transaction.cleanup.interval.ms=1000
# Fast tests: no initial rebalance delay, short heartbeats and sessions.
group.initial.rebalance.delay.ms=0
group.streams.initial.rebalance.delay.ms=0
group.streams.min.heartbeat.interval.ms=100
group.streams.heartbeat.interval.ms=500
group.streams.min.session.timeout.ms=2000
group.streams.session.timeout.ms=10000
group.consumer.min.heartbeat.interval.ms=100
group.consumer.heartbeat.interval.ms=500
group.consumer.min.session.timeout.ms=2000
group.consumer.session.timeout.ms=10000
EOF
}

# The broker's log4j2 configuration: $LOGS/server.log, Kafka's chattiest loggers at WARN. Serves
# the single broker and every node of a cluster (scripts/kafka-cluster.sh).
write_log4j_conf() {
  cat >"$LOG4J_CONF" <<EOF
# Generated by dekaf-streams scripts/kafka.sh.
status = warn
appender.file.type = File
appender.file.name = FILE
appender.file.fileName = $LOGS/server.log
appender.file.append = true
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.file.ref = FILE
logger.kafkalog.name = org.apache.kafka.storage.internals.log
logger.kafkalog.level = WARN
logger.unifiedlog.name = kafka.log
logger.unifiedlog.level = WARN
logger.request.name = kafka.request.logger
logger.request.level = WARN
EOF
}

java_cmd() {
  # shellcheck disable=SC2086
  java $HEAP $JVM_OPTS \
    -Dlog4j2.configurationFile="$LOG4J_CONF" -Dkafka.logs.dir="$LOGS" \
    -cp "$LIBS/*" "$@"
}

format_storage() {
  if [ -f "$DATA/meta.properties" ]; then return; fi
  local cluster_id
  cluster_id="$(java_cmd kafka.tools.StorageTool random-uuid 2>>"$LOGS/format.log" | tail -n1)"
  [ -n "$cluster_id" ] || { tail -n 20 "$LOGS/format.log" >&2; die "could not make a cluster id"; }
  say "formatting $DATA (cluster id $cluster_id)"
  local scram=()
  if [ "$SECURE" = 1 ]; then mapfile -t scram < <(scram_format_args); fi
  if ! java_cmd kafka.tools.StorageTool format -t "$cluster_id" -c "$PROPS" --standalone \
      "${scram[@]}" >>"$LOGS/format.log" 2>&1; then
    tail -n 20 "$LOGS/format.log" >&2
    die "formatting the storage failed (log: $LOGS/format.log)"
  fi
}

# The pid of the broker this script started, if it still runs.
running_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] \
      && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "kafka.Kafka $PROPS"; then
    echo "$pid"
    return 0
  fi
  return 1
}

clear_stale_pid() {
  if [ -f "$PIDFILE" ] && ! running_pid >/dev/null; then
    say "removing stale pid file $PIDFILE (pid $(cat "$PIDFILE" 2>/dev/null) is not a broker of ours)"
    rm -f "$PIDFILE"
  fi
}

# True when something on the port answers an ApiVersions request like a Kafka broker.
answers() {
  local reply
  # ApiVersions v0: size 21, api key 18, version 0, correlation id 7, client id "dekaf-ready".
  reply="$(timeout 3 bash -c '
    exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
    printf "\x00\x00\x00\x15\x00\x12\x00\x00\x00\x00\x00\x07\x00\x0bdekaf-ready" >&3
    head -c 10 <&3 | od -An -tx1 | tr -d " \n"
  ' _ "$PORT" 2>/dev/null)" || return 1
  # size (4 bytes, any), correlation id 7, error code 0
  [[ "$reply" =~ ^[0-9a-f]{8}000000070000$ ]]
}

print_log_tail() {
  say "last lines of $LOGS/server.log:"
  tail -n "${1:-60}" "$LOGS/server.log" >&2 2>/dev/null || true
  if [ -s "$LOGS/stdout.log" ]; then
    say "last lines of $LOGS/stdout.log:"
    tail -n 20 "$LOGS/stdout.log" >&2
  fi
}

# Starts the broker JVM of $PROPS in the background and waits for its pid file ($1 names it in
# errors). The JVM gets its own session (a Ctrl-C in this shell does not reach it); the shell that
# execs it writes its own pid, which becomes the JVM's. Appends to $LOGS/stdout.log.
launch_jvm() {
  rm -f "$PIDFILE"
  # shellcheck disable=SC2086
  nohup setsid bash -c 'echo $$ >"$0"; exec "$@"' "$PIDFILE" \
    java $HEAP $JVM_OPTS -Xlog:gc*:file="$LOGS/kafkaServer-gc.log":time,tags:filecount=10,filesize=100M \
    -Dlog4j2.configurationFile="$LOG4J_CONF" -Dkafka.logs.dir="$LOGS" \
    -cp "$LIBS/*" kafka.Kafka "$PROPS" >>"$LOGS/stdout.log" 2>&1 </dev/null 9>&- &
  local waited=0
  until [ -s "$PIDFILE" ]; do
    ((waited++ < 100)) || die "$1 did not start (see $LOGS/stdout.log)"
    sleep 0.05
  done
}

# Waits until the broker on $PORT answers ApiVersions; dies with its log's tail when pid $2 exits
# or START_TIMEOUT passes ($1 names it in errors, $3 says what to do about a hung start).
await_answer() {
  local started=$SECONDS
  until answers; do
    if ! kill -0 "$2" 2>/dev/null; then
      rm -f "$PIDFILE"
      print_log_tail 40
      die "$1 exited during start-up"
    fi
    if ((SECONDS - started > START_TIMEOUT)); then
      print_log_tail 40
      die "$1 did not answer on 127.0.0.1:$PORT within ${START_TIMEOUT}s (pid $2 still runs; $3)"
    fi
    sleep 0.5
  done
}

start() {
  mkdir -p "$RUN"
  exec 9>"$RUN/lock"
  flock 9
  clear_stale_pid
  local pid
  if pid="$(running_pid)"; then
    if answers; then
      say "already running: pid $pid on 127.0.0.1:$PORT (log: $LOGS/server.log)"
      return 0
    fi
    say "pid $pid runs but does not answer yet; waiting"
  else
    if answers; then
      say "a broker not started by this script already answers on 127.0.0.1:$PORT; using it"
      return 0
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
      die "port $PORT is taken by something that is not a Kafka broker; set DEKAF_KAFKA_PORT"
    fi
    # Data made with the secured listeners (scripts/test.sh's broker) starts with them again:
    # PLAINTEXT is still on $PORT, so a plaintext user (the demo) is served too. The reverse
    # lacks the SCRAM users that formatting adds, so it needs a reset.
    if [ -f "$DATA/meta.properties" ] && [ "$SECURE" = 0 ] && [ "$(cat "$MODE_FILE" 2>/dev/null)" = 1 ]; then
      say "the broker data in $DATA was made with the secured listeners; starting them too (PLAINTEXT stays on 127.0.0.1:$PORT)"
      SECURE=1
    fi
    if [ -f "$DATA/meta.properties" ] && [ "$(cat "$MODE_FILE" 2>/dev/null || echo 0)" != "$SECURE" ]; then
      die "the broker data in $DATA was made with DEKAF_KAFKA_SECURE=$(cat "$MODE_FILE" 2>/dev/null || echo 0); run \`$0 reset\` first"
    fi
    resolve_jars
    ensure_java
    if [ "$SECURE" = 1 ]; then make_certificates; fi
    write_config
    format_storage
    echo "$SECURE" >"$MODE_FILE"
    say "starting Kafka $KAFKA_VERSION on 127.0.0.1:$PORT (controller :$CONTROLLER_PORT)"
    # Keep the previous run's log apart, so a failed start shows only its own lines.
    [ -f "$LOGS/server.log" ] && mv -f "$LOGS/server.log" "$LOGS/server.log.1"
    : >"$LOGS/stdout.log"
    rm -f "$PIDFILE"
    launch_jvm "the broker"
    pid="$(cat "$PIDFILE")"
  fi
  local started=$SECONDS
  await_answer "the broker" "$pid" "stop it with: $0 stop"
  say "ready after $((SECONDS - started))s: 127.0.0.1:$PORT, pid $pid, log $LOGS/server.log"
  if [ "$SECURE" = 1 ]; then
    say "secured listeners: SSL 127.0.0.1:$SSL_PORT, SASL_SSL 127.0.0.1:$SASL_SSL_PORT; TLS files in $TLS"
  fi
}

# The environment the tests read to find the listeners.
print_env() {
  echo "export DEKAF_BOOTSTRAP=127.0.0.1:$PORT"
  if grep -q '^listeners=.*PROXIED://' "$PROPS" 2>/dev/null; then
    echo "export DEKAF_PROXIED_LISTENER=127.0.0.1:$PROXIED_PORT"
    echo "export DEKAF_PROXY_ADDRESS=127.0.0.1:$PROXY_PORT"
  fi
  if [ "$(cat "$MODE_FILE" 2>/dev/null || echo 0)" = 1 ]; then
    echo "export DEKAF_SSL_BOOTSTRAP=127.0.0.1:$SSL_PORT"
    echo "export DEKAF_SASL_SSL_BOOTSTRAP=127.0.0.1:$SASL_SSL_PORT"
    echo "export DEKAF_TLS_DIR=$TLS"
  fi
}

stop() {
  mkdir -p "$RUN"
  exec 9>"$RUN/lock"
  flock 9
  clear_stale_pid
  local pid
  if ! pid="$(running_pid)"; then
    say "not running (no broker of ours on port $PORT)"
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
      echo "running: pid $pid on 127.0.0.1:$PORT; log $LOGS/server.log"
    else
      echo "starting or unresponsive: pid $pid on 127.0.0.1:$PORT; log $LOGS/server.log"
    fi
  elif answers; then
    echo "a broker not started by this script answers on 127.0.0.1:$PORT"
  else
    echo "not running (port $PORT); log $LOGS/server.log"
    return 3
  fi
}

# A replicated cluster (scripts/kafka-cluster.sh): `--brokers N` with N > 1, or a per-node command.
BROKERS=1
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --brokers) BROKERS="${2:-}"; shift 2 || die "--brokers needs a number" ;;
    --brokers=*) BROKERS="${1#--brokers=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]}"
[[ "$BROKERS" =~ ^[1-9][0-9]?$ ]] || die "--brokers takes a node count 1..99 (got '$BROKERS')"
case "${1:-}" in
  kill-node | stop-node | start-node | bootstrap) [ "$BROKERS" -gt 1 ] || BROKERS=3 ;;
esac
if [ "$BROKERS" -gt 1 ]; then
  # shellcheck source=scripts/kafka-cluster.sh
  source "$(dirname "${BASH_SOURCE[0]}")/kafka-cluster.sh"
  cluster_main "$@"
  exit $?
fi

if [ "${2:-}" = "--secure" ]; then SECURE=1; fi

case "${1:-}" in
  start) start ;;
  env) print_env ;;
  stop) stop ;;
  status) status ;;
  log) echo "$LOGS/server.log" >&2; tail -n "${2:-100}" "$LOGS/server.log" ;;
  reset) stop; say "deleting $RUN"; rm -rf "$RUN" ;;
  jars) resolve_jars; echo "$LIBS" ;;
  *)
    echo "usage: $0 start [--secure]|stop|status|log [lines]|reset|jars|env [--brokers N]" >&2
    exit 2
    ;;
esac
