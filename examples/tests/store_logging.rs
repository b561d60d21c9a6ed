//! A store's changelog, per store: `with_logging_disabled()` (Kafka Streams'
//! `Materialized.withLoggingDisabled()`) and `with_logging_enabled([..])`
//! (`withLoggingEnabled(Map)`), and how the changelogs are declared to the coordinator with the
//! application's `internal_topic_config(..)` and `replication_factor(..)`; the same options,
//! and `in_memory()`, on the stores declared for `process(..)` (Kafka Streams' `StoreBuilder`
//! `withLoggingDisabled()` / `withLoggingEnabled(Map)`, `Stores.inMemory*Store`).

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

topology! {
    /// Per key, a running count in a store without changelog, the last time seen in a window
    /// store whose changelog has configs of its own, and the visit's start in a session store
    /// kept in memory.
    pub DeclaredLogging = "declared-logging-app" {
        store("scratch", Utf8, I64).with_logging_disabled();
        window_store("recent", Utf8, I64, size(Duration::from_secs(60)), retention(Duration::from_secs(3600)))
            .with_logging_enabled([("segment.ms", "600000")])
            .in_memory();
        session_store("visits", Utf8, I64, retention(Duration::from_secs(3600))).in_memory();
        stream("dl-clicks", Utf8, Utf8)
            .process(["scratch", "recent", "visits"], |ctx, key: String, _v: String| {
                let t = ctx.timestamp();
                let n = ctx.scratch().get(&key)?.unwrap_or(0) + 1;
                ctx.scratch().put(&key, &n)?;
                ctx.recent().put(&key, &t, t / 60_000 * 60_000)?;
                ctx.visits().put(&key, t, t, &n)?;
                Ok(Some((key, n)))
            })
            .to("dl-out", Utf8, I64);
    }
}

#[test]
fn a_declared_store_without_changelog_writes_none_and_starts_empty_after_its_state_is_lost() {
    let driver = TestDriver::<DeclaredLogging>::new();
    let input = driver.input_topic(DeclaredLogging::DL_CLICKS);
    let out = driver.output_topic::<String, i64>(DeclaredLogging::DL_OUT);
    input.pipe_input_at("u".into(), "home".into(), 1_000);
    input.pipe_input_at("u".into(), "cart".into(), 2_000);
    assert_eq!(
        out.read_values_to_list(),
        [1, 2],
        "the store answers while the task runs"
    );
    assert!(
        driver
            .changelog("declared-logging-app-scratch-changelog")
            .is_empty(),
        "nothing is written for a store without a changelog"
    );
    assert_eq!(
        driver
            .changelog("declared-logging-app-recent-changelog")
            .len(),
        2
    );
    assert_eq!(
        driver
            .changelog("declared-logging-app-visits-changelog")
            .len(),
        2
    );

    // The state is lost: the logged stores (in memory or not) come back from their
    // changelogs, the unlogged one starts over.
    driver.clear_and_restore().expect("restore");
    assert_eq!(
        driver
            .window_store(DeclaredLogging::RECENT)
            .fetch(&"u".into(), 0),
        Some(2_000)
    );
    input.pipe_input_at("u".into(), "pay".into(), 3_000);
    assert_eq!(out.read_values_to_list(), [1]);
}

#[test]
fn declared_stores_are_declared_with_their_own_logging_and_kept_where_they_say() {
    let sub = &DeclaredLogging::INFO.subtopologies[0];
    let declared: Vec<&str> = sub.state_changelog_topics.iter().map(|t| t.name).collect();
    assert_eq!(
        declared,
        [
            "declared-logging-app-recent-changelog",
            "declared-logging-app-visits-changelog"
        ]
    );
    let store = |name: &str| {
        sub.stores
            .iter()
            .find(|s| s.name == name)
            .expect("the store")
    };
    assert!(!store("scratch").logged && !store("scratch").in_memory);
    assert!(store("recent").logged && store("recent").in_memory);
    assert!(store("visits").logged && store("visits").in_memory);
    let recent = sub
        .state_changelog_topics
        .iter()
        .find(|t| t.name == "declared-logging-app-recent-changelog")
        .expect("declared");
    assert!(
        recent
            .declared_configs(&Default::default())
            .contains(&("segment.ms".to_owned(), "600000".to_owned())),
        "{:?}",
        recent.declared_configs(&Default::default())
    );
    let d = DeclaredLogging::describe();
    for java in [
        "Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(\"scratch\"), ..).withLoggingDisabled()",
        "Stores.windowStoreBuilder(Stores.inMemoryWindowStore(\"recent\", Duration.ofMillis(3600000), Duration.ofMillis(60000), false), ..).withLoggingEnabled(Map.of(\"segment.ms\", \"600000\"))",
        "Stores.sessionStoreBuilder(Stores.inMemorySessionStore(\"visits\", Duration.ofMillis(3600000)), ..), logging on (the default)",
    ] {
        assert!(d.contains(java), "{java} not in {d}");
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
