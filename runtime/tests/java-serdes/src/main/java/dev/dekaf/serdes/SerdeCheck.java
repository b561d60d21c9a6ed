package dev.dekaf.serdes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

import org.apache.kafka.common.serialization.BooleanDeserializer;
import org.apache.kafka.common.serialization.BooleanSerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.DoubleDeserializer;
import org.apache.kafka.common.serialization.DoubleSerializer;
import org.apache.kafka.common.serialization.FloatDeserializer;
import org.apache.kafka.common.serialization.FloatSerializer;
import org.apache.kafka.common.serialization.IntegerDeserializer;
import org.apache.kafka.common.serialization.IntegerSerializer;
import org.apache.kafka.common.serialization.ListDeserializer;
import org.apache.kafka.common.serialization.ListSerializer;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.ShortDeserializer;
import org.apache.kafka.common.serialization.ShortSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.UUIDDeserializer;
import org.apache.kafka.common.serialization.UUIDSerializer;
import org.apache.kafka.common.serialization.VoidDeserializer;
import org.apache.kafka.common.serialization.VoidSerializer;

/**
 * Kafka's serializers on a fixed set of named values, for dekaf-streams' runtime/tests/java_serdes.rs,
 * which holds the same cases as Rust values.
 *
 * <p>It prints {@code ser NAME BYTES} for every case (the case's value serialized), then reads lines
 * {@code de NAME BYTES} from stdin until its end and deserializes each with the case's deserializer:
 * {@code de NAME ok} when the result equals the case's value ({@code Objects.equals}),
 * {@code de NAME mismatch VALUE} when it does not, {@code de NAME error MESSAGE} when the
 * deserializer throws. BYTES is {@code -} for null, else {@code x} and the bytes in hex.
 */
public final class SerdeCheck {
    private static final String TOPIC = "java-serdes";

    private record Case<T>(Serializer<T> serializer, Deserializer<T> deserializer, T value) {
        byte[] serialize() {
            return serializer.serialize(TOPIC, value);
        }

        String check(byte[] bytes) {
            T read = deserializer.deserialize(TOPIC, bytes);
            return Objects.equals(read, value) ? "ok" : "mismatch " + read;
        }
    }

    private static final Map<String, Case<?>> CASES = new LinkedHashMap<>();

    private static <T> void add(String name, Serializer<T> serializer, Deserializer<T> deserializer, T value) {
        CASES.put(name, new Case<>(serializer, deserializer, value));
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static <T> ListDeserializer<T> listOf(Deserializer<T> inner) {
        return new ListDeserializer(ArrayList.class, inner);
    }

    private static final UUID SOME_UUID = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

    static {
        add("short_min", new ShortSerializer(), new ShortDeserializer(), Short.MIN_VALUE);
        add("short_minus_one", new ShortSerializer(), new ShortDeserializer(), (short) -1);
        add("short_258", new ShortSerializer(), new ShortDeserializer(), (short) 258);

        add("float_one_and_half", new FloatSerializer(), new FloatDeserializer(), 1.5f);
        add("float_minus_zero", new FloatSerializer(), new FloatDeserializer(), -0.0f);
        add("float_nan_payload", new FloatSerializer(), new FloatDeserializer(), Float.intBitsToFloat(0x7fc00001));
        add("float_infinity", new FloatSerializer(), new FloatDeserializer(), Float.POSITIVE_INFINITY);
        add("float_min_subnormal", new FloatSerializer(), new FloatDeserializer(), Float.MIN_VALUE);

        add("double_pi", new DoubleSerializer(), new DoubleDeserializer(), Math.PI);
        add("double_minus_zero", new DoubleSerializer(), new DoubleDeserializer(), -0.0);
        // DoubleSerializer writes doubleToLongBits: the canonical NaN, whatever the payload.
        add("double_nan_payload", new DoubleSerializer(), new DoubleDeserializer(), Double.longBitsToDouble(0x7ff0000000000001L));
        add("double_max", new DoubleSerializer(), new DoubleDeserializer(), Double.MAX_VALUE);
        add("double_minus_infinity", new DoubleSerializer(), new DoubleDeserializer(), Double.NEGATIVE_INFINITY);

        add("bool_true", new BooleanSerializer(), new BooleanDeserializer(), true);
        add("bool_false", new BooleanSerializer(), new BooleanDeserializer(), false);

        add("uuid_some", new UUIDSerializer(), new UUIDDeserializer(), SOME_UUID);
        add("uuid_nil", new UUIDSerializer(), new UUIDDeserializer(), new UUID(0, 0));
        add("uuid_max", new UUIDSerializer(), new UUIDDeserializer(), new UUID(-1, -1));

        add("void", new VoidSerializer(), new VoidDeserializer(), null);

        add("list_int", new ListSerializer<>(new IntegerSerializer()), listOf(new IntegerDeserializer()),
            Arrays.asList(1, -1, Integer.MAX_VALUE));
        add("list_int_nulls", new ListSerializer<>(new IntegerSerializer()), listOf(new IntegerDeserializer()),
            Arrays.asList(null, 5, null));
        add("list_int_empty", new ListSerializer<>(new IntegerSerializer()), listOf(new IntegerDeserializer()),
            List.of());
        add("list_short", new ListSerializer<>(new ShortSerializer()), listOf(new ShortDeserializer()),
            Arrays.asList((short) 7, null));
        add("list_long", new ListSerializer<>(new LongSerializer()), listOf(new LongDeserializer()),
            Arrays.asList(Long.MIN_VALUE, 0L));
        add("list_float", new ListSerializer<>(new FloatSerializer()), listOf(new FloatDeserializer()),
            Arrays.asList(0.25f));
        add("list_double", new ListSerializer<>(new DoubleSerializer()), listOf(new DoubleDeserializer()),
            Arrays.asList(1.5, null, -2.0));
        add("list_uuid", new ListSerializer<>(new UUIDSerializer()), listOf(new UUIDDeserializer()),
            Arrays.asList(SOME_UUID, null));
        add("list_string", new ListSerializer<>(new StringSerializer()), listOf(new StringDeserializer()),
            Arrays.asList("a", "", null, "h\u00e9llo"));
        add("list_string_empty", new ListSerializer<>(new StringSerializer()), listOf(new StringDeserializer()),
            List.of());
        add("list_string_null", new ListSerializer<>(new StringSerializer()), listOf(new StringDeserializer()),
            null);
        add("list_bool", new ListSerializer<>(new BooleanSerializer()), listOf(new BooleanDeserializer()),
            Arrays.asList(true, false, null));
        add("list_list_int", new ListSerializer<>(new ListSerializer<>(new IntegerSerializer())),
            listOf(listOf(new IntegerDeserializer())),
            Arrays.asList(List.of(1, 2), List.of(), null));
    }

    private static String hex(byte[] bytes) {
        return bytes == null ? "-" : "x" + HexFormat.of().formatHex(bytes);
    }

    private static byte[] unhex(String text) {
        if (text.equals("-")) {
            return null;
        }
        if (!text.startsWith("x")) {
            throw new IllegalArgumentException("bytes must be - or x followed by hex, got " + text);
        }
        return HexFormat.of().parseHex(text.substring(1));
    }

    private static String message(Throwable e) {
        StringBuilder out = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (out.length() > 0) {
                out.append(": ");
            }
            out.append(t.getClass().getSimpleName()).append(' ').append(t.getMessage());
        }
        return out.toString().replace('\n', ' ');
    }

    public static void main(String[] args) throws IOException {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Case<?>> c : CASES.entrySet()) {
            out.append("ser ").append(c.getKey()).append(' ').append(hex(c.getValue().serialize())).append('\n');
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            String name = parts.length > 1 ? parts[1] : "?";
            String result;
            Case<?> c = CASES.get(name);
            if (parts.length != 3 || !parts[0].equals("de")) {
                result = "error bad input line: " + line;
            } else if (c == null) {
                result = "error unknown case";
            } else {
                try {
                    result = c.check(unhex(parts[2]));
                } catch (RuntimeException e) {
                    result = "error " + message(e);
                }
            }
            out.append("de ").append(name).append(' ').append(result).append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }
}
