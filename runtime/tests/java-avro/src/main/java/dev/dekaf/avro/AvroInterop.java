package dev.dekaf.avro;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import io.apicurio.registry.serde.avro.AvroKafkaDeserializer;
import io.apicurio.registry.serde.avro.AvroKafkaSerializer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An independent Avro writer and reader for dekaf-streams' interoperability test: Apicurio's
 * Kafka serdes in their Confluent-compatible framing (magic byte 0, the 4-byte content id, no
 * headers), talking to Apicurio's own API.
 *
 * <pre>
 * java -cp 'LIB/*' AvroInterop.java produce BOOTSTRAP REGISTRY_V3_URL TOPIC SENTENCE...
 *     writes each sentence as a dekaf.it.Sentence record {text} (schema version 1: no `lang`),
 *     keyed s0, s1, ...
 * java -cp 'LIB/*' AvroInterop.java consume BOOTSTRAP REGISTRY_V3_URL TOPIC COUNT TIMEOUT_MS
 *     reads (read_committed, from the start) until COUNT records or the time limit, and prints
 *     each as `key=<key> value=<record as JSON>`; exits 1 with fewer.
 * </pre>
 */
public final class AvroInterop {
    static final String SENTENCE_V1 =
        "{\"type\":\"record\",\"name\":\"Sentence\",\"namespace\":\"dekaf.it\","
            + "\"fields\":[{\"name\":\"text\",\"type\":\"string\"}]}";

    static Properties serdes(String registry) {
        Properties p = new Properties();
        p.put("apicurio.registry.url", registry);
        p.put("apicurio.registry.auto-register", "true");
        // Confluent-compatible framing: ids in the payload (4 bytes, content ids), no headers.
        p.put("apicurio.registry.headers.enabled", "false");
        p.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
        p.put("apicurio.registry.use-id", "contentId");
        return p;
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[1];
        String registry = args[2];
        String topic = args[3];
        if (args[0].equals("produce")) {
            Properties p = serdes(registry);
            p.put("bootstrap.servers", bootstrap);
            p.put("acks", "all");
            p.put("key.serializer", StringSerializer.class.getName());
            p.put("value.serializer", AvroKafkaSerializer.class.getName());
            Schema schema = new Schema.Parser().parse(SENTENCE_V1);
            try (KafkaProducer<String, GenericRecord> producer = new KafkaProducer<>(p)) {
                for (int i = 4; i < args.length; i++) {
                    GenericRecord r = new GenericData.Record(schema);
                    r.put("text", args[i]);
                    producer.send(new ProducerRecord<>(topic, "s" + (i - 4), r)).get();
                }
                producer.flush();
            }
            System.out.println("produced " + (args.length - 4));
        } else {
            int count = Integer.parseInt(args[4]);
            long deadline = System.currentTimeMillis() + Long.parseLong(args[5]);
            Properties p = serdes(registry);
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", "dekaf-avro-interop-" + System.nanoTime());
            p.put("auto.offset.reset", "earliest");
            p.put("isolation.level", "read_committed");
            p.put("enable.auto.commit", "false");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", AvroKafkaDeserializer.class.getName());
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, Object> consumer = new KafkaConsumer<>(p)) {
                consumer.subscribe(List.of(topic));
                while (seen.size() < count && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, Object> r : consumer.poll(Duration.ofMillis(200))) {
                        seen.add("key=" + r.key() + " value=" + r.value());
                    }
                }
            }
            seen.forEach(System.out::println);
            if (seen.size() < count) {
                System.err.println("read " + seen.size() + " of " + count + " records before the time limit");
                System.exit(1);
            }
        }
    }
}
