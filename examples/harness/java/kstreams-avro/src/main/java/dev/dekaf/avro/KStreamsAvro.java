package dev.dekaf.avro;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import io.apicurio.registry.serde.avro.AvroSerde;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The Java side of dekaf-streams' Avro takeover test: a Kafka Streams 4.4 word count over Avro
 * records and a producer of its input, both with Apicurio's Kafka serdes in their
 * Confluent-compatible framing (magic byte 0, the 4-byte content id, no headers), talking to
 * Apicurio's own API.
 *
 * <pre>
 * java -cp 'LIB/*' KStreamsAvro.java produce BOOTSTRAP REGISTRY_V3_URL TOPIC VERSION KEY_PREFIX
 *     writes each line of stdin as a dekaf.it.Sentence record under the subject TOPIC-value,
 *     with schema VERSION 1 ({text}) or 2 ({text, lang = "en"}), keyed KEY_PREFIX0, KEY_PREFIX1,
 *     ...; prints `produced N`
 * java -cp 'LIB/*' KStreamsAvro.java streams BOOTSTRAP REGISTRY_V3_URL APP_ID INPUT OUTPUT STATE_DIR
 *     runs the word count (streams protocol, exactly-once, no record cache) until SIGTERM, which
 *     closes it (committing); prints `state NEW -> RUNNING` lines; exits 1 if it failed
 * </pre>
 *
 * The word count declares what dekaf-streams' `group_by(..).count("counts")` declares: the
 * repartition topic APP_ID-counts-repartition (a {@code groupBy} without {@code Grouped.as} is
 * named after the store) and the changelog APP_ID-counts-changelog.
 */
public final class KStreamsAvro {
    static final String SENTENCE_V1 =
        "{\"type\":\"record\",\"name\":\"Sentence\",\"namespace\":\"dekaf.it\","
            + "\"fields\":[{\"name\":\"text\",\"type\":\"string\"}]}";
    static final String SENTENCE_V2 =
        "{\"type\":\"record\",\"name\":\"Sentence\",\"namespace\":\"dekaf.it\","
            + "\"fields\":[{\"name\":\"text\",\"type\":\"string\"},"
            + "{\"name\":\"lang\",\"type\":\"string\",\"default\":\"en\"}]}";
    static final String WORD_COUNT =
        "{\"type\":\"record\",\"name\":\"WordCount\",\"namespace\":\"dekaf.it\","
            + "\"fields\":[{\"name\":\"word\",\"type\":\"string\"},{\"name\":\"count\",\"type\":\"long\"}]}";

    static Map<String, Object> serdes(String registry) {
        Map<String, Object> p = new HashMap<>();
        p.put("apicurio.registry.url", registry);
        p.put("apicurio.registry.auto-register", "true");
        // Confluent-compatible framing: ids in the payload (4 bytes, content ids), no headers.
        p.put("apicurio.registry.headers.enabled", "false");
        p.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
        p.put("apicurio.registry.use-id", "contentId");
        return p;
    }

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "produce" -> produce(args[1], args[2], args[3], Integer.parseInt(args[4]), args[5]);
            case "streams" -> System.exit(streams(args[1], args[2], args[3], args[4], args[5], args[6]));
            default -> throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }

    static void produce(String bootstrap, String registry, String topic, int version, String keyPrefix)
            throws Exception {
        Properties p = new Properties();
        p.putAll(serdes(registry));
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", AvroKafkaSerializer.class.getName());
        Schema schema = new Schema.Parser().parse(version == 1 ? SENTENCE_V1 : SENTENCE_V2);
        int n = 0;
        try (KafkaProducer<String, GenericRecord> producer = new KafkaProducer<>(p);
             BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                GenericRecord r = new GenericData.Record(schema);
                r.put("text", line);
                if (version != 1) {
                    r.put("lang", "en");
                }
                producer.send(new ProducerRecord<>(topic, keyPrefix + n, r));
                n++;
            }
            producer.flush();
        }
        System.out.println("produced " + n);
    }

    static <T> Serde<T> avro(String registry, boolean isKey) {
        Serde<T> serde = new AvroSerde<>();
        serde.configure(serdes(registry), isKey);
        return serde;
    }

    static int streams(String bootstrap, String registry, String appId, String input, String output,
            String stateDir) throws Exception {
        Serde<String> utf8 = Serdes.String();
        Serde<GenericRecord> sentences = avro(registry, false);
        Serde<GenericRecord> counts = avro(registry, false);
        Schema wordCount = new Schema.Parser().parse(WORD_COUNT);

        StreamsBuilder b = new StreamsBuilder();
        b.stream(input, Consumed.with(utf8, sentences))
            .flatMapValues(s -> Arrays.asList(s.get("text").toString().split(" ")))
            .groupBy((k, w) -> w, Grouped.with(utf8, utf8))
            .count(Materialized.<String, Long, KeyValueStore<Bytes, byte[]>>as("counts")
                .withKeySerde(utf8).withValueSerde(Serdes.Long()))
            .toStream()
            .mapValues((word, count) -> {
                GenericRecord r = new GenericData.Record(wordCount);
                r.put("word", word);
                r.put("count", count);
                return r;
            })
            .to(output, Produced.with(utf8, counts));

        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        // Every update of every count is forwarded, as on the dekaf-streams side of the test.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);

        KafkaStreams streams = new KafkaStreams(b.build(), p);
        CountDownLatch done = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            System.out.println("state " + before + " -> " + now);
            System.out.flush();
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                done.countDown();
            }
        });
        // close() returns as soon as the state is NOT_RUNNING, before the close thread calls the
        // listener; the JVM halts when this hook returns, so the hook waits for the listener's
        // `state PENDING_SHUTDOWN -> NOT_RUNNING` line (the test looks for it) to be printed.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(30));
            try {
                done.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "kstreams-avro-shutdown"));
        streams.start();
        done.await();
        return streams.state() == KafkaStreams.State.ERROR ? 1 : 0;
    }
}
