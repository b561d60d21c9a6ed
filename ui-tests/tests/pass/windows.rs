//! Session, sliding and emit-final windows compile and run through the TestDriver.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    pub W = "windows" {
        let s = stream("in", Utf8, I64);
        s.group_by_key()
            .windowed_by(session(Duration::from_secs(10)).grace(Duration::from_secs(1)))
            .aggregate("sum", || 0i64, |_k, v, a: i64| a + v, |_k, a: i64, b: i64| a + b, I64)
            .suppress_until_window_closes("final-sum")
            .to_stream()
            .to("sessions", SessionWindowed::<Utf8>, I64);
        s.group_by_key()
            .windowed_by(sliding(Duration::from_secs(10)))
            .reduce("max", |a: i64, b: i64| a.max(b))
            .to_stream()
            .map_values(|v| v.to_string())
            .to("sliding", TimeWindowed::<Utf8>, Utf8);
    }
}

fn main() {
    let driver = TestDriver::<W>::new();
    let input = driver.input_topic(W::IN);
    input.pipe_input_at("k".into(), 1, 0);
    input.pipe_input_at("k".into(), 2, 5_000);
    input.pipe_input_at("k".into(), 3, 60_000);
    let sessions = driver.output_topic(W::SESSIONS).read_key_values_to_list();
    assert_eq!(sessions, vec![(Windowed::new("k".to_owned(), 0, 5_000), 3)]);
    let sliding = driver.output_topic(W::SLIDING).read_values_to_list();
    assert_eq!(sliding, ["1", "2", "2", "3"]);
}
