package dev.dekaf.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import io.apicurio.registry.serde.avro.AvroSerde;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.internals.AppInfoParser;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.TableJoined;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/**
 * The Apache Kafka Streams implementation of the benchmark workloads of
 * {@code benches/WORKLOADS.md}. It speaks the "system command line" contract of that file:
 * flags {@code --name value}, JSON event lines on stdout, a clean stop on SIGTERM or after
 * {@code --max-seconds}. The Avro word count uses Apicurio's Avro serde
 * ({@code apicurio-registry-avro-serde-kafka}) in its Confluent-compatible framing against the
 * registry at {@code --registry-url} (its Confluent API; the serde talks to Apicurio's own API
 * beside it).
 */
public final class KStreamsBench {
  private static final Serde<String> UTF8 = Serdes.String();
  private static final Serde<Long> I64 = Serdes.Long();
  /** The Avro word count's output record (the same as dekaf-streams' {@code WordCount}). */
  static final Schema WORD_COUNT = new Schema.Parser().parse(
      "{\"type\":\"record\",\"name\":\"WordCount\",\"namespace\":\"dev.dekaf.bench\","
          + "\"fields\":[{\"name\":\"word\",\"type\":\"string\"},"
          + "{\"name\":\"count\",\"type\":\"long\"}]}");

  private KStreamsBench() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> args = parseArgs(argv);
    String workload = required(args, "workload");
    String guarantee = required(args, "guarantee");
    String appId = required(args, "app-id");
    String inputPrefix = required(args, "input-prefix");
    String output = required(args, "output-topic");
    String mode = args.getOrDefault("mode", "run");
    long maxSeconds = Long.parseLong(args.getOrDefault("max-seconds", "600"));

    Topology topology = topology(workload, inputPrefix, output, args);
    Properties props = config(args, appId, guarantee);
    event("version", "\"kafka_streams\":\"" + AppInfoParser.getVersion() + "\",\"java\":\""
        + System.getProperty("java.version") + "\",\"mode\":\"" + mode + "\"");

    KafkaStreams streams = new KafkaStreams(topology, props);
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong runningSince = new AtomicLong(0);
    RestoreTally restore = new RestoreTally();
    streams.setGlobalStateRestoreListener(restore);
    streams.setStateListener((now, before) -> {
      if (now == KafkaStreams.State.RUNNING) {
        runningSince.set(System.currentTimeMillis());
        event("running", "\"at_ms\":" + runningSince.get());
      } else {
        runningSince.set(0);
      }
      if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING
          || now == KafkaStreams.State.PENDING_ERROR) {
        done.countDown();
      }
    });
    streams.setUncaughtExceptionHandler(e -> {
      event("error", "\"message\":" + jsonString(String.valueOf(e)));
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      done.countDown();
      streams.close(Duration.ofSeconds(30));
    }, "bench-shutdown"));

    streams.start();
    long deadline = System.currentTimeMillis() + maxSeconds * 1000;
    int exit = 0;
    if (mode.equals("restore")) {
      // Done when RUNNING with no restoration in flight; if nothing was restored within 3 s
      // of RUNNING, the store had nothing to restore.
      while (System.currentTimeMillis() < deadline && done.getCount() > 0) {
        long since = runningSince.get();
        if (since > 0 && restore.active() == 0
            && (restore.started() > 0 || System.currentTimeMillis() - since > 3000)) {
          event("restored", "\"records\":" + restore.records() + ",\"millis\":"
              + restore.millis() + ",\"stores\":" + restore.started());
          break;
        }
        Thread.sleep(5);
      }
    } else {
      done.await(Math.max(1, deadline - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
    }
    if (streams.state() == KafkaStreams.State.ERROR || streams.state() == KafkaStreams.State.PENDING_ERROR) {
      exit = 1;
    }
    streams.close(Duration.ofSeconds(30));
    event("stopped", "\"state\":\"" + streams.state() + "\"");
    System.out.flush();
    Runtime.getRuntime().halt(exit);
  }

  /** The topology of one workload, exactly as specified in WORKLOADS.md. */
  static Topology topology(String workload, String in, String output, Map<String, String> args) {
    StreamsBuilder b = new StreamsBuilder();
    switch (workload) {
      case "stateless" -> b.stream(in + "-numbers", Consumed.with(UTF8, I64))
          .filter((k, v) -> v % 5 != 0)
          .mapValues(v -> v * 2)
          .to(output, Produced.with(UTF8, I64));
      case "wordcount" -> b.stream(in + "-sentences", Consumed.with(UTF8, UTF8))
          .flatMapValues(s -> Arrays.asList(s.split(" ")))
          .groupBy((k, w) -> w, Grouped.with("words", UTF8, UTF8))
          .count(withLogConfigs(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
              .withKeySerde(UTF8).withValueSerde(I64), args.get("counts-log-configs")))
          .toStream()
          .to(output, Produced.with(UTF8, I64));
      case "window" -> b.stream(in + "-events", Consumed.with(UTF8, UTF8))
          .groupByKey(Grouped.with(UTF8, UTF8))
          .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ofHours(24)))
          .count(Materialized.<String, Long, WindowStore<Bytes, byte[]>>as("window-counts")
              .withKeySerde(UTF8).withValueSerde(I64))
          .toStream()
          .map((wk, count) -> KeyValue.pair(wk.key() + "@" + wk.window().start(), count))
          .to(output, Produced.with(UTF8, I64));
      case "join" -> {
        KTable<String, String> users = b.table(in + "-users", Consumed.with(UTF8, UTF8),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("users")
                .withKeySerde(UTF8).withValueSerde(UTF8));
        b.stream(in + "-clicks", Consumed.with(UTF8, UTF8))
            .join(users, (page, region) -> page + "@" + region)
            .to(output, Produced.with(UTF8, UTF8));
      }
      case "versionedjoin" -> {
        // The price table in a versioned store (history one hour): each order joins the price
        // valid at its timestamp (KIP-914).
        KTable<String, String> prices = b.table(in + "-prices", Consumed.with(UTF8, UTF8),
            Materialized.<String, String>as(Stores.persistentVersionedKeyValueStore("prices", Duration.ofHours(1)))
                .withKeySerde(UTF8).withValueSerde(UTF8));
        b.stream(in + "-orders", Consumed.with(UTF8, UTF8))
            .join(prices, (order, price) -> order + "@" + price)
            .to(output, Produced.with(UTF8, UTF8));
      }
      case "streamjoin" -> {
        KStream<String, String> payments = b.stream(in + "-payments", Consumed.with(UTF8, UTF8));
        b.stream(in + "-orders", Consumed.with(UTF8, UTF8))
            .join(payments, (order, payment) -> order + "+" + payment,
                JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMinutes(1), Duration.ofHours(24)),
                StreamJoined.with(UTF8, UTF8, UTF8))
            .to(output, Produced.with(UTF8, UTF8));
      }
      case "session" -> b.stream(in + "-clicks", Consumed.with(UTF8, UTF8))
          .groupByKey(Grouped.with(UTF8, UTF8))
          .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(1), Duration.ofHours(24)))
          .count(Materialized.<String, Long, SessionStore<Bytes, byte[]>>as("session-counts")
              .withKeySerde(UTF8).withValueSerde(I64))
          .toStream()
          // A merged-away session's tombstone (null count) is not output, as in dekaf-streams,
          // whose typed map never sees it.
          .filter((wk, count) -> count != null)
          .map((wk, count) -> KeyValue.pair(wk.key() + "@" + wk.window().start(), count))
          .to(output, Produced.with(UTF8, I64));
      case "tablejoin" -> {
        KTable<String, String> right = b.table(in + "-right", Consumed.with(UTF8, UTF8),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("right")
                .withKeySerde(UTF8).withValueSerde(UTF8));
        b.table(in + "-left", Consumed.with(UTF8, UTF8),
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("left")
                    .withKeySerde(UTF8).withValueSerde(UTF8))
            .join(right, (l, r) -> l + "+" + r)
            .toStream()
            .to(output, Produced.with(UTF8, UTF8));
      }
      // Counts over a large key space; the store in RocksDB (Kafka Streams' default), as
      // dekaf-streams' is in LMDB for this workload.
      case "largestate" -> b.stream(in + "-events", Consumed.with(UTF8, UTF8))
          .groupByKey(Grouped.with(UTF8, UTF8))
          .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("big-counts")
              .withKeySerde(UTF8).withValueSerde(I64))
          .toStream()
          .to(output, Produced.with(UTF8, I64));
      case "fkjoin" -> {
        KTable<String, String> customers = b.table(in + "-customers", Consumed.with(UTF8, UTF8),
            Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("customers")
                .withKeySerde(UTF8).withValueSerde(UTF8));
        b.table(in + "-orders", Consumed.with(UTF8, UTF8),
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("orders")
                    .withKeySerde(UTF8).withValueSerde(UTF8))
            .join(customers, order -> order.split("\\|", 2)[0], (order, customer) -> order + "+" + customer,
                TableJoined.as("by-customer"))
            .toStream()
            .to(output, Produced.with(UTF8, UTF8));
      }
      case "cogroup" -> {
        // Clicks and views per user, cogrouped into one engagement score (a click adds 1, a view
        // its duration in seconds), as dekaf-streams' `cogroup` workload.
        KGroupedStream<String, String> views = b.stream(in + "-views", Consumed.with(UTF8, UTF8))
            .groupByKey(Grouped.with(UTF8, UTF8));
        b.stream(in + "-clicks", Consumed.with(UTF8, UTF8))
            .groupByKey(Grouped.with(UTF8, UTF8))
            .<Long>cogroup((user, page, score) -> score + 1)
            .cogroup(views, (user, seconds, score) -> score + Long.parseLong(seconds))
            .aggregate(() -> 0L, Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("scores")
                .withKeySerde(UTF8).withValueSerde(I64))
            .toStream()
            .to(output, Produced.with(UTF8, I64));
      }
      case "avro_wordcount" -> {
        // Values in Avro through the registry (subjects <topic>-value); the repartition topic
        // and the store stay String/Long, as in dekaf-streams.
        Serde<GenericRecord> avro = avroSerde(args);
        b.stream(in + "-sentences", Consumed.with(UTF8, avro))
            .flatMapValues(s -> Arrays.asList(s.get("text").toString().split(" ")))
            .groupBy((k, w) -> w, Grouped.with("words", UTF8, UTF8))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
                .withKeySerde(UTF8).withValueSerde(I64))
            .toStream()
            .mapValues((word, count) -> {
              GenericRecord r = new GenericData.Record(WORD_COUNT);
              r.put("word", word);
              r.put("count", count);
              return r;
            })
            .to(output, Produced.with(UTF8, avro));
      }
      default -> throw new IllegalArgumentException("unknown --workload " + workload
          + "; use stateless, wordcount, window, join, streamjoin, session, tablejoin, fkjoin, cogroup, versionedjoin, largestate or "
          + "avro_wordcount");
    }
    Properties optimize = new Properties();
    // A table read from a user topic uses that topic as its changelog, as dekaf-streams does.
    optimize.put(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS);
    return b.build(optimize);
  }

  /**
   * Apicurio's Avro serde for values, in the Confluent-compatible framing (magic byte 0, the
   * 4-byte content id, no headers), as runtime/tests/java-avro configures its serializer and
   * deserializer: schemas registered when missing, under {@code <topic>-value}.
   */
  static Serde<GenericRecord> avroSerde(Map<String, String> args) {
    String url = required(args, "registry-url");
    Map<String, Object> c = new HashMap<>();
    // The serde talks to Apicurio's own API, beside the Confluent one the driver names.
    c.put("apicurio.registry.url", url.replace("/apis/ccompat/v7", "/apis/registry/v3"));
    c.put("apicurio.registry.auto-register", "true");
    c.put("apicurio.registry.headers.enabled", "false");
    c.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
    c.put("apicurio.registry.use-id", "contentId");
    AvroSerde<GenericRecord> serde = new AvroSerde<>();
    serde.configure(c, false);
    return serde;
  }

  /** `k=v,k=v` as a map (`--topic-configs`, `--counts-log-configs`). */
  static Map<String, String> pairs(String list) {
    Map<String, String> m = new java.util.TreeMap<>();
    for (String kv : list.split(",")) {
      String[] a = kv.split("=", 2);
      m.put(a[0], a[1]);
    }
    return m;
  }

  /** The store's own changelog configs (`--counts-log-configs k=v,..`), if given. */
  static <S extends org.apache.kafka.streams.processor.StateStore> Materialized<String, Long, S> withLogConfigs(
      Materialized<String, Long, S> m, String list) {
    return list == null ? m : m.withLoggingEnabled(pairs(list));
  }

  static Properties config(Map<String, String> args, String appId, String guarantee) throws Exception {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args.getOrDefault("bootstrap", "127.0.0.1:9092"));
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, switch (guarantee) {
      case "exactly_once", "exactly_once_v2" -> StreamsConfig.EXACTLY_ONCE_V2;
      case "at_least_once" -> StreamsConfig.AT_LEAST_ONCE;
      default -> throw new IllegalArgumentException("unknown --guarantee " + guarantee
          + "; use exactly_once or at_least_once");
    });
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, args.getOrDefault("commit-interval-ms", "100"));
    // The default record cache (10 MiB), explicit as on the dekaf-streams side.
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 10L * 1024 * 1024);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, args.getOrDefault("threads", "1"));
    p.put(StreamsConfig.TOPOLOGY_OPTIMIZATION_CONFIG, StreamsConfig.REUSE_KTABLE_SOURCE_TOPICS);
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), args.getOrDefault("linger-ms", "5"));
    p.put(StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG), args.getOrDefault("batch-size", "16384"));
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    // What every internal topic is declared with (`--replication-factor`, `--topic-configs k=v,..`).
    if (args.containsKey("replication-factor")) {
      p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, Integer.parseInt(args.get("replication-factor")));
    }
    if (args.containsKey("topic-configs")) {
      pairs(args.get("topic-configs")).forEach((k, v) -> p.put(StreamsConfig.topicPrefix(k), v));
    }
    String stateDir = args.get("state-dir");
    if (stateDir == null) {
      stateDir = Files.createTempDirectory("kstreams-bench-").toString();
    }
    Files.createDirectories(Path.of(stateDir));
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    return p;
  }

  /** Sums what the state restore listener reports, across stores and partitions. */
  static final class RestoreTally implements StateRestoreListener {
    private long records;
    private int started;
    private int active;
    private long firstStartNanos;
    private long lastEndNanos;

    @Override
    public synchronized void onRestoreStart(TopicPartition tp, String store, long start, long end) {
      if (started == 0) {
        firstStartNanos = System.nanoTime();
      }
      started++;
      active++;
    }

    @Override
    public synchronized void onBatchRestored(TopicPartition tp, String store, long batchEnd, long n) {}

    @Override
    public synchronized void onRestoreEnd(TopicPartition tp, String store, long total) {
      records += total;
      active--;
      lastEndNanos = System.nanoTime();
    }

    @Override
    public synchronized void onRestoreSuspended(TopicPartition tp, String store, long total) {
      records += total;
      active--;
      lastEndNanos = System.nanoTime();
    }

    synchronized long records() { return records; }
    synchronized int started() { return started; }
    synchronized int active() { return active; }
    synchronized double millis() {
      return started == 0 ? 0.0 : (lastEndNanos - firstStartNanos) / 1e6;
    }
  }

  static Map<String, String> parseArgs(String[] argv) {
    Map<String, String> m = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (!a.startsWith("--") || i + 1 >= argv.length) {
        throw new IllegalArgumentException("expected --name value pairs, got: " + String.join(" ", argv));
      }
      m.put(a.substring(2), argv[++i]);
    }
    return m;
  }

  static String required(Map<String, String> args, String name) {
    String v = args.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing --" + name + " (see benches/WORKLOADS.md)");
    }
    return v;
  }

  static synchronized void event(String name, String fields) {
    System.out.println(String.format(Locale.ROOT, "{\"event\":\"%s\",\"time_ms\":%d%s%s}", name,
        System.currentTimeMillis(), fields.isEmpty() ? "" : ",", fields));
    System.out.flush();
  }

  static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
