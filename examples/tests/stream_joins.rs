//! Stream-stream joins through the TestDriver. Every expected output is derived from Kafka
//! Streams 4.4's `KStreamKStreamJoin` (window `[t - before, t + after]` per side, inclusive;
//! result timestamp = the later record's; unmatched left/outer records emitted only once stream
//! time passes `t + window + grace`), mirroring `KStreamKStreamJoinTest`,
//! `KStreamKStreamLeftJoinTest` and `KStreamKStreamOuterJoinTest`.

use dekaf_streams::testing::TestDriver;
use dekaf_streams_examples::stream_joins::{
    AsymmetricJoin, InnerJoin, JoinBadInput, LeftJoin, OuterJoin,
};

type Out = Vec<(String, String, i64)>;

fn out(records: &[(&str, &str, i64)]) -> Out {
    records
        .iter()
        .map(|(k, v, t)| ((*k).to_owned(), (*v).to_owned(), *t))
        .collect()
}

macro_rules! read {
    ($topic:expr) => {
        $topic
            .read_records_to_list()
            .into_iter()
            .map(|r| (r.key, r.value, r.timestamp))
            .collect::<Out>()
    };
}

#[test]
fn inner_join_matches_both_ways_within_the_window() {
    let d = TestDriver::<InnerJoin>::new();
    let (l, r) = (
        d.input_topic(InnerJoin::INNER_LEFT),
        d.input_topic(InnerJoin::INNER_RIGHT),
    );
    let o = d.output_topic(InnerJoin::INNER_JOINED);
    l.pipe_input_at("a".into(), "A0".into(), 0);
    assert!(o.is_empty(), "nothing to join yet");
    // A right record at 5 sees left records in [5 - 10, 5 + 10].
    r.pipe_input_at("a".into(), "a5".into(), 5);
    assert_eq!(read!(o), out(&[("a", "A0+a5", 5)]));
    // [1, 21] misses A0 at 0: inclusive bounds, one past.
    r.pipe_input_at("a".into(), "a11".into(), 11);
    assert!(o.is_empty());
    // A left record matches every right record in [5, 25], in timestamp order.
    l.pipe_input_at("a".into(), "A15".into(), 15);
    assert_eq!(read!(o), out(&[("a", "A15+a5", 15), ("a", "A15+a11", 15)]));
    // Both sides at one timestamp; other keys do not match.
    r.pipe_input_at("b".into(), "b20".into(), 20);
    l.pipe_input_at("b".into(), "B20".into(), 20);
    l.pipe_input_at("c".into(), "C20".into(), 20);
    assert_eq!(read!(o), out(&[("b", "B20+b20", 20)]));
    // An out-of-order left record joins and the result takes the later timestamp.
    l.pipe_input_at("a".into(), "A3".into(), 3);
    assert_eq!(read!(o), out(&[("a", "A3+a5", 5), ("a", "A3+a11", 11)]));
    // Duplicates (same key and timestamp) are all kept.
    r.pipe_input_at("b".into(), "b20'".into(), 20);
    assert_eq!(read!(o), out(&[("b", "B20+b20'", 20)]));
    l.pipe_input_at("b".into(), "B21".into(), 21);
    assert_eq!(
        read!(o),
        out(&[("b", "B21+b20", 21), ("b", "B21+b20'", 21)])
    );
}

#[test]
fn asymmetric_window_bounds_per_side() {
    // before 0, after 10: a left record at t joins right records in [t, t + 10]; a right
    // record at t joins left records in [t - 10, t].
    let d = TestDriver::<AsymmetricJoin>::new();
    let (l, r) = (
        d.input_topic(AsymmetricJoin::ASYM_LEFT),
        d.input_topic(AsymmetricJoin::ASYM_RIGHT),
    );
    let o = d.output_topic(AsymmetricJoin::ASYM_JOINED);
    l.pipe_input_at("k".into(), "L100".into(), 100);
    for t in [99, 100, 110, 111] {
        r.pipe_input_at("k".into(), format!("r{t}"), t);
    }
    assert_eq!(
        read!(o),
        out(&[("k", "L100+r100", 100), ("k", "L100+r110", 110)])
    );
    // The window stores keep before + after + grace = 10 ms behind their newest record, as
    // Kafka Streams' segmented store does (`fetch` from observed - retention + 1): a left record
    // at 100 arriving after r111 sees right records from 102 on only.
    l.pipe_input_at("k".into(), "L100'".into(), 100);
    assert_eq!(read!(o), out(&[("k", "L100'+r110", 110)]));
}

#[test]
fn left_join_emits_unmatched_records_only_after_their_window_closes() {
    let d = TestDriver::<LeftJoin>::new();
    let (l, r) = (
        d.input_topic(LeftJoin::LEFT_LEFT),
        d.input_topic(LeftJoin::LEFT_RIGHT),
    );
    let o = d.output_topic(LeftJoin::LEFT_JOINED);
    l.pipe_input_at("a".into(), "A0".into(), 0);
    l.pipe_input_at("b".into(), "B1".into(), 1);
    assert!(o.is_empty(), "no spurious left results");
    r.pipe_input_at("a".into(), "a8".into(), 8);
    assert_eq!(read!(o), out(&[("a", "A0+a8", 8)]));
    // B1 closes once stream time passes 1 + 10 + 5 = 16, not at 15 or 16.
    l.pipe_input_at("c".into(), "C15".into(), 15);
    l.pipe_input_at("d".into(), "D16".into(), 16);
    assert!(o.is_empty(), "B1's window is open until stream time 17");
    l.pipe_input_at("e".into(), "E17".into(), 17);
    assert_eq!(read!(o), out(&[("b", "B1+null", 1)]));
    // A0 matched, so it never comes out unmatched.
    // A late record whose window closed already (2 + 10 < 17) is emitted at once...
    l.pipe_input_at("f".into(), "F2".into(), 2);
    assert_eq!(read!(o), out(&[("f", "F2+null", 2)]));
    // ... and still joins a right record that comes within its window.
    r.pipe_input_at("f".into(), "f11".into(), 11);
    assert_eq!(read!(o), out(&[("f", "F2+f11", 11)]));
    // Right records without partner never produce results in a left join.
    r.pipe_input_at("g".into(), "g30".into(), 30);
    assert!(o.is_empty(), "C15 closes after stream time 30");
    r.pipe_input_at("h".into(), "h31".into(), 31);
    assert_eq!(read!(o), out(&[("c", "C15+null", 15)]));
    r.pipe_input_at("h".into(), "h40".into(), 40);
    assert_eq!(
        read!(o),
        out(&[("d", "D16+null", 16), ("e", "E17+null", 17)])
    );
    // The shared outer store is empty now: every emitted entry has its tombstone.
    let changelog = d.changelog("left-join-KSTREAM-OUTERSHARED-0000000004-store-changelog");
    let mut live = std::collections::BTreeMap::new();
    for rec in changelog {
        match rec.value {
            Some(v) => live.insert(rec.key.unwrap(), v),
            None => live.remove(&rec.key.unwrap()),
        };
    }
    assert!(
        live.is_empty(),
        "outer store changelog still holds {live:?}"
    );
}

#[test]
fn outer_join_emits_both_sides_and_survives_a_restore() {
    let d = TestDriver::<OuterJoin>::new();
    let (l, r) = (
        d.input_topic(OuterJoin::OUTER_LEFT),
        d.input_topic(OuterJoin::OUTER_RIGHT),
    );
    let o = d.output_topic(OuterJoin::OUTER_JOINED);
    l.pipe_input_at("a".into(), "A0".into(), 0);
    r.pipe_input_at("b".into(), "b3".into(), 3);
    r.pipe_input_at("a".into(), "a4".into(), 4);
    assert_eq!(read!(o), out(&[("a", "A0+a4", 4)]));
    // Drop the task's state and rebuild it from the changelogs, as after a restart.
    d.clear_and_restore().unwrap();
    // The restored window store still joins...
    l.pipe_input_at("a".into(), "A6".into(), 6);
    assert_eq!(read!(o), out(&[("a", "A6+a4", 6)]));
    // ... and the restored outer store emits b3 once 3 + 10 + 5 < stream time.
    l.pipe_input_at("c".into(), "C18".into(), 18);
    assert!(o.is_empty());
    l.pipe_input_at("c".into(), "C19".into(), 19);
    assert_eq!(read!(o), out(&[("b", "null+b3", 3)]));
    // Both sides unmatched at one timestamp: right (side 0) before left (side 1).
    r.pipe_input_at("x".into(), "x30".into(), 30);
    l.pipe_input_at("y".into(), "Y30".into(), 30);
    r.pipe_input_at("z".into(), "z46".into(), 46);
    assert_eq!(
        read!(o),
        out(&[
            ("c", "C18+null", 18),
            ("c", "C19+null", 19),
            ("x", "null+x30", 30),
            ("y", "Y30+null", 30),
        ])
    );
}

#[test]
fn join_stores_and_changelogs_are_named_like_kafka_streams() {
    use dekaf_streams::task::Topology;
    use dekaf_streams::topology::StoreKind;
    let sub = &LeftJoin::INFO.subtopologies[0];
    let names: Vec<&str> = sub.stores.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "KSTREAM-JOINTHIS-0000000004-store",
            "KSTREAM-OUTEROTHER-0000000005-store",
            "KSTREAM-OUTERSHARED-0000000004-store"
        ]
    );
    assert_eq!(
        sub.stores[0].kind,
        StoreKind::JoinWindow {
            before_ms: 10,
            after_ms: 10,
            grace_ms: 5
        }
    );
    // As declared under Kafka Streams' default settings (no `topic.*`, a day of additional
    // retention).
    let pairs = |c: &[(&str, &str)]| -> Vec<(String, String)> {
        c.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    };
    let changelogs: Vec<(&str, Vec<(String, String)>)> = sub
        .state_changelog_topics
        .iter()
        .map(|t| (t.name, t.declared_configs(&Default::default())))
        .collect();
    let window = pairs(&[
        ("cleanup.policy", "delete"),
        ("message.timestamp.type", "CreateTime"),
        ("retention.ms", "86400025"),
    ]);
    let shared = pairs(&[
        ("cleanup.policy", "compact"),
        ("message.timestamp.type", "CreateTime"),
    ]);
    assert_eq!(
        changelogs,
        [
            (
                "left-join-KSTREAM-JOINTHIS-0000000004-store-changelog",
                window.clone()
            ),
            (
                "left-join-KSTREAM-OUTEROTHER-0000000005-store-changelog",
                window
            ),
            (
                "left-join-KSTREAM-OUTERSHARED-0000000004-store-changelog",
                shared
            ),
        ]
    );
    assert_eq!(sub.copartition_groups.len(), 1);
    assert_eq!(
        sub.copartition_groups[0].source_topics,
        ["left-left", "left-right"]
    );
    let inner = &InnerJoin::INFO.subtopologies[0];
    let names: Vec<&str> = inner.stores.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "KSTREAM-JOINTHIS-0000000004-store",
            "KSTREAM-JOINOTHER-0000000005-store"
        ]
    );
    let outer = &OuterJoin::INFO.subtopologies[0];
    let names: Vec<&str> = outer.stores.iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "KSTREAM-OUTERTHIS-0000000004-store",
            "KSTREAM-OUTEROTHER-0000000005-store",
            "KSTREAM-OUTERSHARED-0000000004-store"
        ]
    );
}

#[test]
fn window_store_changelog_uses_kafka_streams_keys() {
    let d = TestDriver::<InnerJoin>::new();
    d.input_topic(InnerJoin::INNER_LEFT)
        .pipe_input_at("a".into(), "A7".into(), 7);
    let log = d.changelog("inner-join-KSTREAM-JOINTHIS-0000000004-store-changelog");
    assert_eq!(log.len(), 1);
    // key ‖ i64 timestamp ‖ i32 seqnum (WindowKeySchema with duplicates), first seqnum 1.
    let mut key = b"a".to_vec();
    key.extend_from_slice(&7i64.to_be_bytes());
    key.extend_from_slice(&1i32.to_be_bytes());
    assert_eq!(log[0].key.as_deref(), Some(&key[..]));
    assert_eq!(log[0].value.as_deref(), Some(&b"A7"[..]));
    assert_eq!(log[0].timestamp, 7);
}

#[test]
fn bad_timestamps_go_to_on_error_and_null_keys_and_values_are_dropped() {
    let d = TestDriver::<JoinBadInput>::new();
    let l = d.input_topic(JoinBadInput::BAD_LEFT);
    let r = d.input_topic(JoinBadInput::BAD_RIGHT);
    let o = d.output_topic(JoinBadInput::BAD_JOINED);
    l.pipe_input_at(Some("k".into()), Some("ok".into()), 1_000);
    r.pipe_input_at(Some("k".into()), "r".into(), 1_200);
    assert_eq!(o.read_value(), Some("ok+r".to_owned()));
    l.pipe_input_at(Some("k".into()), Some("late".into()), -1);
    // Kafka Streams' KStreamKStreamJoin drops (and counts) a null key or value of an inner join.
    l.pipe_input_at(None, Some("no key".into()), 1_300);
    l.pipe_input_at(Some("k".into()), None, 1_300);
    // Also a null value the serde cannot hold (Utf8).
    r.pipe_raw(Some(b"k"), None, 1_300);
    let topic = |name: &str| {
        d.output_topic(dekaf_streams::task::TopicRef::<Vec<u8>, Vec<u8>>::new::<
            dekaf_streams::serdes::Bytes,
            dekaf_streams::serdes::Bytes,
        >(Box::leak(name.to_owned().into_boxed_str())))
            .queue_size()
    };
    assert_eq!(topic("join-bad-timestamp"), 1);
    assert_eq!(topic("join-null-key"), 0);
    assert_eq!(topic("join-null-value"), 0);
    assert_eq!(topic("join-bad-other"), 0);
    assert_eq!(d.records_skipped(), 1);
    assert_eq!(
        d.records_dropped(),
        4,
        "the dead-lettered record and three nulls"
    );
    assert!(o.is_empty(), "no bad record joined");
}

#[test]
fn describe_shows_kafka_streams_join_nodes() {
    use dekaf_streams::task::Topology;
    let d = LeftJoin::describe();
    for line in [
        "Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])",
        "Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-OUTEROTHER-0000000005-store])",
        "Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-store, KSTREAM-OUTERSHARED-0000000004-store])",
        "Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store, KSTREAM-OUTERSHARED-0000000004-store])",
        "Processor: KSTREAM-MERGE-0000000006 (stores: [])",
    ] {
        assert!(d.contains(line), "missing `{line}` in:\n{d}");
    }
}

mod with_key {
    use dekaf_streams::prelude::*;
    use dekaf_streams::testing::TestDriver;

    topology! {
        /// Stream-stream joiners that take the key first (`ValueJoinerWithKey`).
        pub KeyedJoins = "stream-joins-keyed" {
            let l = stream("keyed-l", Utf8, Utf8);
            let r = stream("keyed-r", Utf8, Utf8);
            l.join(r, |k, a, b| format!("{k}:{a}+{b}"), join_window(10))
                .to("keyed-inner", Utf8, Utf8);
            l.left_join(r, |k: &String, a: &String, b: Option<&String>| format!("{k}:{a}+{}", b.map_or("-", |x| x.as_str())), join_window(10))
                .to("keyed-left", Utf8, Utf8);
            l.outer_join(r, |k, a: Option<&String>, b: Option<&String>| format!("{k}:{}+{}", a.map_or("-", |x| x.as_str()), b.map_or("-", |x| x.as_str())), join_window(10))
                .to("keyed-outer", Utf8, Utf8);
        }
    }

    #[test]
    fn joiners_with_the_key_see_it_for_matched_and_unmatched_records() {
        let d = TestDriver::<KeyedJoins>::new();
        let (l, r) = (
            d.input_topic(KeyedJoins::KEYED_L),
            d.input_topic(KeyedJoins::KEYED_R),
        );
        l.pipe_input_at("a".into(), "A0".into(), 0);
        r.pipe_input_at("a".into(), "a5".into(), 5);
        r.pipe_input_at("b".into(), "b6".into(), 6);
        // Closes the windows of the records above: the unmatched ones are emitted.
        l.pipe_input_at("z".into(), "Z100".into(), 100);
        let kv = |t| {
            d.output_topic(t)
                .read_key_values_to_list()
                .into_iter()
                .map(|(_, v)| v)
                .collect::<Vec<String>>()
        };
        assert_eq!(kv(KeyedJoins::KEYED_INNER), ["a:A0+a5"]);
        assert_eq!(kv(KeyedJoins::KEYED_LEFT), ["a:A0+a5"]);
        assert_eq!(kv(KeyedJoins::KEYED_OUTER), ["a:A0+a5", "b:-+b6"]);
    }
}
