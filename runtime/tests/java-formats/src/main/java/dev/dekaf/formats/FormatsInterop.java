package dev.dekaf.formats;

import java.io.ByteArrayInputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Message;
import com.google.protobuf.TextFormat;
import io.apicurio.registry.serde.config.SerdeConfig;
import io.apicurio.registry.serde.jsonschema.JsonSchemaKafkaDeserializer;
import io.apicurio.registry.serde.jsonschema.JsonSchemaKafkaSerializer;
import io.apicurio.registry.serde.protobuf.MessageIndexesUtil;
import io.apicurio.registry.serde.protobuf.ProtobufDeserializer;
import io.apicurio.registry.serde.protobuf.ProtobufKafkaSerializer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * An independent Protobuf and JSON Schema writer and reader for dekaf-streams' interoperability
 * tests: Apicurio's Kafka serdes in their Confluent-compatible framing (magic byte 0, the 4-byte
 * content id, for Protobuf the message indexes; no headers), talking to Apicurio's own API.
 *
 * <pre>
 * java -cp 'LIB/*' FormatsInterop.java produce protobuf|json BOOTSTRAP REGISTRY_V3_URL TOPIC SENTENCE...
 *     writes each sentence as a dekaf.it.Sentence {text}, keyed s0, s1, ...: Protobuf as a
 *     DynamicMessage of a descriptor built here (registered by the serializer); JSON as an object
 *     under the latest schema registered for the topic's subject (which must exist)
 * java -cp 'LIB/*' FormatsInterop.java serialize protobuf|json - REGISTRY_V3_URL TOPIC SENTENCE...
 *     the same without a broker: prints each sentence's record value in hex, one a line
 * java -cp 'LIB/*' FormatsInterop.java deserialize protobuf|json - REGISTRY_V3_URL TOPIC HEX...
 *     prints each record value (hex) as `value=VALUE`, as consume does
 * java -cp 'LIB/*' FormatsInterop.java consume protobuf|json BOOTSTRAP REGISTRY_V3_URL TOPIC COUNT TIMEOUT_MS
 *     reads (read_committed, from the start) until COUNT records or the time limit, and prints
 *     each as `key=KEY value=VALUE` (Protobuf: `indexes=[..] ` and the message in short text
 *     format; JSON compact); exits 1 with fewer.
 * </pre>
 *
 * <p>Apicurio's Protobuf deserializer (3.1.7) reads Confluent's message indexes but discards them:
 * without its own type reference in the record it needs the message's name
 * ({@code setMessageTypeName}, not a configuration key; the Kafka wrapper does not expose it) and
 * {@code DynamicMessage} as its return class. So the reader here runs the deserializer on the
 * record's bytes with the name {@code WordCount}, and prints the indexes as Apicurio's
 * {@code MessageIndexesUtil} reads them, which the test checks.
 */
public final class FormatsInterop {
    static final ObjectMapper JSON = new ObjectMapper();

    /** The file of examples/src/proto_words.proto, built without protoc. */
    static FileDescriptor words() throws Exception {
        FileDescriptorProto file = FileDescriptorProto.newBuilder()
            .setName("proto_words.proto")
            .setSyntax("proto3")
            .setPackage("dekaf.it")
            .addMessageType(DescriptorProto.newBuilder().setName("Sentence")
                .addField(field("text", 1, FieldDescriptorProto.Type.TYPE_STRING)))
            .addMessageType(DescriptorProto.newBuilder().setName("WordCount")
                .addField(field("word", 1, FieldDescriptorProto.Type.TYPE_STRING))
                .addField(field("count", 2, FieldDescriptorProto.Type.TYPE_INT64)))
            .build();
        return FileDescriptor.buildFrom(file, new FileDescriptor[0]);
    }

    static FieldDescriptorProto.Builder field(String name, int number, FieldDescriptorProto.Type type) {
        return FieldDescriptorProto.newBuilder()
            .setName(name)
            .setNumber(number)
            .setType(type)
            .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL);
    }

    static Properties serdes(String format, String registry) {
        Properties p = new Properties();
        p.put("apicurio.registry.url", registry);
        // Confluent-compatible framing: ids in the payload (4 bytes, content ids), no headers.
        p.put("apicurio.registry.headers.enabled", "false");
        p.put("apicurio.registry.id-handler", "io.apicurio.registry.serde.Default4ByteIdHandler");
        p.put("apicurio.registry.use-id", "contentId");
        if (format.equals("protobuf")) {
            p.put("apicurio.registry.auto-register", "true");
            // Message indexes, as Confluent: not Apicurio's default type reference.
            p.put("apicurio.registry.serde.send-indexes", "true");
            p.put("apicurio.registry.serde.send-type-ref", "false");
            p.put("apicurio.registry.serde.read-indexes", "true");
            p.put("apicurio.registry.serde.read-type-ref", "false");
        } else {
            // The schema is registered by the test (schemars' derivation of the Rust type).
            p.put("apicurio.registry.auto-register", "false");
            p.put("apicurio.registry.find-latest", "true");
            p.put("apicurio.registry.serde.validation-enabled", "true");
        }
        return p;
    }

    public static void main(String[] args) throws Exception {
        String format = args[1];
        String bootstrap = args[2];
        String registry = args[3];
        String topic = args[4];
        boolean protobuf = format.equals("protobuf");
        if (args[0].equals("serialize")) {
            Properties p = serdes(format, registry);
            Map<String, Object> config = new HashMap<>();
            p.forEach((k, v) -> config.put((String) k, v));
            Descriptor sentence = words().findMessageTypeByName("Sentence");
            try (org.apache.kafka.common.serialization.Serializer<Object> serializer = protobuf
                    ? (org.apache.kafka.common.serialization.Serializer) new ProtobufKafkaSerializer<Message>()
                    : (org.apache.kafka.common.serialization.Serializer) new JsonSchemaKafkaSerializer<Object>()) {
                serializer.configure(config, false);
                for (int i = 5; i < args.length; i++) {
                    Object value = protobuf
                        ? DynamicMessage.newBuilder(sentence)
                            .setField(sentence.findFieldByName("text"), args[i])
                            .build()
                        : JSON.createObjectNode().put("text", args[i]);
                    System.out.println(java.util.HexFormat.of().formatHex(serializer.serialize(topic, value)));
                }
            }
            return;
        }
        if (args[0].equals("deserialize")) {
            Properties p = serdes(format, registry);
            Map<String, Object> config = new HashMap<>();
            p.forEach((k, v) -> config.put((String) k, v));
            ProtobufDeserializer<Message> proto = new ProtobufDeserializer<>();
            JsonSchemaKafkaDeserializer<Object> json = new JsonSchemaKafkaDeserializer<>();
            if (protobuf) {
                config.put("apicurio.registry.deserializer.value.return-class", DynamicMessage.class.getName());
                proto.configure(new SerdeConfig(config), false);
                proto.setMessageTypeName("WordCount");
            } else {
                json.configure(config, false);
            }
            for (int i = 5; i < args.length; i++) {
                byte[] bytes = java.util.HexFormat.of().parseHex(args[i]);
                String value;
                if (protobuf) {
                    List<Integer> indexes = MessageIndexesUtil.readFrom(
                        new ByteArrayInputStream(bytes, 5, bytes.length - 5));
                    value = "indexes=" + indexes + " "
                        + TextFormat.shortDebugString(proto.deserializeData(topic, bytes));
                } else {
                    value = JSON.writeValueAsString(json.deserialize(topic, bytes));
                }
                System.out.println("value=" + value);
            }
            return;
        }
        if (args[0].equals("produce")) {
            Properties p = serdes(format, registry);
            p.put("bootstrap.servers", bootstrap);
            p.put("acks", "all");
            p.put("key.serializer", StringSerializer.class.getName());
            p.put("value.serializer", protobuf
                ? ProtobufKafkaSerializer.class.getName()
                : JsonSchemaKafkaSerializer.class.getName());
            Descriptor sentence = words().findMessageTypeByName("Sentence");
            try (KafkaProducer<String, Object> producer = new KafkaProducer<>(p)) {
                for (int i = 5; i < args.length; i++) {
                    Object value = protobuf
                        ? DynamicMessage.newBuilder(sentence)
                            .setField(sentence.findFieldByName("text"), args[i])
                            .build()
                        : JSON.createObjectNode().put("text", args[i]);
                    producer.send(new ProducerRecord<>(topic, "s" + (i - 5), value)).get();
                }
                producer.flush();
            }
            System.out.println("produced " + (args.length - 5));
        } else {
            int count = Integer.parseInt(args[5]);
            long deadline = System.currentTimeMillis() + Long.parseLong(args[6]);
            Properties p = serdes(format, registry);
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", "dekaf-formats-interop-" + System.nanoTime());
            p.put("auto.offset.reset", "earliest");
            p.put("isolation.level", "read_committed");
            p.put("enable.auto.commit", "false");
            p.put("key.deserializer", StringDeserializer.class.getName());
            p.put("value.deserializer", protobuf
                ? ByteArrayDeserializer.class.getName()
                : JsonSchemaKafkaDeserializer.class.getName());
            ProtobufDeserializer<Message> proto = new ProtobufDeserializer<>();
            if (protobuf) {
                Map<String, Object> config = new HashMap<>();
                p.forEach((k, v) -> config.put((String) k, v));
                config.put("apicurio.registry.deserializer.value.return-class", DynamicMessage.class.getName());
                proto.configure(new SerdeConfig(config), false);
                proto.setMessageTypeName("WordCount");
            }
            List<String> seen = new ArrayList<>();
            try (KafkaConsumer<String, Object> consumer = new KafkaConsumer<>(p)) {
                consumer.subscribe(List.of(topic));
                while (seen.size() < count && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, Object> r : consumer.poll(Duration.ofMillis(200))) {
                        String value;
                        if (protobuf) {
                            byte[] bytes = (byte[]) r.value();
                            List<Integer> indexes = MessageIndexesUtil.readFrom(
                                new ByteArrayInputStream(bytes, 5, bytes.length - 5));
                            value = "indexes=" + indexes + " "
                                + TextFormat.shortDebugString(proto.deserializeData(topic, bytes));
                        } else {
                            value = JSON.writeValueAsString(r.value());
                        }
                        seen.add("key=" + r.key() + " value=" + value);
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
