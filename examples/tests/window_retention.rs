//! `with_retention(..)` on a windowed aggregation's store (Kafka Streams'
//! `Materialized.withRetention`): the store keeps windows longer than the least it needs, so
//! they stay queryable; late records are still dropped by the grace, and the changelog is
//! declared with the retention plus a day.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Clicks per user and minute, kept one hour; and the same with the default retention
    /// (size + grace = one minute).
    pub Kept = "retention-app" {
        let clicks = stream("rt-clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("per-minute-kept")
            .with_retention(Duration::from_hours(1))
            .to_stream()
            .to("rt-kept-out", TimeWindowed::<Utf8>, I64);
        clicks
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("per-minute")
            .to_stream()
            .to("rt-out", TimeWindowed::<Utf8>, I64);
    }
}

#[test]
fn a_longer_retention_keeps_old_windows_queryable() {
    let driver = TestDriver::<Kept>::new();
    let input = driver.input_topic(Kept::RT_CLICKS);
    input.pipe_input_at("u".into(), "a".into(), 1_000);
    // Stream time moves ten minutes on: the first window is past the default retention.
    input.pipe_input_at("u".into(), "b".into(), 600_000);
    assert_eq!(
        driver
            .window_store(Kept::PER_MINUTE_KEPT)
            .fetch(&"u".to_owned(), 0),
        Some(1),
        "kept for an hour"
    );
    assert_eq!(
        driver
            .window_store(Kept::PER_MINUTE)
            .fetch(&"u".to_owned(), 0),
        None,
        "the default retention (one minute) dropped it"
    );
    // A late record is dropped by the grace (0) either way: the window is closed.
    input.pipe_input_at("u".into(), "late".into(), 2_000);
    assert_eq!(
        driver
            .window_store(Kept::PER_MINUTE_KEPT)
            .fetch(&"u".to_owned(), 0),
        Some(1)
    );
    assert!(
        driver
            .output_topic(Kept::RT_KEPT_OUT)
            .read_key_values_to_list()
            .len()
            == 2
    );
}

#[test]
fn the_changelog_is_declared_with_the_retention_plus_a_day() {
    let retention_of = |topic: &str| {
        Kept::INFO
            .subtopologies
            .iter()
            .flat_map(|s| s.state_changelog_topics)
            .find(|t| t.name == topic)
            .and_then(|t| {
                t.declared_configs(&Default::default())
                    .into_iter()
                    .find(|(k, _)| k == "retention.ms")
            })
            .map(|(_, v)| v)
    };
    assert_eq!(
        retention_of("retention-app-per-minute-kept-changelog").as_deref(),
        Some("90000000")
    );
    assert_eq!(
        retention_of("retention-app-per-minute-changelog").as_deref(),
        Some("86460000")
    );
}
