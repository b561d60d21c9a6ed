// The Java side of the differential suite (see ../README.md): every topology of the suite written
// against Kafka Streams 4.4, run by name on the input files of ../cases with TopologyTestDriver
// (record cache off), writing what reaches the output topics as JSON lines.
//
// Usage: java -cp <kafka-streams-test-utils and its dependencies>:<classes> Parity <cases dir> <out dir>

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.CharacterCodingException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import org.apache.kafka.common.Metric;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.state.WindowStoreIterator;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.test.TestRecord;

public final class Parity {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Consumer<StreamsBuilder>> TOPOLOGIES = new LinkedHashMap<>();

    private static void def(String name, Consumer<StreamsBuilder> build) {
        if (TOPOLOGIES.put(name, build) != null) {
            throw new IllegalStateException("topology " + name + " defined twice");
        }
    }

    private static KStream<String, String> in(StreamsBuilder b) {
        return b.stream("in");
    }

    /// A table source, materialized as dekaf-streams materializes every `table(..)` (old values
    /// are then always known: see runtime/src/dsl.rs, "Tables").
    private static KTable<String, String> t(StreamsBuilder b, String topic) {
        return b.table(topic, Materialized.as(topic + "-store"));
    }

    /** A versioned table (history 1 s), as `table(topic, ..).versioned(Duration::from_millis(1_000))`. */
    private static KTable<String, String> vt(StreamsBuilder b, String topic) {
        return b.table(topic, Materialized.<String, String>as(
            Stores.persistentVersionedKeyValueStore(topic + "-store", Duration.ofMillis(1000))));
    }

    private static String opt(String s) {
        return s == null ? "null" : s;
    }

    private static List<String> splitAll(String v) {
        return Arrays.asList(v.split(",", -1));
    }

    static {
        // ---- stateless -------------------------------------------------------------------------
        def("passthrough", b -> in(b).to("out"));
        def("passthrough_nullable", b -> in(b).to("out"));
        def("filter", b -> in(b).filter((k, v) -> v.startsWith("a")).to("out"));
        def("filter_not", b -> in(b).filterNot((k, v) -> v.startsWith("a")).to("out"));
        def("filter_nullable", b -> in(b).filter((k, v) -> v == null || v.startsWith("a")).to("out"));
        def("map", b -> in(b).map((k, v) -> KeyValue.pair(v, k)).to("out"));
        def("map_values", b -> in(b).mapValues(v -> v.toUpperCase()).to("out"));
        def("map_values_key", b -> in(b).mapValues((k, v) -> k + ":" + v).to("out"));
        def("map_values_nullable", b -> in(b).mapValues(v -> v == null ? "was-null" : v.toUpperCase()).to("out"));
        def("flat_map", b -> in(b).flatMap((k, v) -> splitAll(v).stream().map(p -> KeyValue.pair(p, k)).collect(Collectors.toList())).to("out"));
        def("flat_map_values", b -> in(b).flatMapValues(v -> splitAll(v)).to("out"));
        def("select_key", b -> in(b).selectKey((k, v) -> v.substring(0, 1)).to("out"));
        def("select_key_nullable", b -> in(b).selectKey((k, v) -> v.substring(0, 1)).to("out"));
        def("map_values_key_nullable", b -> in(b).mapValues((k, v) -> opt(k) + ":" + opt(v)).to("out"));
        def("peek", b -> in(b).peek((k, v) -> { }).to("out"));
        def("merge", b -> in(b).merge(b.stream("in2")).to("out"));
        def("branch", b -> in(b).split()
            .branch((k, v) -> v.startsWith("a"), Branched.withConsumer(s -> s.to("out-a")))
            .branch((k, v) -> v.startsWith("b"), Branched.withConsumer(s -> s.to("out-b")))
            .noDefaultBranch());
        def("repartition", b -> in(b).selectKey((k, v) -> v.substring(0, 1)).repartition(Repartitioned.as("rp")).mapValues(v -> v + "!").to("out"));
        def("loop", b -> {
            KStream<String, String> s = in(b);
            s.filter((k, v) -> v.length() < 3).mapValues(v -> v + "x").to("in");
            s.to("out");
        });
        def("process_dedup", b -> {
            b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("seen"), Serdes.String(), Serdes.Long()));
            in(b).process(() -> new Processor<String, String, String, String>() {
                private ProcessorContext<String, String> context;
                private KeyValueStore<String, Long> seen;

                @Override
                public void init(ProcessorContext<String, String> context) {
                    this.context = context;
                    this.seen = context.getStateStore("seen");
                }

                @Override
                public void process(Record<String, String> record) {
                    if (seen.get(record.key()) != null) {
                        return;
                    }
                    seen.put(record.key(), record.timestamp());
                    context.forward(record);
                }
            }, "seen").to("out");
        });

        def("process_values_count", b -> {
            b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("last"), Serdes.String(), Serdes.String()));
            KStream<String, String> s = in(b).processValues(() -> new FixedKeyProcessor<String, String, String>() {
                private FixedKeyProcessorContext<String, String> context;
                private KeyValueStore<String, String> last;

                @Override
                public void init(FixedKeyProcessorContext<String, String> context) {
                    this.context = context;
                    this.last = context.getStateStore("last");
                }

                @Override
                public void process(FixedKeyRecord<String, String> record) {
                    String before = last.get(record.key());
                    last.put(record.key(), record.value());
                    if (before != null) {
                        context.forward(record.withValue(before + "->" + record.value()));
                    }
                }
            }, "last");
            s.to("out");
            s.groupByKey().count().toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long()));
        });

        // A window store (persistent, retention 30 ms, windows of 10 ms): the value is "del"
        // (delete the record's window), a number (count in the window starting there) or
        // anything else (count in the record's window); forwards the key's windows before, all
        // windows, those of keys b..c, and all backwards.
        def("process_window_store", b -> {
            b.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore("w", Duration.ofMillis(30), Duration.ofMillis(10), false), Serdes.String(), Serdes.Long()));
            in(b).process(() -> new Processor<String, String, String, String>() {
                private ProcessorContext<String, String> context;
                private WindowStore<String, Long> w;

                @Override
                public void init(ProcessorContext<String, String> context) {
                    this.context = context;
                    this.w = context.getStateStore("w");
                }

                private void windows(StringBuilder sb, KeyValueIterator<Windowed<String>, Long> it) {
                    try (it) {
                        while (it.hasNext()) {
                            KeyValue<Windowed<String>, Long> kv = it.next();
                            sb.append(' ').append(kv.key.key()).append('@').append(kv.key.window().start()).append('-').append(kv.key.window().end()).append('=').append(kv.value);
                        }
                    }
                }

                @Override
                public void process(Record<String, String> r) {
                    String v = r.value();
                    long start = v.matches("\\d+") ? Long.parseLong(v) : r.timestamp() / 10 * 10;
                    if (v.equals("del")) {
                        w.put(r.key(), null, start);
                    } else {
                        Long c = w.fetch(r.key(), start);
                        w.put(r.key(), c == null ? 1L : c + 1, start);
                    }
                    StringBuilder sb = new StringBuilder();
                    sb.append(w.fetch(r.key(), start)).append(" |");
                    try (WindowStoreIterator<Long> it = w.fetch(r.key(), start - 20, start)) {
                        while (it.hasNext()) {
                            KeyValue<Long, Long> kv = it.next();
                            sb.append(' ').append(kv.key).append(':').append(kv.value);
                        }
                    }
                    sb.append(" |");
                    windows(sb, w.all());
                    sb.append(" |");
                    windows(sb, w.fetch("b", "c", 0, Long.MAX_VALUE));
                    sb.append(" |");
                    windows(sb, w.backwardFetchAll(0, Long.MAX_VALUE));
                    context.forward(r.withValue(sb.toString()));
                }
            }, "w").to("out");
        });

        // A session store (persistent, retention 50 ms) used to sessionize by hand with a gap of
        // 10 ms: the sessions of the key within the gap are removed and merged into one, whose
        // count grows; the value "rm" removes every session of the key instead. Forwards the
        // merged session, the key's sessions, those of keys a..b, and all backwards.
        def("process_session_store", b -> {
            b.addStateStore(Stores.sessionStoreBuilder(Stores.persistentSessionStore("s", Duration.ofMillis(50)), Serdes.String(), Serdes.Long()));
            in(b).process(() -> new Processor<String, String, String, String>() {
                private ProcessorContext<String, String> context;
                private SessionStore<String, Long> s;

                @Override
                public void init(ProcessorContext<String, String> context) {
                    this.context = context;
                    this.s = context.getStateStore("s");
                }

                private List<KeyValue<Windowed<String>, Long>> list(KeyValueIterator<Windowed<String>, Long> it) {
                    List<KeyValue<Windowed<String>, Long>> out = new ArrayList<>();
                    try (it) {
                        it.forEachRemaining(out::add);
                    }
                    return out;
                }

                private void sessions(StringBuilder sb, KeyValueIterator<Windowed<String>, Long> it) {
                    for (KeyValue<Windowed<String>, Long> kv : list(it)) {
                        sb.append(' ').append(kv.key.key()).append('[').append(kv.key.window().start()).append(',').append(kv.key.window().end()).append("]=").append(kv.value);
                    }
                }

                @Override
                public void process(Record<String, String> r) {
                    long t = r.timestamp();
                    StringBuilder sb = new StringBuilder();
                    if (r.value().equals("rm")) {
                        for (KeyValue<Windowed<String>, Long> kv : list(s.fetch(r.key()))) {
                            s.remove(kv.key);
                        }
                        sb.append("removed");
                    } else {
                        long start = t, end = t, n = 1;
                        for (KeyValue<Windowed<String>, Long> kv : list(s.findSessions(r.key(), t - 10, t + 10))) {
                            start = Math.min(start, kv.key.window().start());
                            end = Math.max(end, kv.key.window().end());
                            n += kv.value;
                            s.remove(kv.key);
                        }
                        s.put(new Windowed<>(r.key(), new org.apache.kafka.streams.kstream.internals.SessionWindow(start, end)), n);
                        sb.append('[').append(start).append(',').append(end).append("]=").append(n).append(' ').append(s.fetchSession(r.key(), start, end));
                    }
                    sb.append(" |");
                    sessions(sb, s.fetch(r.key()));
                    sb.append(" |");
                    sessions(sb, s.fetch("a", "b"));
                    sb.append(" |");
                    sessions(sb, s.backwardFindSessions("a", "c", 0, Long.MAX_VALUE));
                    context.forward(r.withValue(sb.toString()));
                }
            }, "s").to("out");
        });

        // ---- grouping and aggregation of streams -----------------------------------------------
        def("multi_source_count", b -> b.<String, String>stream(List.of("in", "in2")).groupByKey().count()
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("multi_source_map", b -> b.<String, String>stream(List.of("in", "in2")).mapValues(v -> v + "!").to("out"));
        def("chosen_topic", b -> in(b).to((k, v, ctx) -> v.startsWith("a") ? "out-a" : "out-b"));
        def("chosen_topic_context", b -> b.<String, String>stream(List.of("in", "in2"))
            .to((k, v, ctx) -> ctx.topic().equals("in") && ctx.timestamp() < 100 ? "out-a" : "out-b"));
        def("count", b -> in(b).groupByKey().count().toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("count_nullable", b -> in(b).groupByKey().count().toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("count_group_by", b -> in(b).groupBy((k, v) -> v).count().toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("count_select_key", b -> in(b).selectKey((k, v) -> v).groupByKey().count().toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("reduce", b -> in(b).groupByKey().reduce((a, v) -> a + "+" + v).toStream().to("out"));
        def("aggregate", b -> in(b).groupByKey().aggregate(() -> "0", (k, v, agg) -> agg + "+" + v).toStream().to("out"));
        def("aggregate_nullable", b -> in(b).groupByKey().aggregate(() -> "0", (k, v, agg) -> agg + "+" + opt(v)).toStream().to("out"));

        // ---- sources: timestamp extractors -----------------------------------------------------
        def("extractor", b -> {
            final KStream<String, String> s = b.stream("in", Consumed.with(Serdes.String(), Serdes.String())
                .withTimestampExtractor((record, partitionTime) -> {
                    final String v = (String) record.value();
                    if (v == null || v.equals("ts")) {
                        return record.timestamp();
                    }
                    if (v.equals("pt")) {
                        return partitionTime;
                    }
                    try {
                        return Long.parseLong(v.split("\\|", -1)[0]);
                    } catch (final NumberFormatException e) {
                        return -1L;
                    }
                }));
            s.to("out");
            s.groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10))).count()
                .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long()));
        });

        // ---- windows ---------------------------------------------------------------------------
        def("tumbling_count", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10))).count()
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("tumbling_count_grace", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count()
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("hopping_count", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10)).advanceBy(Duration.ofMillis(5))).count()
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("tumbling_reduce", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).reduce((a, v) -> a + "+" + v)
            .toStream().to("out.w.s", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.String())));
        def("tumbling_aggregate", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(() -> "0", (k, v, agg) -> agg + "+" + v)
            .toStream().to("out.w.s", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.String())));
        def("session_count", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMillis(10))).count()
            .toStream().to("out.sw.l", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.Long())));
        def("session_count_grace", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count()
            .toStream().to("out.sw.l", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.Long())));
        def("session_aggregate", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(() -> "0", (k, v, agg) -> agg + "+" + v, (k, a1, a2) -> a1 + "|" + a2, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().to("out.sw.s", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.String())));
        def("session_reduce", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapWithNoGrace(Duration.ofMillis(10))).reduce((a, v) -> a + "+" + v)
            .toStream().to("out.sw.s", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.String())));
        def("sliding_count", b -> in(b).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(10))).count()
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("sliding_count_grace", b -> in(b).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count()
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("sliding_reduce", b -> in(b).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).reduce((a, v) -> a + "+" + v)
            .toStream().to("out.w.s", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.String())));
        def("tumbling_suppress", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("session_suppress", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.sw.l", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.Long())));
        // cogroup: two grouped streams, each with its aggregator, into one store.
        def("cogroup", b -> in(b).groupByKey().<String>cogroup((k, v, agg) -> agg + "+" + v)
            .cogroup(b.<String, String>stream("in2").groupByKey(), (k, v, agg) -> agg + "-" + v)
            .aggregate(() -> "0", Materialized.as("cogroup-store"))
            .toStream().to("out"));
        def("cogroup_rekey", b -> in(b).groupBy((k, v) -> v).<String>cogroup((k, v, agg) -> agg + "+" + v)
            .cogroup(b.<String, String>stream("in2").groupByKey(), (k, v, agg) -> agg + "-" + v)
            .aggregate(() -> "0", Materialized.as("cogroup-store"))
            .toStream().to("out"));
        def("cogroup_tumbling", b -> in(b).groupByKey().<String>cogroup((k, v, agg) -> agg + "+" + v)
            .cogroup(b.<String, String>stream("in2").groupByKey(), (k, v, agg) -> agg + "-" + v)
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(() -> "0", Materialized.as("cogroup-store"))
            .toStream().to("out.w.s", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.String())));
        def("cogroup_sliding", b -> in(b).groupByKey().<String>cogroup((k, v, agg) -> agg + "+" + v)
            .cogroup(b.<String, String>stream("in2").groupByKey(), (k, v, agg) -> agg + "-" + v)
            .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(() -> "0", Materialized.as("cogroup-store"))
            .toStream().to("out.w.s", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.String())));
        def("cogroup_session", b -> in(b).groupByKey().<String>cogroup((k, v, agg) -> agg + "+" + v)
            .cogroup(b.<String, String>stream("in2").groupByKey(), (k, v, agg) -> agg + "-" + v)
            .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5)))
            .aggregate(() -> "0", (k, a1, a2) -> a1 + "|" + a2, Materialized.as("cogroup-store"))
            .toStream().to("out.sw.s", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.String())));
        def("sliding_suppress", b -> in(b).groupByKey().windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("session_limit_suppress", b -> in(b).groupByKey().windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(10), Duration.ofMillis(5))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(5), Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.sw.l", Produced.with(WindowedSerdes.sessionWindowedSerdeFrom(String.class), Serdes.Long())));
        def("limit_suppress", b -> in(b).groupByKey().count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(10), Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("limit_suppress_zero", b -> in(b).groupByKey().count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ZERO, Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("limit_suppress_early", b -> in(b).groupByKey().count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(100), Suppressed.BufferConfig.maxRecords(2)))
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("limit_suppress_shut_down", b -> in(b).groupByKey().count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(100), Suppressed.BufferConfig.maxRecords(1).shutDownWhenFull()))
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("tumbling_limit_suppress", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10), Duration.ofMillis(20))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(5), Suppressed.BufferConfig.unbounded()))
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));
        def("tumbling_suppress_shut_down", b -> in(b).groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(Duration.ofMillis(10))).count(Materialized.with(Serdes.String(), Serdes.Long()))
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.maxRecords(1).shutDownWhenFull()))
            .toStream().to("out.w.l", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, 10), Serdes.Long())));

        // ---- tables ----------------------------------------------------------------------------
        def("table_passthrough", b -> t(b, "t1").toStream().to("out"));
        def("table_filter", b -> t(b, "t1").filter((k, v) -> v.startsWith("a")).toStream().to("out"));
        def("table_filter_not", b -> t(b, "t1").filterNot((k, v) -> v.startsWith("a")).toStream().to("out"));
        def("table_map_values", b -> t(b, "t1").mapValues(v -> v.toUpperCase()).toStream().to("out"));
        def("table_changes", b -> changes(t(b, "t1")));
        def("table_filter_changes", b -> changes(t(b, "t1").filter((k, v) -> v.startsWith("a"))));
        def("table_map_values_changes", b -> changes(t(b, "t1").mapValues(v -> v.toUpperCase())));
        def("to_table", b -> in(b).toTable(Materialized.as("st")).toStream().to("out"));
        def("to_table_nullable", b -> in(b).toTable(Materialized.as("st")).toStream().to("out"));
        def("versioned_table", b -> vt(b, "t1").toStream().to("out"));
        def("versioned_to_table", b -> in(b).toTable(Materialized.<String, String>as(
            Stores.persistentVersionedKeyValueStore("st", Duration.ofMillis(1000)))).toStream().to("out"));
        def("versioned_stream_table_left_join", b -> in(b).leftJoin(vt(b, "t1"), (v, t) -> v + "+" + opt(t)).to("out"));
        def("versioned_grace_left_join", b -> in(b).leftJoin(vt(b, "t1"), (v, t) -> v + "+" + opt(t),
            Joined.<String, String, String>with(Serdes.String(), Serdes.String(), Serdes.String())
                .withGracePeriod(Duration.ofMillis(100))).to("out"));
        def("versioned_grace_join", b -> in(b).join(vt(b, "t1"), (v, t) -> v + "+" + t,
            Joined.<String, String, String>with(Serdes.String(), Serdes.String(), Serdes.String())
                .withGracePeriod(Duration.ofMillis(100))).to("out"));
        def("versioned_table_join", b -> vt(b, "t1").join(vt(b, "t2"), (l, r) -> l + "+" + r).toStream().to("out"));
        def("versioned_group_count", b -> vt(b, "t1").groupBy((k, v) -> KeyValue.pair(v, v)).count()
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("table_group_count", b -> t(b, "t1").groupBy((k, v) -> KeyValue.pair(v, v)).count()
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("table_group_reduce", b -> t(b, "t1")
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), Long.parseLong(v)), Grouped.with(Serdes.String(), Serdes.Long()))
            .reduce((a, v) -> a + v, (a, v) -> a - v)
            .toStream().to("out.s.l", Produced.with(Serdes.String(), Serdes.Long())));
        def("table_group_aggregate", b -> t(b, "t1").groupBy((k, v) -> KeyValue.pair(v, k))
            .aggregate(() -> "", (k, v, agg) -> agg + "+" + v, (k, v, agg) -> agg + "-" + v)
            .toStream().to("out"));
        def("table_limit_suppress", b -> t(b, "t1").suppress(Suppressed.untilTimeLimit(Duration.ofMillis(10), Suppressed.BufferConfig.unbounded())).toStream().to("out"));
        def("table_filter_limit_suppress", b -> t(b, "t1").filter((k, v) -> !v.equals("2"))
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(10), Suppressed.BufferConfig.unbounded())).toStream().to("out"));
        def("table_limit_suppress_filter", b -> t(b, "t1")
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(10), Suppressed.BufferConfig.unbounded()))
            .filter((k, v) -> !v.equals("2")).toStream().to("out"));
        def("table_limit_suppress_changes", b -> changes(t(b, "t1")
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(10), Suppressed.BufferConfig.maxRecords(2)))));
        def("table_join", b -> t(b, "t1").join(t(b, "t2"), (l, r) -> l + "+" + r).toStream().to("out"));
        def("table_left_join", b -> t(b, "t1").leftJoin(t(b, "t2"), (l, r) -> l + "+" + opt(r)).toStream().to("out"));
        def("table_outer_join", b -> t(b, "t1").outerJoin(t(b, "t2"), (l, r) -> opt(l) + "+" + opt(r)).toStream().to("out"));
        def("stream_table_join", b -> in(b).join(t(b, "t1"), (v, t) -> v + "+" + t).to("out"));
        def("stream_table_left_join", b -> in(b).leftJoin(t(b, "t1"), (v, t) -> v + "+" + opt(t)).to("out"));
        def("global_join", b -> {
            GlobalKTable<String, String> g = b.globalTable("g");
            in(b).join(g, (k, v) -> v, (v, gv) -> v + "+" + gv).to("out");
        });
        def("global_left_join", b -> {
            GlobalKTable<String, String> g = b.globalTable("g");
            in(b).leftJoin(g, (k, v) -> v, (v, gv) -> v + "+" + opt(gv)).to("out");
        });
        def("fk_join", b -> t(b, "t1")
            .join(t(b, "t2"), v -> v.split(":")[0], (l, r) -> l + "+" + r).toStream().to("out"));
        def("versioned_fk_left_join", b -> vt(b, "t1")
            .leftJoin(vt(b, "t2"), v -> v.split(":")[0], (l, r) -> l + "+" + opt(r)).toStream().to("out"));
        def("fk_left_join", b -> t(b, "t1")
            .leftJoin(t(b, "t2"), v -> v.split(":")[0], (l, r) -> l + "+" + opt(r)).toStream().to("out"));

        // ---- stream-stream joins ---------------------------------------------------------------
        JoinWindows w = JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(10), Duration.ofMillis(5));
        def("ss_join", b -> in(b).join(b.stream("in2"), (l, r) -> l + "+" + r, w).to("out"));
        def("ss_left_join", b -> in(b).leftJoin(b.<String, String>stream("in2"), (l, r) -> l + "+" + opt(r), w).to("out"));
        def("ss_outer_join", b -> in(b).outerJoin(b.<String, String>stream("in2"), (l, r) -> opt(l) + "+" + opt(r), w).to("out"));
        def("ss_join_asym", b -> in(b).join(b.stream("in2"), (l, r) -> l + "+" + r,
            JoinWindows.ofTimeDifferenceWithNoGrace(Duration.ofMillis(10)).before(Duration.ZERO)).to("out"));

        // ---- joiners with the key (ValueJoinerWithKey), extractors with the key (KIP-1104) ------
        def("ss_join_key", b -> in(b).join(b.<String, String>stream("in2"), (k, l, r) -> k + ":" + l + "+" + r, w).to("out"));
        def("ss_left_join_key", b -> in(b).leftJoin(b.<String, String>stream("in2"), (k, l, r) -> k + ":" + l + "+" + opt(r), w).to("out"));
        def("ss_outer_join_key", b -> in(b).outerJoin(b.<String, String>stream("in2"), (k, l, r) -> k + ":" + opt(l) + "+" + opt(r), w).to("out"));
        def("stream_table_join_key", b -> in(b).join(t(b, "t1"), (k, v, t) -> k + ":" + v + "+" + t).to("out"));
        def("stream_table_left_join_key", b -> in(b).leftJoin(t(b, "t1"), (k, v, t) -> k + ":" + v + "+" + opt(t)).to("out"));
        def("global_join_key", b -> {
            GlobalKTable<String, String> g = b.globalTable("g");
            in(b).join(g, (k, v) -> v, (k, v, gv) -> k + ":" + v + "+" + gv).to("out");
        });
        def("global_left_join_key", b -> {
            GlobalKTable<String, String> g = b.globalTable("g");
            in(b).leftJoin(g, (k, v) -> v, (k, v, gv) -> k + ":" + v + "+" + opt(gv)).to("out");
        });
        def("fk_join_key_extractor", b -> t(b, "t1")
            .join(t(b, "t2"), (k, v) -> k.split("-")[0], (l, r) -> l + "+" + r).toStream().to("out"));
        def("agg_table_join", b -> {
            KTable<String, Long> c = in(b).groupByKey().count();
            KTable<String, String> r = b.<String, String>stream("in2").groupByKey().reduce((a, v) -> a + "," + v);
            c.join(r, (x, y) -> x + "+" + y).toStream().to("out");
        });
        def("agg_table_left_join", b -> {
            KTable<String, Long> c = in(b).groupByKey().count();
            KTable<String, String> r = b.<String, String>stream("in2").groupByKey().reduce((a, v) -> a + "," + v);
            c.leftJoin(r, (x, y) -> x + "+" + opt(y)).toStream().to("out");
        });
        def("agg_table_outer_join", b -> {
            KTable<String, Long> c = in(b).groupByKey().count();
            KTable<String, String> r = b.<String, String>stream("in2").groupByKey().reduce((a, v) -> a + "," + v);
            c.outerJoin(r, (x, y) -> (x == null ? "null" : x.toString()) + "+" + opt(y)).toStream().to("out");
        });
        def("stream_agg_table_join", b -> {
            KTable<String, Long> c = in(b).groupByKey().count();
            b.<String, String>stream("in2").leftJoin(c, (v, n) -> v + "+" + (n == null ? "null" : n.toString())).to("out");
        });
        def("fk_left_join_key_extractor", b -> t(b, "t1")
            .leftJoin(t(b, "t2"), (k, v) -> k.split("-")[0], (l, r) -> l + "+" + opt(r)).toStream().to("out"));
    }

    /// A table's updates as its downstream sees them: every old value subtracted ("-old") and
    /// every new value added ("+new"), per key.
    private static void changes(KTable<String, String> t) {
        t.groupBy((k, v) -> KeyValue.pair(k, v))
            .aggregate(() -> "", (k, v, agg) -> agg + "+" + v, (k, v, agg) -> agg + "-" + v)
            .toStream().to("out");
    }

    // ---- the runner ----------------------------------------------------------------------------

    public static void main(String[] args) throws IOException {
        Path cases = Path.of(args[0]);
        Path out = Path.of(args[1]);
        Files.createDirectories(out);
        List<Path> files;
        try (var list = Files.list(cases)) {
            files = list.filter(p -> p.toString().endsWith(".txt")).sorted().collect(Collectors.toList());
        }
        int failed = 0;
        for (Path file : files) {
            String name = file.getFileName().toString().replaceAll("\\.txt$", "");
            try {
                List<String> lines = run(Files.readAllLines(file, StandardCharsets.UTF_8));
                Files.write(out.resolve(name + ".expected.jsonl"), lines, StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                failed++;
                System.err.println("case " + name + ": " + e);
            }
        }
        System.err.println("parity (Java): " + (files.size() - failed) + " cases written to " + out);
        if (failed > 0) {
            System.exit(1);
        }
    }

    private static String[] tokens(String line) {
        return line.trim().split("\\s+");
    }

    private static String nul(String token) {
        return token.equals("null") ? null : token;
    }

    private static List<String> run(List<String> input) {
        String topology = null;
        List<String[]> steps = new ArrayList<>();
        for (String line : input) {
            if (line.isBlank() || line.trim().startsWith("#")) {
                continue;
            }
            String[] t = tokens(line);
            if (t[0].equals("topology")) {
                topology = t[1];
            } else {
                steps.add(t);
            }
        }
        Consumer<StreamsBuilder> build = TOPOLOGIES.get(topology);
        if (build == null) {
            throw new IllegalArgumentException("unknown topology " + topology);
        }
        StreamsBuilder b = new StreamsBuilder();
        build.accept(b);
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "parity-" + topology.replace('_', '-'));
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9");
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        List<String> lines = new ArrayList<>();
        try (TopologyTestDriver driver = new TopologyTestDriver(b.build(), props, Instant.ofEpochMilli(0))) {
            Map<String, TestInputTopic<String, String>> inputs = new LinkedHashMap<>();
            int n = 0;
            for (String[] step : steps) {
                n++;
                try {
                    if (step[0].equals("wall")) {
                        driver.advanceWallClockTime(Duration.ofMillis(Long.parseLong(step[1])));
                    } else {
                        TestInputTopic<String, String> topic = inputs.computeIfAbsent(step[0],
                            t -> driver.createInputTopic(t, new StringSerializer(), new StringSerializer()));
                        topic.pipeInput(new TestRecord<>(nul(step[1]), nul(step[2]), null, Long.parseLong(step[3])));
                    }
                } catch (RuntimeException e) {
                    ObjectNode error = JSON.createObjectNode();
                    error.put("in", n);
                    error.put("error", String.valueOf(rootCause(e)));
                    lines.add(error.toString());
                    break;
                }
                for (String topic : new TreeSet<>(driver.producedTopicNames())) {
                    if (!topic.startsWith("out")) {
                        continue;
                    }
                    TestOutputTopic<byte[], byte[]> o = driver.createOutputTopic(topic, new ByteArrayDeserializer(), new ByteArrayDeserializer());
                    for (TestRecord<byte[], byte[]> r : o.readRecordsToList()) {
                        String[] fmt = formats(topic);
                        ObjectNode line = JSON.createObjectNode();
                        line.put("in", n);
                        line.put("topic", topic);
                        line.put("key", render(r.key(), fmt[0]));
                        line.put("value", render(r.value(), fmt[1]));
                        line.put("ts", r.timestamp());
                        lines.add(line.toString());
                    }
                }
            }
            double dropped = 0;
            for (Map.Entry<org.apache.kafka.common.MetricName, ? extends Metric> m : driver.metrics().entrySet()) {
                if (m.getKey().name().equals("dropped-records-total") && m.getKey().group().equals("stream-task-metrics")) {
                    dropped += ((Number) m.getValue().metricValue()).doubleValue();
                }
            }
            ObjectNode end = JSON.createObjectNode();
            end.put("dropped", (long) dropped);
            lines.add(end.toString());
        }
        return lines;
    }

    private static Throwable rootCause(Throwable e) {
        while (e.getCause() != null && e.getCause() != e) {
            e = e.getCause();
        }
        return e;
    }

    /// `out.<key format>.<value format>`, or strings.
    private static String[] formats(String topic) {
        String[] parts = topic.split("\\.");
        return parts.length == 3 ? new String[] {parts[1], parts[2]} : new String[] {"s", "s"};
    }

    private static String hex(byte[] b) {
        StringBuilder s = new StringBuilder("0x");
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    private static String text(byte[] b) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b)).toString();
        } catch (CharacterCodingException e) {
            return hex(b);
        }
    }

    /// The same rendering as the Rust side's `render`: s = UTF-8, l = i64, w = key@start (time
    /// windowed), sw = key@start/end (session windowed); bytes that do not fit are hex.
    static String render(byte[] b, String fmt) {
        if (b == null) {
            return null;
        }
        ByteBuffer buf = ByteBuffer.wrap(b);
        switch (fmt) {
            case "l":
                return b.length == 8 ? Long.toString(buf.getLong()) : hex(b);
            case "w":
                if (b.length < 8) {
                    return hex(b);
                }
                return text(Arrays.copyOf(b, b.length - 8)) + "@" + buf.getLong(b.length - 8);
            case "sw":
                if (b.length < 16) {
                    return hex(b);
                }
                return text(Arrays.copyOf(b, b.length - 16)) + "@" + buf.getLong(b.length - 8) + "/" + buf.getLong(b.length - 16);
            default:
                return text(b);
        }
    }
}
