//! Byte compatibility of the stock serdes with Kafka's own serializers (`kafka-clients` 4.4.0),
//! both ways: every case's Rust bytes must equal the Java serializer's bytes, Java must read the
//! Rust bytes as the case's value, and Rust must read the Java bytes as it. Corrupt inputs must
//! be rejected by both sides.
//!
//! The Java side is `tests/java-serdes` (a Maven project): Maven resolves `kafka-clients` (once,
//! into Cargo's target directory) and one JVM runs `SerdeCheck.java` for all cases. Needs `java`
//! (17+) and `mvn`; without them the test is skipped with a message, except under `CI=true`,
//! where it fails.

use std::fmt::Debug;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use dekaf_streams::serdes::{
    Bool, Encoded, F32, F64, I16, I32, I64, ListOf, Nullable, Serde, Utf8, Uuid, Void,
};

/// What reading some bytes with a case's serde gave.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// The case's value.
    Same,
    /// Another value (shown).
    Other(String),
    /// The serde refused the bytes.
    Error(String),
}

/// Reads bytes with a case's serde and compares with the case's value.
type Reader = Box<dyn Fn(Option<&[u8]>) -> Read>;

/// A named value and its serde, as `SerdeCheck.java` has it under the same name.
struct Case {
    name: &'static str,
    /// What the Rust serde writes; `None` is null.
    bytes: Option<Vec<u8>>,
    read: Reader,
}

fn case<S: Serde>(name: &'static str, value: S::Value) -> Case
where
    S::Value: PartialEq + Debug,
{
    case_by::<S>(name, value, |a, b| a == b)
}

/// A case whose values compare with `same` (floats: by bits, as Java's `Float.equals` and
/// `Double.equals` do, so that NaN is itself and -0.0 is not 0.0).
fn case_by<S: Serde>(
    name: &'static str,
    value: S::Value,
    same: fn(&S::Value, &S::Value) -> bool,
) -> Case
where
    S::Value: Debug,
{
    let mut out = Vec::new();
    let bytes = match S::serialize(&value, &mut out) {
        Ok(Encoded::Present) => Some(out),
        Ok(Encoded::Null) => None,
        Err(e) => panic!("{name}: the Rust serde cannot write the case's value: {e}"),
    };
    Case {
        name,
        bytes,
        read: Box::new(move |bytes| match S::deserialize(bytes) {
            Ok(read) if same(&read, &value) => Read::Same,
            Ok(read) => Read::Other(format!("{read:?}")),
            Err(e) => Read::Error(e.to_string()),
        }),
    }
}

fn f32_bits(a: &f32, b: &f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn f64_bits(a: &f64, b: &f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[allow(clippy::ptr_arg)] // the `same` of a `ListOf` case compares its values, `Vec`s
fn f64_list(a: &Vec<Option<f64>>, b: &Vec<Option<f64>>) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Some(x), Some(y)) => f64_bits(x, y),
            (x, y) => x.is_none() && y.is_none(),
        })
}

fn some_uuid() -> uuid::Uuid {
    uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000)
}

/// The cases, in the order and with the names of `SerdeCheck.java`.
fn cases() -> Vec<Case> {
    let s = |v: &str| Some(v.to_owned());
    vec![
        case::<I16>("short_min", i16::MIN),
        case::<I16>("short_minus_one", -1),
        case::<I16>("short_258", 258),
        case_by::<F32>("float_one_and_half", 1.5, f32_bits),
        case_by::<F32>("float_minus_zero", -0.0, f32_bits),
        case_by::<F32>("float_nan_payload", f32::from_bits(0x7fc0_0001), |a, b| {
            a.to_bits() == b.to_bits()
        }),
        case_by::<F32>("float_infinity", f32::INFINITY, f32_bits),
        case_by::<F32>("float_min_subnormal", f32::from_bits(1), f32_bits),
        case_by::<F64>("double_pi", std::f64::consts::PI, f64_bits),
        case_by::<F64>("double_minus_zero", -0.0, f64_bits),
        case_by::<F64>(
            "double_nan_payload",
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64_bits,
        ),
        case_by::<F64>("double_max", f64::MAX, f64_bits),
        case_by::<F64>("double_minus_infinity", f64::NEG_INFINITY, f64_bits),
        case::<Bool>("bool_true", true),
        case::<Bool>("bool_false", false),
        case::<Uuid>("uuid_some", some_uuid()),
        case::<Uuid>("uuid_nil", uuid::Uuid::nil()),
        case::<Uuid>("uuid_max", uuid::Uuid::max()),
        case::<Void>("void", ()),
        case::<ListOf<I32>>("list_int", vec![1, -1, i32::MAX]),
        case::<ListOf<Nullable<I32>>>("list_int_nulls", vec![None, Some(5), None]),
        case::<ListOf<I32>>("list_int_empty", vec![]),
        case::<ListOf<Nullable<I16>>>("list_short", vec![Some(7), None]),
        case::<ListOf<I64>>("list_long", vec![i64::MIN, 0]),
        case::<ListOf<F32>>("list_float", vec![0.25]),
        case_by::<ListOf<Nullable<F64>>>(
            "list_double",
            vec![Some(1.5), None, Some(-2.0)],
            f64_list,
        ),
        case::<ListOf<Nullable<Uuid>>>("list_uuid", vec![Some(some_uuid()), None]),
        case::<ListOf<Nullable<Utf8>>>("list_string", vec![s("a"), s(""), None, s("héllo")]),
        case::<ListOf<Utf8>>("list_string_empty", vec![]),
        case::<Nullable<ListOf<Utf8>>>("list_string_null", None),
        case::<ListOf<Nullable<Bool>>>("list_bool", vec![Some(true), Some(false), None]),
        case::<ListOf<Nullable<ListOf<I32>>>>(
            "list_list_int",
            vec![Some(vec![1, 2]), Some(vec![]), None],
        ),
    ]
}

/// Bytes no Kafka serializer writes but that both sides read as the case's value.
fn also_read() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        // UUID text in upper case.
        (
            "uuid_some",
            b"123E4567-E89B-12D3-A456-426614174000".to_vec(),
        ),
        // Integers as size-prefixed entries: the deserializer follows the strategy byte.
        (
            "list_int",
            [
                &[1u8, 0, 0, 0, 3][..],
                &[0, 0, 0, 4, 0, 0, 0, 1],
                &[0, 0, 0, 4, 0xff, 0xff, 0xff, 0xff],
                &[0, 0, 0, 4, 0x7f, 0xff, 0xff, 0xff],
            ]
            .concat(),
        ),
    ]
}

/// Bytes both sides must refuse. (Not a null record: Kafka's deserializers read it as Java's
/// `null`, which a Rust serde reads as `None` only inside `Nullable`.)
fn corrupt() -> Vec<(&'static str, Option<Vec<u8>>)> {
    let b = |bytes: &[u8]| Some(bytes.to_vec());
    vec![
        ("bool_true", b(&[2])),
        ("bool_true", b(&[1, 1])),
        ("bool_true", b(&[])),
        ("short_min", b(&[1, 2, 3])),
        ("float_one_and_half", b(&[0])),
        ("double_pi", b(&[0, 0, 0, 0])),
        ("uuid_some", b(b"123e4567-e89b-12d3-a456-42661417400g")),
        ("uuid_some", b(b"AAAAAAAAAAAAAAAA")),
        ("uuid_some", b(b"")),
        ("void", b(&[0])),
        ("void", b(&[])),
        ("list_int", b(&[])),
        ("list_int", b(&[2, 0, 0, 0, 0])),
        ("list_int", b(&[0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1])),
        ("list_string", b(&[0, 0, 0, 0, 0, 0, 0, 0, 0])),
        ("list_string", b(&[1, 0, 0, 0, 1, 0, 0, 0, 5, b'a'])),
        ("list_string", b(&[1, 0xff, 0xff, 0xff, 0xff])),
        ("list_string", b(&[1, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfe])),
        ("list_bool", b(&[1, 0, 0, 0, 1, 0, 0, 0, 1, 2])),
    ]
}

/// Bytes Kafka's `ListDeserializer` reads but `ListOf` refuses: bytes after the last entry, and
/// a null-entry index past the end.
fn stricter() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("list_string_empty", vec![1, 0, 0, 0, 0, 9]),
        (
            "list_int_empty",
            vec![0, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 0],
        ),
    ]
}

fn hex(bytes: Option<&[u8]>) -> String {
    match bytes {
        None => "-".to_owned(),
        Some(bytes) => std::iter::once("x".to_owned())
            .chain(bytes.iter().map(|b| format!("{b:02x}")))
            .collect(),
    }
}

fn unhex(text: &str) -> Result<Option<Vec<u8>>, String> {
    if text == "-" {
        return Ok(None);
    }
    let digits = text
        .strip_prefix('x')
        .ok_or_else(|| format!("not bytes: {text}"))?;
    (0..digits.len())
        .step_by(2)
        .map(|i| {
            digits
                .get(i..i + 2)
                .and_then(|d| u8::from_str_radix(d, 16).ok())
                .ok_or_else(|| format!("bad hex: {text}"))
        })
        .collect::<Result<Vec<u8>, String>>()
        .map(Some)
}

/// Whether `program --version`-like `args` run.
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Resolves `kafka-clients` and its dependencies into `lib` with Maven, unless a previous run
/// did so for the same `pom.xml`.
fn resolve(pom: &Path, lib: &Path) {
    let stamp = lib.join(".pom.xml");
    let pom_text = std::fs::read(pom).expect("read pom.xml");
    if std::fs::read(&stamp).is_ok_and(|s| s == pom_text) {
        return;
    }
    let _ = std::fs::remove_dir_all(lib);
    let out = Command::new("mvn")
        .args(["-B", "-q", "-f"])
        .arg(pom)
        .arg("org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies")
        .arg("-DincludeScope=runtime")
        .arg(format!("-DoutputDirectory={}", lib.display()))
        .output()
        .expect("run mvn");
    assert!(
        out.status.success(),
        "Maven could not resolve kafka-clients for {} (Maven Central must be reachable, or the jars in ~/.m2):\n{}{}",
        pom.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&stamp, pom_text).expect("write the stamp");
}

#[test]
fn stock_serdes_match_kafka_clients() {
    let project = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java-serdes");
    let missing: Vec<&str> = [
        ("java", runs("java", &["-version"])),
        ("mvn", runs("mvn", &["-v"])),
    ]
    .into_iter()
    .filter(|(_, found)| !found)
    .map(|(tool, _)| tool)
    .collect();
    if !missing.is_empty() {
        let reason = format!(
            "{} not found: the Java side of the serde compatibility test needs Java 17+ and Maven on the PATH",
            missing.join(" and ")
        );
        assert!(!in_ci(), "{reason} (CI=true: not skipping)");
        eprintln!("skipping stock_serdes_match_kafka_clients: {reason}");
        return;
    }
    let lib = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("java-serdes-lib");
    resolve(&project.join("pom.xml"), &lib);

    let cases = cases();
    let by_name = |name: &str| {
        cases
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("no case {name}"))
    };
    // Every input line Java gets, with what Java must say about it.
    let mut inputs: Vec<(String, Option<Vec<u8>>, &str)> = Vec::new();
    for c in &cases {
        inputs.push((c.name.to_owned(), c.bytes.clone(), "ok"));
    }
    for (name, bytes) in also_read() {
        inputs.push((name.to_owned(), Some(bytes), "ok"));
    }
    for (name, bytes) in corrupt() {
        inputs.push((name.to_owned(), bytes, "error"));
    }
    for (name, bytes) in stricter() {
        inputs.push((name.to_owned(), Some(bytes), "ok"));
    }
    let stdin: String = inputs
        .iter()
        .map(|(name, bytes, _)| format!("de {name} {}\n", hex(bytes.as_deref())))
        .collect();

    let mut java = Command::new("java")
        .arg("-cp")
        .arg(lib.join("*"))
        .arg(project.join("src/main/java/dev/dekaf/serdes/SerdeCheck.java"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start java");
    let mut pipe = java.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || pipe.write_all(stdin.as_bytes()));
    let out = java.wait_with_output().expect("run SerdeCheck");
    writer.join().expect("writer").expect("write to java");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    assert!(
        out.status.success(),
        "SerdeCheck failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut problems = Vec::new();
    let mut serialized = Vec::new();
    let mut verdicts = Vec::new();
    for line in stdout.lines() {
        let mut parts = line.splitn(3, ' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("ser"), Some(name), Some(bytes)) => {
                serialized.push((name.to_owned(), unhex(bytes).expect("Java's hex")))
            }
            (Some("de"), Some(name), Some(verdict)) => {
                verdicts.push((name.to_owned(), verdict.to_owned()))
            }
            _ => problems.push(format!("unexpected output line: {line}")),
        }
    }

    // Rust → bytes == Java → bytes, and Rust reads Java's bytes as the value.
    assert_eq!(
        serialized
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        cases.iter().map(|c| c.name).collect::<Vec<_>>(),
        "the cases of SerdeCheck.java and this test differ"
    );
    for ((name, java_bytes), c) in serialized.iter().zip(&cases) {
        if java_bytes != &c.bytes {
            problems.push(format!(
                "{name}: Java writes {}, Rust writes {}",
                hex(java_bytes.as_deref()),
                hex(c.bytes.as_deref())
            ));
        }
        let read = (c.read)(java_bytes.as_deref());
        if read != Read::Same {
            problems.push(format!(
                "{name}: Rust reads Java's {} as {read:?}",
                hex(java_bytes.as_deref())
            ));
        }
    }

    // Java's verdict on every input, and Rust's on the same bytes.
    assert_eq!(verdicts.len(), inputs.len(), "one verdict per input line");
    let stricter = stricter();
    for ((name, bytes, expected), (java_name, verdict)) in inputs.iter().zip(&verdicts) {
        assert_eq!(name, java_name);
        let shown = hex(bytes.as_deref());
        if verdict.split(' ').next() != Some(*expected) {
            problems.push(format!(
                "{name} {shown}: Java says `{verdict}`, expected `{expected}`"
            ));
        }
        let rust = (by_name(name).read)(bytes.as_deref());
        let is_stricter = stricter
            .iter()
            .any(|(n, b)| n == name && Some(b) == bytes.as_ref());
        let rust_ok = match (*expected, &rust) {
            (_, Read::Error(_)) if is_stricter => true,
            (_, _) if is_stricter => false,
            ("ok", Read::Same) => true,
            ("error", Read::Error(_)) => true,
            _ => false,
        };
        if !rust_ok {
            problems.push(format!(
                "{name} {shown}: Java says `{verdict}`, Rust reads {rust:?}"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the stock serdes differ from kafka-clients 4.4.0:\n{}",
        problems.join("\n")
    );
}
