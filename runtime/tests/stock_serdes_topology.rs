//! The stock serdes in a topology: the macro takes them as key, value and aggregate serdes, and
//! the records and stores carry their bytes (through the TestDriver, without a broker).

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Readings keyed by sensor UUID, their histories as lists, signs with null keys.
    pub Readings = "stock-serdes" {
        let readings = stream("readings", Uuid, F64);
        readings
            .group_by_key()
            .aggregate("history", Vec::new, |_sensor: &uuid::Uuid, value: f64, mut history: Vec<Option<f64>>| {
                history.push((!value.is_nan()).then_some(value));
                history
            }, ListOf::<Nullable<F64>>)
            .to_stream()
            .to("histories", Uuid, ListOf::<Nullable<F64>>);
        readings
            .map(|_, value| ((), value > 0.0))
            .to("signs", Void, Bool);
        stream("levels", I16, F32)
            .map_values(|level: f32| level.to_bits() as i64)
            .to("level-bits", I16, I64);
    }
}

#[test]
fn stock_serdes_in_a_topology() {
    let driver = TestDriver::<Readings>::new();
    let sensor = uuid::Uuid::from_u128(0x123e4567_e89b_12d3_a456_426614174000);
    let readings = driver.input_topic(Readings::READINGS);
    readings.pipe_input(sensor, 1.5);
    readings.pipe_input(sensor, f64::NAN);
    readings.pipe_input(sensor, -2.0);

    let histories = driver.output_topic(Readings::HISTORIES);
    let raw = histories.read_raw().expect("a first history");
    // Kafka's UUIDSerializer: the UUID's text.
    assert_eq!(
        raw.key.as_deref(),
        Some(&b"123e4567-e89b-12d3-a456-426614174000"[..])
    );
    // Kafka's ListSerializer around DoubleSerializer: constant-size entries, no nulls, one entry.
    let mut one = vec![0, 0, 0, 0, 0, 0, 0, 0, 1];
    one.extend_from_slice(&1.5f64.to_be_bytes());
    assert_eq!(raw.value.as_deref(), Some(&one[..]));
    assert_eq!(
        histories.read_values_to_list(),
        [vec![Some(1.5), None], vec![Some(1.5), None, Some(-2.0)]]
    );
    let store = driver.key_value_store(Readings::HISTORY);
    assert_eq!(store.get(&sensor), Some(vec![Some(1.5), None, Some(-2.0)]));

    let signs = driver.output_topic(Readings::SIGNS);
    let raw = signs.read_raw().expect("a sign");
    assert_eq!((raw.key, raw.value.as_deref()), (None, Some(&[1u8][..])));
    assert_eq!(signs.read_values_to_list(), [false, false]);

    let levels = driver.input_topic(Readings::LEVELS);
    levels.pipe_input(-3, 0.5);
    assert_eq!(
        driver
            .output_topic(Readings::LEVEL_BITS)
            .read_key_values_to_list(),
        [(-3, i64::from(0.5f32.to_bits()))]
    );
}
