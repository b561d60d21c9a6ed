//! A store's changelog, per store: `with_logging_disabled()` (Kafka Streams'
//! `Materialized.withLoggingDisabled()`) and `with_logging_enabled([..])`
//! (`withLoggingEnabled(Map)`), and how the changelogs are declared to the coordinator with the
//! application's `internal_topic_config(..)` and `replication_factor(..)`.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use dekaf_streams::topology::InternalTopicSettings;

topology! {
    /// Clicks counted twice, once in a store with a changelog and once in one without; the
    /// latest page per user in a table whose changelog has configs of its own; clicks per
    /// minute whose changelog keeps records for a fixed time.
    pub Logging = "logging-app" {
        let clicks = stream("lg-clicks", Utf8, Utf8);
        clicks
            .group_by_key()
            .count("kept")
            .to_stream()
            .to("lg-kept-out", Utf8, I64);
        clicks
            .group_by_key()
            .count("scratch")
            .with_logging_disabled()
            .to_stream()
            .to("lg-scratch-out", Utf8, I64);
        clicks
            .to_table("pages")
            .with_logging_enabled([("segment.ms", "600000"), ("min.insync.replicas", "2")])
            .to_stream()
            .to("lg-pages-out", Utf8, Nullable::<Utf8>);
        clicks
            .group_by_key()
            .windowed_by(tumbling(Duration::from_secs(60)))
            .count("per-minute")
            .with_logging_enabled([("retention.ms", "3600000")])
            .to_stream()
            .to("lg-minute-out", TimeWindowed::<Utf8>, I64);
    }
}

#[test]
fn a_store_without_changelog_writes_none_and_starts_empty_after_its_state_is_lost() {
    let driver = TestDriver::<Logging>::with_cache_max_bytes(0);
    let input = driver.input_topic(Logging::LG_CLICKS);
    input.pipe_input_at("u".into(), "home".into(), 1_000);
    input.pipe_input_at("u".into(), "cart".into(), 2_000);
    // Both counts answer queries and forward alike while the task runs.
    assert_eq!(
        driver.key_value_store(Logging::KEPT).get(&"u".into()),
        Some(2)
    );
    assert_eq!(
        driver.key_value_store(Logging::SCRATCH).get(&"u".into()),
        Some(2)
    );
    assert_eq!(driver.changelog("logging-app-kept-changelog").len(), 2);
    assert!(
        driver.changelog("logging-app-scratch-changelog").is_empty(),
        "nothing is written for a store without a changelog"
    );

    // The state is lost (a crash, a move): the logged store comes back from its changelog,
    // the other starts empty.
    driver.clear_and_restore().expect("restore");
    assert_eq!(
        driver.key_value_store(Logging::KEPT).get(&"u".into()),
        Some(2)
    );
    assert_eq!(
        driver.key_value_store(Logging::SCRATCH).get(&"u".into()),
        None
    );
    input.pipe_input_at("u".into(), "pay".into(), 3_000);
    let last = |topic| {
        driver
            .output_topic::<String, i64>(topic)
            .read_key_values_to_list()
            .pop()
    };
    assert_eq!(last(Logging::LG_KEPT_OUT), Some(("u".into(), 3)));
    assert_eq!(last(Logging::LG_SCRATCH_OUT), Some(("u".into(), 1)));
}

#[test]
fn a_store_without_changelog_is_not_declared_to_the_coordinator() {
    let sub = &Logging::INFO.subtopologies[0];
    let declared: Vec<&str> = sub.state_changelog_topics.iter().map(|t| t.name).collect();
    assert_eq!(
        declared,
        [
            "logging-app-kept-changelog",
            "logging-app-pages-changelog",
            "logging-app-per-minute-changelog"
        ]
    );
    let scratch = sub
        .stores
        .iter()
        .find(|s| s.name == "scratch")
        .expect("the store");
    assert!(!scratch.logged);
    assert!(
        sub.stores
            .iter()
            .filter(|s| s.name != "scratch")
            .all(|s| s.logged)
    );
}

#[test]
fn the_stores_configs_override_the_applications_which_override_kafka_streams_defaults() {
    let changelog = |name: &str| {
        Logging::INFO.subtopologies[0]
            .state_changelog_topics
            .iter()
            .find(|t| t.name == name)
            .copied()
            .expect("declared")
    };
    let owned = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    // The application sets `topic.min.insync.replicas=3` and `topic.cleanup.policy=delete`
    // (Kafka Streams' names) for every internal topic.
    let mut app = InternalTopicSettings::default();
    app.configs.insert("min.insync.replicas".into(), "3".into());
    app.configs.insert("cleanup.policy".into(), "delete".into());
    assert_eq!(
        changelog("logging-app-pages-changelog").declared_configs(&app),
        owned(&[
            ("cleanup.policy", "delete"),
            ("message.timestamp.type", "CreateTime"),
            ("min.insync.replicas", "2"),
            ("segment.ms", "600000"),
        ])
    );
    assert_eq!(
        changelog("logging-app-kept-changelog").declared_configs(&app),
        owned(&[
            ("cleanup.policy", "delete"),
            ("message.timestamp.type", "CreateTime"),
            ("min.insync.replicas", "3"),
        ])
    );
    // A window store's own `retention.ms` replaces the one derived from its retention.
    assert_eq!(
        changelog("logging-app-per-minute-changelog").declared_configs(&Default::default()),
        owned(&[
            ("cleanup.policy", "compact,delete"),
            ("message.timestamp.type", "CreateTime"),
            ("retention.ms", "3600000"),
        ])
    );
}

#[test]
fn describe_shows_the_logging_and_the_java_calls_that_declare_the_same() {
    let d = Logging::describe();
    assert!(
        d.contains("Store: scratch (key-value; changelog: none, logging disabled)"),
        "{d}"
    );
    assert!(
        d.contains(
            "Changelog topic: logging-app-pages-changelog (cleanup.policy=compact, \
             message.timestamp.type=CreateTime, min.insync.replicas=2, segment.ms=600000)"
        ),
        "{d}"
    );
    assert!(
        !d.contains("Changelog topic: logging-app-scratch-changelog"),
        "{d}"
    );
    assert!(
        d.contains("count(Materialized.as(\"scratch\").withLoggingDisabled())"),
        "{d}"
    );
    assert!(
        d.contains(
            "toTable(Materialized.as(\"pages\").withLoggingEnabled(Map.of(\"min.insync.replicas\", \"2\", \"segment.ms\", \"600000\")))"
        ),
        "{d}"
    );
}
