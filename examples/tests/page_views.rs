//! Windowed counts through the TestDriver: window boundaries, grace, late records.

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::page_views::PageViews;

fn w(page: &str, start: i64) -> Windowed<String> {
    Windowed::new(page.to_owned(), start, start + 60_000)
}

#[test]
fn tumbling_windows_with_grace_and_late_records() {
    let driver = TestDriver::<PageViews>::new();
    let views = driver.input_topic(PageViews::PAGE_VIEWS);
    let out = driver.output_topic(PageViews::PAGE_VIEWS_PER_MINUTE);
    views.pipe_input_at("u1".into(), "home".into(), 0);
    views.pipe_input_at("u2".into(), "home".into(), 30_000);
    views.pipe_input_at("u1".into(), "about".into(), 61_000);
    views.pipe_input_at("u3".into(), "home".into(), 65_000);
    // Stream time 65 s: window [0, 60 s) closes at 60 + 10 = 70 s, so this one still counts.
    views.pipe_input_at("u4".into(), "home".into(), 50_000);
    views.pipe_input_at("u5".into(), "home".into(), 75_000);
    // Stream time 75 s: [0, 60 s) is closed; this record is late and dropped.
    views.pipe_input_at("u6".into(), "home".into(), 59_999);
    assert_eq!(
        out.read_key_values_to_list(),
        vec![
            (w("home", 0), 1),
            (w("home", 0), 2),
            (w("about", 60_000), 1),
            (w("home", 60_000), 1),
            (w("home", 0), 3),
            (w("home", 60_000), 2),
        ]
    );
    let store = driver.window_store(PageViews::VIEWS_PER_MINUTE);
    assert_eq!(store.fetch(&"home".to_owned(), 0), Some(3));
    assert_eq!(store.fetch(&"home".to_owned(), 60_000), Some(2));
    // Late: one record in the tumbling windows, and in the hopping windows the same record
    // misses [0, 60 s) (closed) while [30 s, 90 s) still takes it.
    assert_eq!(driver.late_records_dropped(), 2);
    let record = driver
        .output_topic(PageViews::PAGE_VIEWS_PER_MINUTE)
        .read_record();
    assert!(record.is_none());
}

#[test]
fn hopping_windows_count_a_record_in_every_window_that_contains_it() {
    let driver = TestDriver::<PageViews>::new();
    let views = driver.input_topic(PageViews::PAGE_VIEWS);
    let out = driver.output_topic(PageViews::PAGE_VIEWS_HOPPING);
    views.pipe_input_at("u1".into(), "home".into(), 10_000);
    views.pipe_input_at("u2".into(), "home".into(), 45_000);
    views.pipe_input_at("u3".into(), "home".into(), 95_000);
    assert_eq!(
        out.read_key_values_to_list(),
        vec![
            // 10 s: only [0, 60 s) (no window starts before 0).
            (w("home", 0), 1),
            // 45 s: [0, 60 s) and [30 s, 90 s).
            (w("home", 0), 2),
            (w("home", 30_000), 1),
            // 95 s: [60 s, 120 s) and [90 s, 150 s).
            (w("home", 60_000), 1),
            (w("home", 90_000), 1),
        ]
    );
    // At stream time 95 s the window [0, 60 s) has passed its retention (size + grace = 70 s
    // from its start) and was dropped from the store.
    assert_eq!(
        driver.window_store(PageViews::VIEWS_HOPPING).all(),
        vec![
            (w("home", 30_000), 1),
            (w("home", 60_000), 1),
            (w("home", 90_000), 1)
        ]
    );
}

#[test]
fn windowed_keys_use_the_kafka_streams_layout() {
    let driver = TestDriver::<PageViews>::new();
    driver
        .input_topic(PageViews::PAGE_VIEWS)
        .pipe_input_at("u".into(), "a".into(), 120_000);
    let raw = driver
        .output_topic(PageViews::PAGE_VIEWS_PER_MINUTE)
        .read_raw()
        .expect("a record");
    assert_eq!(
        raw.key.as_deref(),
        Some(&[b'a', 0, 0, 0, 0, 0, 1, 0xd4, 0xc0][..])
    );
    assert_eq!(raw.value.as_deref(), Some(&1i64.to_be_bytes()[..]));
    assert_eq!(raw.timestamp, 120_000);
}

#[test]
fn old_windows_expire_after_size_plus_grace() {
    let driver = TestDriver::<PageViews>::new();
    let views = driver.input_topic(PageViews::PAGE_VIEWS);
    views.pipe_input_at("u1".into(), "home".into(), 0);
    views.pipe_input_at("u1".into(), "home".into(), 61_000);
    let store = driver.window_store(PageViews::VIEWS_PER_MINUTE);
    assert_eq!(store.all().len(), 2);
    // Retention is size + grace = 70 s from the window start: at stream time 200 s every window
    // starting at or before 130 s is gone.
    views.pipe_input_at("u1".into(), "home".into(), 200_000);
    assert_eq!(store.all(), vec![(w("home", 180_000), 1)]);
}

#[test]
fn expired_windows_leave_a_changelog_tombstone_so_a_restore_does_not_resurrect_them() {
    let driver = TestDriver::<PageViews>::new();
    let views = driver.input_topic(PageViews::PAGE_VIEWS);
    views.pipe_input_at("u1".into(), "home".into(), 0);
    views.pipe_input_at("u1".into(), "home".into(), 200_000);
    let mut key = b"home".to_vec();
    dekaf_streams::store::window_key(&mut key, 0);
    let changelog = driver.changelog("page-views-views-per-minute-changelog");
    let values: Vec<bool> = changelog
        .iter()
        .filter(|r| r.key.as_deref() == Some(key.as_slice()))
        .map(|r| r.value.is_some())
        .collect();
    assert_eq!(values, [true, false], "the window, then its expiry");
    driver.clear_and_restore().expect("restore");
    let store = driver.window_store(PageViews::VIEWS_PER_MINUTE);
    assert_eq!(store.all(), vec![(w("home", 180_000), 1)]);
}
