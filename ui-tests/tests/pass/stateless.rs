//! filter, filter_not, map, try_map, map_values (with and without key), try_map_values,
//! flat_map, flat_map_values (with key), select_key, peek, merge, branch, fan-out.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

fn shout(v: String) -> String {
    v.to_uppercase()
}

topology! {
    pub Stateless = "stateless" {
        let words = stream("words", Utf8, Utf8);
        let lengths = stream("lengths", Utf8, I64);
        words.filter(|_, v| v.len() > 2).map_values(shout).to("long", Utf8, Utf8);
        words.filter_not(|_, v| v.len() > 2).map(|k, v| (v, k)).to("short-swapped", Utf8, Utf8);
        words.map_values(|k, v| format!("{k}:{v}")).to("keyed", Utf8, Utf8);
        words
            .try_map(|k, v| v.parse::<i64>().map(|n| (k, n)).map_err(ProcessError::msg))
            .to("numbers", Utf8, I64);
        lengths.try_map_values(|k, n| if n >= 0 { Ok(n * 2) } else { Err(ProcessError::msg(k)) }).to("doubled", Utf8, I64);
        words.flat_map(|k, v| v.chars().map(move |c| (c.to_string(), k.clone()))).to("chars", Utf8, Utf8);
        words.flat_map_values(|k, v| [k.clone(), v.clone()]).to("both", Utf8, Utf8);
        let rekeyed = words.select_key(|_, v| v.len() as i64).peek(|k, v| assert!(*k >= 0 && !v.is_empty()));
        rekeyed.to("by-length", I64, Utf8);
        let others = lengths.map_values(|n| n.to_string()).select_key(|k, _| k.len() as i64);
        rekeyed.merge(others).to("merged", I64, Utf8);
        let [small, large, _rest] = lengths.branch(|_, n| *n < 10, |_, n| *n < 100, |_, _| true);
        small.to("small", Utf8, I64);
        large.to("large", Utf8, I64);
        on_error(|_| ErrorResponse::Continue);
    }
}

fn main() {
    let d = TestDriver::<Stateless>::new();
    let words = d.input_topic(Stateless::WORDS);
    let lengths = d.input_topic(Stateless::LENGTHS);
    words.pipe_input("a".into(), "hello".into());
    words.pipe_input("b".into(), "42".into());
    lengths.pipe_input("x".into(), 5);
    lengths.pipe_input("yy".into(), 50);
    lengths.pipe_input("zzz".into(), 500);
    lengths.pipe_input("neg".into(), -1);
    let s = |v: &str| v.to_owned();
    assert_eq!(d.output_topic(Stateless::LONG).read_values_to_list(), [s("HELLO")]);
    assert_eq!(d.output_topic(Stateless::SHORT_SWAPPED).read_key_values_to_list(), [(s("42"), s("b"))]);
    assert_eq!(d.output_topic(Stateless::KEYED).read_values_to_list(), [s("a:hello"), s("b:42")]);
    // "hello" does not parse in try_map: on_error says Continue, so the operators after it in
    // this record's fan-out (flat_map, flat_map_values, select_key) do not see it; output that
    // earlier operators forwarded stays. Likewise -1 stops at try_map_values.
    assert_eq!(d.output_topic(Stateless::NUMBERS).read_key_values_to_list(), [(s("b"), 42)]);
    assert_eq!(d.output_topic(Stateless::DOUBLED).read_values_to_list(), [10, 100, 1000]);
    assert_eq!(d.output_topic(Stateless::CHARS).read_key_values_to_list(), [(s("4"), s("b")), (s("2"), s("b"))]);
    assert_eq!(d.output_topic(Stateless::BOTH).read_values_to_list(), [s("b"), s("42")]);
    assert_eq!(d.output_topic(Stateless::BY_LENGTH).read_key_values_to_list(), [(2, s("42"))]);
    assert_eq!(
        d.output_topic(Stateless::MERGED).read_key_values_to_list(),
        [(2, s("42")), (1, s("5")), (2, s("50")), (3, s("500"))]
    );
    assert_eq!(d.output_topic(Stateless::SMALL).read_values_to_list(), [5]);
    assert_eq!(d.output_topic(Stateless::LARGE).read_values_to_list(), [50]);
    assert_eq!(d.records_skipped(), 2);
}
