//! The processor API through the TestDriver: `process_values` (Kafka Streams'
//! `processValues`), which keeps the key; forwarded records' timestamps and headers
//! (`Forward`); the record's topic and offset; `ctx.commit()`.

use std::time::Duration;

use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    /// Each reading with the one before it under its key, counted per key: the key is kept, so
    /// the count needs no repartition.
    pub Changes = "processor-api-changes" {
        store("last", Utf8, Utf8);
        stream("readings", Utf8, Utf8)
            .process_values(["last"], |ctx, key: &String, value: String| {
                let before = ctx.last().get(key)?;
                ctx.last().put(key, &value)?;
                Ok(before.map(|b| format!("{b}->{value}")))
            })
            .group_by_key()
            .count("changes")
            .to_stream()
            .to("change-counts", Utf8, I64);
    }
}

topology! {
    /// Several values per record, each under the record's key; a wall-clock punctuation
    /// empties the store and forwards nothing.
    pub Words = "processor-api-words" {
        store("words-seen", Utf8, I64);
        stream("lines", Utf8, Utf8)
            .process_values(
                ["words-seen"],
                |ctx, _line: &String, text: String| {
                    let mut out = Vec::new();
                    for w in text.split_whitespace() {
                        let w = w.to_owned();
                        if ctx.words_seen().get(&w)?.is_none() {
                            let ts = ctx.timestamp();
                            ctx.words_seen().put(&w, &ts)?;
                            out.push(w);
                        }
                    }
                    Ok(out)
                },
                schedule(Duration::from_secs(60), WallClock, |ctx, _now| {
                    let all = ctx.words_seen().all()?;
                    for (w, _) in all {
                        ctx.words_seen().delete(&w)?;
                    }
                    Ok(())
                })
            )
            .to("new-words", Utf8, Utf8);
    }
}

topology! {
    /// A changed key stays changed through `process_values`: the count repartitions.
    pub Rekeyed = "processor-api-rekeyed" {
        stream("items", Utf8, Utf8)
            .select_key(|_k, v| v.clone())
            .process_values([], |_ctx, _key: &String, v: String| Ok(Some(v.len() as i64)))
            .group_by_key(Utf8, I64)
            .count("per-item")
            .to_stream()
            .to("item-counts", Utf8, I64);
    }
}

topology! {
    /// Each record twice: as read (its timestamp and headers kept), and stamped with where it
    /// came from, 100 ms later; `process_values` re-stamps values the same way.
    pub Stamps = "processor-api-stamps" {
        stream("stamp-in", Utf8, Utf8)
            .process([], |ctx, key: String, value: String| {
                let from = format!(
                    "{}/{}/{}",
                    ctx.topic().unwrap_or("?"),
                    ctx.partition(),
                    ctx.offset().unwrap_or(-1)
                );
                let later = ctx.timestamp() + 100;
                Ok([
                    Forward::new(key.clone(), value.clone()),
                    Forward::new(key, value)
                        .with_timestamp(later)
                        .with_headers(Headers::new().with("from", from)),
                ])
            })
            .to("stamp-out", Utf8, Utf8);
        stream("plain-in", Utf8, Utf8)
            .process([], |_ctx, key: String, value: String| Ok(Some((key, value))))
            .process_values([], |_ctx, _key: &String, value: String| {
                Ok([Forward::value(value).with_timestamp(7)])
            })
            .to("plain-out", Utf8, Utf8);
    }
}

topology! {
    /// Orders counted per customer behind the record cache; an order marked urgent asks for a
    /// commit, so the counts go out at once rather than at the next commit.
    pub Urgent = "processor-api-urgent" {
        stream("orders", Utf8, Utf8)
            .process_values([], |ctx, _customer: &String, order: String| {
                if order.ends_with('!') {
                    ctx.commit();
                }
                Ok(Some(order))
            })
            .group_by_key()
            .count("orders-per-customer")
            .to_stream()
            .to("order-counts", Utf8, I64);
    }
}

fn kv<V>(k: &str, v: V) -> (String, V) {
    (k.to_owned(), v)
}

#[test]
fn process_values_keeps_the_key_so_grouping_does_not_repartition() {
    let subs = Changes::INFO.subtopologies;
    assert_eq!(subs.len(), 1, "{}", Changes::describe());
    assert!(subs[0].repartition_sink_topics.is_empty());
    assert!(
        Changes::describe()
            .contains("Processor: KSTREAM-PROCESSVALUES-0000000001 (stores: [last])")
    );

    let driver = TestDriver::<Changes>::new();
    let readings = driver.input_topic(Changes::READINGS);
    let counts = driver.output_topic(Changes::CHANGE_COUNTS);
    readings.pipe_input_at("a".into(), "1".into(), 10);
    readings.pipe_input_at("a".into(), "2".into(), 20);
    readings.pipe_input_at("b".into(), "7".into(), 30);
    readings.pipe_input_at("a".into(), "3".into(), 40);
    readings.pipe_input_at("b".into(), "8".into(), 50);
    assert_eq!(
        counts.read_key_values_to_list(),
        [kv("a", 1), kv("a", 2), kv("b", 1)]
    );
    assert_eq!(
        driver.key_value_store(Changes::LAST).all(),
        [kv("a", "3".to_owned()), kv("b", "8".to_owned())]
    );
    // The store's writes are changelogged and restored like those of `process`.
    driver.clear_and_restore().expect("restore");
    readings.pipe_input_at("b".into(), "9".into(), 60);
    assert_eq!(counts.read_key_values_to_list(), [kv("b", 2)]);
}

#[test]
fn process_values_forwards_every_value_under_the_key_and_punctuates_without_forwarding() {
    let driver = TestDriver::<Words>::new();
    let lines = driver.input_topic(Words::LINES);
    let words = driver.output_topic(Words::NEW_WORDS);
    lines.pipe_input_at("l1".into(), "to be or not to be".into(), 10);
    lines.pipe_input_at("l2".into(), "be quick".into(), 20);
    let got = words.read_records_to_list();
    assert_eq!(
        got.iter()
            .map(|r| (r.key.as_str(), r.value.as_str(), r.timestamp))
            .collect::<Vec<_>>(),
        [
            ("l1", "to", 10),
            ("l1", "be", 10),
            ("l1", "or", 10),
            ("l1", "not", 10),
            ("l2", "quick", 20)
        ]
    );
    // The punctuation forgets every word, so they are new again.
    driver.advance_wall_clock(Duration::from_secs(61));
    assert!(driver.key_value_store(Words::WORDS_SEEN).all().is_empty());
    assert!(words.is_empty());
    lines.pipe_input_at("l3".into(), "be".into(), 30);
    assert_eq!(words.read_key_values_to_list(), [kv("l3", "be".to_owned())]);
}

#[test]
fn process_values_after_a_key_change_still_repartitions() {
    let subs = Rekeyed::INFO.subtopologies;
    assert_eq!(subs.len(), 2, "{}", Rekeyed::describe());
    let driver = TestDriver::<Rekeyed>::new();
    let items = driver.input_topic(Rekeyed::ITEMS);
    let counts = driver.output_topic(Rekeyed::ITEM_COUNTS);
    items.pipe_input_at("1".into(), "x".into(), 10);
    items.pipe_input_at("2".into(), "x".into(), 20);
    assert_eq!(counts.read_key_values_to_list(), [kv("x", 1), kv("x", 2)]);
}

#[test]
fn forwarded_records_keep_or_set_timestamp_and_headers_and_see_topic_and_offset() {
    let driver = TestDriver::<Stamps>::new();
    let input = driver.input_topic(Stamps::STAMP_IN);
    let out = driver.output_topic(Stamps::STAMP_OUT);
    let trace = Headers::new().with("trace", "t1");
    input.pipe_record_at("a".into(), "x".into(), 10, trace.clone());
    input.pipe_record_at("b".into(), "y".into(), 20, Headers::new());
    let got = out.read_records_to_list();
    let seen: Vec<_> = got
        .iter()
        .map(|r| (r.key.as_str(), r.value.as_str(), r.timestamp, &r.headers))
        .collect();
    let from = |o: i64| Headers::new().with("from", format!("stamp-in/0/{o}"));
    assert_eq!(
        seen,
        [
            ("a", "x", 10, &trace),
            ("a", "x", 110, &from(0)),
            ("b", "y", 20, &Headers::new()),
            ("b", "y", 120, &from(1)),
        ]
    );

    // A plain pair keeps the input's timestamp and headers; `Forward::value` sets the timestamp
    // and keeps the key and headers.
    let plain = driver.input_topic(Stamps::PLAIN_IN);
    plain.pipe_record_at("k".into(), "v".into(), 50, trace.clone());
    let got = driver
        .output_topic(Stamps::PLAIN_OUT)
        .read_records_to_list();
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].key.as_str(), got[0].value.as_str()), ("k", "v"));
    assert_eq!((got[0].timestamp, &got[0].headers), (7, &trace));
}

#[test]
fn a_commit_asked_for_flushes_the_caches_after_the_record() {
    let driver = TestDriver::<Urgent>::with_cache_max_bytes(1 << 20);
    let orders = driver.input_topic(Urgent::ORDERS);
    let counts = driver.output_topic(Urgent::ORDER_COUNTS);
    orders.pipe_input_at("ann".into(), "o1".into(), 10);
    orders.pipe_input_at("bob".into(), "o2".into(), 20);
    orders.pipe_input_at("ann".into(), "o3".into(), 30);
    // Behind the cache until a commit.
    assert!(counts.read_key_values_to_list().is_empty());
    assert_eq!(driver.commits_requested(), 0);
    orders.pipe_input_at("bob".into(), "o4!".into(), 40);
    assert_eq!(driver.commits_requested(), 1);
    // The commit the urgent order asked for flushed every key the cache held, the urgent
    // order's included.
    assert_eq!(
        counts.read_key_values_to_list(),
        [kv("ann", 2), kv("bob", 2)]
    );
    orders.pipe_input_at("ann".into(), "o5".into(), 50);
    assert!(counts.read_key_values_to_list().is_empty());
    driver.commit();
    assert_eq!(counts.read_key_values_to_list(), [kv("ann", 3)]);
    assert_eq!(driver.commits_requested(), 1);
}
