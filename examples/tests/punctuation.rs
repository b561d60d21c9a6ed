//! Punctuation through the TestDriver: stream-time schedules fire as stream time passes their
//! due times (once per call however many intervals passed, as Kafka Streams'
//! `PunctuationSchedule.next`), wall-clock schedules as the test advances the mocked clock.

use std::time::Duration;

use dekaf_streams::prelude::*;
use dekaf_streams::testing::{TestDriver, TestRecord};
use dekaf_streams_examples::punctuation::{Batches, Totals};

fn rec<V>(key: &str, value: V, timestamp: i64) -> TestRecord<String, V> {
    TestRecord {
        key: key.to_owned(),
        value,
        timestamp,
        headers: Headers::new(),
        partition: 0,
    }
}

#[test]
fn stream_time_punctuation_fires_once_per_due_time_as_stream_time_advances() {
    let driver = TestDriver::<Totals>::new();
    let (amounts, totals) = (
        driver.input_topic(Totals::AMOUNTS),
        driver.output_topic(Totals::TOTALS),
    );
    // The schedule is aligned to 0: the first record makes stream time known (1000 >= 0), so
    // the first punctuation runs right after it, with the record already processed.
    amounts.pipe_input_at("a".into(), 1, 1_000);
    assert_eq!(totals.read_records_to_list(), [rec("a", 1, 1_000)]);
    // Next due at 10 000: nothing before.
    amounts.pipe_input_at("a".into(), 2, 5_000);
    amounts.pipe_input_at("b".into(), 3, 9_999);
    assert!(totals.is_empty());
    // Stream time reaches 10 000: one punctuation at stream time 10 000, after the record.
    amounts.pipe_input_at("a".into(), 4, 10_000);
    assert_eq!(
        totals.read_records_to_list(),
        [rec("a", 6, 10_000), rec("b", 3, 10_000)]
    );
    // A jump over 20 000 and 30 000 runs the punctuation once, at stream time 35 000; the next
    // is due at 40 000, not 30 000.
    amounts.pipe_input_at("c".into(), 5, 35_000);
    assert_eq!(totals.read_records_to_list(), [rec("c", 5, 35_000)]);
    // An out-of-order record does not move stream time: no punctuation.
    amounts.pipe_input_at("c".into(), 1, 12_000);
    amounts.pipe_input_at("c".into(), 1, 39_999);
    assert!(totals.is_empty());
    amounts.pipe_input_at("d".into(), 7, 40_000);
    assert_eq!(
        totals.read_records_to_list(),
        [rec("c", 2, 40_000), rec("d", 7, 40_000)]
    );
    // The punctuation's deletes went to the changelog like any store write: puts of a and b
    // and c, d, then tombstones.
    let changelog = driver.changelog("punctuate-totals-totals-changelog");
    assert_eq!(changelog.iter().filter(|r| r.value.is_none()).count(), 6);
    // Wall-clock time does not drive a stream-time schedule.
    amounts.pipe_input_at("e".into(), 1, 40_001);
    driver.advance_wall_clock(Duration::from_secs(3600));
    assert!(totals.is_empty());
}

#[test]
fn stream_time_schedule_restarts_after_restore() {
    let driver = TestDriver::<Totals>::new();
    let (amounts, totals) = (
        driver.input_topic(Totals::AMOUNTS),
        driver.output_topic(Totals::TOTALS),
    );
    amounts.pipe_input_at("a".into(), 1, 1_000);
    amounts.pipe_input_at("a".into(), 2, 2_000);
    assert_eq!(totals.read_records_to_list(), [rec("a", 1, 1_000)]);
    // As after an aborted transaction: the store comes back from its changelog, stream time
    // from the commit, and the schedule starts again aligned to 0, so the next record's
    // stream time (2 500 >= 0) fires it at once, as Kafka Streams re-initializing the
    // processor would.
    driver.clear_and_restore().expect("restore");
    amounts.pipe_input_at("a".into(), 4, 2_500);
    assert_eq!(totals.read_records_to_list(), [rec("a", 6, 2_500)]);
}

#[test]
fn wall_clock_punctuation_fires_as_the_test_advances_the_clock_without_input() {
    let driver = TestDriver::<Batches>::builder()
        .wall_clock(1_000_000)
        .build();
    let (events, batches) = (
        driver.input_topic(Batches::EVENTS),
        driver.output_topic(Batches::BATCHES),
    );
    // Records, whatever their timestamps, do not drive a wall-clock schedule.
    events.pipe_input_at("a".into(), "1".into(), 10_000_000);
    events.pipe_input_at("b".into(), "2".into(), 20_000_000);
    events.pipe_input_at("a".into(), "3".into(), 30_000_000);
    assert!(batches.is_empty());
    // The schedule started with the task, at 1 000 000: first due at 1 005 000.
    driver.advance_wall_clock(Duration::from_millis(4_999));
    assert!(batches.is_empty());
    driver.advance_wall_clock(Duration::from_millis(1));
    assert_eq!(
        batches.read_records_to_list(),
        [
            rec("a", "3@1005000".to_owned(), 1_005_000),
            rec("b", "2@1005000".to_owned(), 1_005_000),
        ]
    );
    assert_eq!(driver.wall_clock(), 1_005_000);
    // A 12 s jump passes 1 010 000 and 1 015 000: one punctuation, at 1 017 000; the next is
    // due at 1 020 000.
    events.pipe_input_at("c".into(), "4".into(), 0);
    driver.advance_wall_clock(Duration::from_secs(12));
    assert_eq!(
        batches.read_records_to_list(),
        [rec("c", "4@1017000".to_owned(), 1_017_000)]
    );
    events.pipe_input_at("d".into(), "5".into(), 0);
    driver.advance_wall_clock(Duration::from_millis(2_999));
    assert!(batches.is_empty());
    driver.advance_wall_clock(Duration::from_millis(1));
    assert_eq!(
        batches.read_records_to_list(),
        [rec("d", "5@1020000".to_owned(), 1_020_000)]
    );
    // The store is empty now: a punctuation with nothing to flush forwards nothing.
    driver.advance_wall_clock(Duration::from_secs(5));
    assert!(batches.is_empty());
    assert!(driver.key_value_store(Batches::PENDING).is_empty());
}

topology! {
    /// A punctuation that fails once a key starting with "bad" is stored; `on_error` sends the
    /// failure to a dead-letter topic.
    pub Failing = "punctuate-failing" {
        on_error(|error| match error.kind {
            ErrorKind::Processing => ErrorResponse::DeadLetter("punctuate-dead"),
            _ => ErrorResponse::Fail,
        });
        store("seen", Utf8, Utf8);
        stream("in", Utf8, Utf8)
            .process(["seen"], |ctx, key, value| {
                ctx.seen().put(&key, &value)?;
                Ok(None::<(String, String)>)
            }, schedule(Duration::from_secs(1), WallClock, |ctx, now| {
                let all = ctx.seen().all()?;
                if all.iter().any(|(k, _)| k.starts_with("bad")) {
                    return Err(ProcessError::msg(format!("a bad key at {now}")));
                }
                Ok(all)
            }))
            .to("out", Utf8, Utf8);
    }
}

#[test]
fn a_failing_punctuation_goes_to_on_error_with_kafka_streams_punctuation_context() {
    let driver = TestDriver::<Failing>::new();
    let input = driver.input_topic(Failing::IN);
    let output = driver.output_topic(Failing::OUT);
    let dead = driver.output_topic(TopicRef::<Option<String>, Option<String>>::new::<
        Nullable<Utf8>,
        Nullable<Utf8>,
    >("punctuate-dead"));
    input.pipe_input("ok".into(), "1".into());
    driver.advance_wall_clock(Duration::from_secs(1));
    assert_eq!(
        output.read_records_to_list(),
        [rec("ok", "1".to_owned(), 1_000)]
    );
    input.pipe_input("bad-1".into(), "2".into());
    driver.advance_wall_clock(Duration::from_secs(1));
    // Nothing forwarded; the dead letter has no key or value (a punctuation has no record), the
    // punctuation's time, and topic "", partition and offset -1 as Kafka Streams' punctuation
    // record context.
    assert!(output.is_empty());
    let letter = dead.read_record().expect("a dead letter");
    assert_eq!(
        (letter.key, letter.value, letter.timestamp),
        (None, None, 2_000)
    );
    let header = |name: &str| {
        letter
            .headers
            .iter()
            .find(|(k, _)| *k == name)
            .and_then(|(_, v)| v.map(|v| String::from_utf8_lossy(v).into_owned()))
    };
    assert_eq!(header("__streams.errors.topic").as_deref(), Some(""));
    assert_eq!(header("__streams.errors.partition").as_deref(), Some("-1"));
    assert_eq!(header("__streams.errors.offset").as_deref(), Some("-1"));
    assert!(
        header("__streams.errors.message").is_some_and(|m| m.contains("a bad key at 2000")),
        "{:?}",
        header("__streams.errors.message")
    );
    assert_eq!(driver.records_skipped(), 1);
}
