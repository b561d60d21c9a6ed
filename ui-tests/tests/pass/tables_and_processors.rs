//! table with a named store, to_stream, join, left_join, process over several stores with
//! range and delete, a user serde, null keys (Unit) and Nullable values.
use dekaf_streams::prelude::*;
use dekaf_streams::serdes::{Encoded, SerdeError};
use dekaf_streams::testing::TestDriver;
use std::ops::Bound;

/// Celsius as one signed byte.
pub struct Celsius;

impl Serde for Celsius {
    type Value = i8;
    fn serialize(value: &i8, out: &mut Vec<u8>) -> Result<Encoded, SerdeError> {
        out.push(*value as u8);
        Ok(Encoded::Present)
    }
    fn deserialize(bytes: Option<&[u8]>) -> Result<i8, SerdeError> {
        match bytes {
            Some([b]) => Ok(*b as i8),
            Some(b) => Err(SerdeError::Length { expected: 1, actual: b.len() }),
            None => Err(SerdeError::Null),
        }
    }
}

topology! {
    pub Mixed = "mixed" {
        let limits = table("limits", Utf8, Celsius, "limit-store");
        limits.to_stream().to("limits-changes", Utf8, Nullable::<Celsius>);
        let readings = stream("readings", Utf8, Celsius);
        readings.join(limits, |t, limit| if t > limit { "over" } else { "ok" }.to_owned()).to("over-limit", Utf8, Utf8);
        readings.left_join(limits, |t, limit| limit.map(|l| t - l)).to("margin", Utf8, Nullable::<Celsius>);
        store("last", Utf8, Celsius);
        store("count", Utf8, I64);
        readings
            .process(["last", "count"], |ctx, sensor, t| {
                let previous = ctx.last().get(&sensor)?;
                ctx.last().put(&sensor, &t)?;
                let n = ctx.count().get(&sensor)?.unwrap_or(0) + 1;
                if n >= 3 {
                    ctx.count().delete(&sensor)?;
                } else {
                    ctx.count().put(&sensor, &n)?;
                }
                let known = ctx.last().range(Bound::Included(&"a".to_owned()), Bound::Unbounded)?.len() as i64;
                Ok(previous.map(|p| ((), format!("{sensor}: {p} -> {t} ({known} sensors)"))))
            })
            .to("changes", Unit, Utf8);
    }
}

fn main() {
    let d = TestDriver::<Mixed>::new();
    let limits = d.input_topic(Mixed::LIMITS);
    let readings = d.input_topic(Mixed::READINGS);
    limits.pipe_input("s1".into(), 30);
    readings.pipe_input("s1".into(), 25);
    readings.pipe_input("s1".into(), 35);
    readings.pipe_input("s2".into(), -5);
    let s = |v: &str| v.to_owned();
    assert_eq!(d.output_topic(Mixed::LIMITS_CHANGES).read_key_values_to_list(), [(s("s1"), Some(30))]);
    assert_eq!(d.output_topic(Mixed::OVER_LIMIT).read_values_to_list(), [s("ok"), s("over")]);
    assert_eq!(d.output_topic(Mixed::MARGIN).read_values_to_list(), [Some(-5), Some(5), None]);
    let changes = d.output_topic(Mixed::CHANGES);
    let raw = changes.read_raw().expect("a change");
    assert_eq!(raw.key, None);
    assert_eq!(raw.value.as_deref(), Some(&b"s1: 25 -> 35 (1 sensors)"[..]));
    assert!(changes.is_empty());
    assert_eq!(d.key_value_store(Mixed::LIMIT_STORE).get(&s("s1")), Some(30));
    assert_eq!(d.key_value_store(Mixed::LAST).all(), [(s("s1"), 35), (s("s2"), -5)]);
    assert_eq!(d.key_value_store(Mixed::COUNT).get(&s("s1")), Some(2));
    readings.pipe_input("s1".into(), 36);
    assert_eq!(d.key_value_store(Mixed::COUNT).get(&s("s1")), None);
    let tombstones = d.changelog("mixed-count-changelog").iter().filter(|r| r.value.is_none()).count();
    assert_eq!(tombstones, 1);
}
