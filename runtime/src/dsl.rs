//! The `topology!` language, operator by operator.
//!
//! A topology is a type, an application id and a body:
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     /// Counts the words of every sentence.
//!     pub WordCount = "word-count" {
//!         stream("sentences", Utf8, Utf8)
//!             .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
//!             .group_by(|_key, word| word.clone(), Utf8, Utf8)
//!             .count("counts")
//!             .to_stream()
//!             .to("word-counts", Utf8, I64);
//!     }
//! }
//!
//! assert_eq!(WordCount::APPLICATION_ID, "word-count");
//! assert_eq!(WordCount::INFO.subtopologies.len(), 2); // split at the repartition topic
//! print!("{}", WordCount::describe());
//! ```
//!
//! The body is Rust syntax: statements that are method chains, and `let` to name a stream or a
//! table you use more than once. Topic and store names are string literals and serdes are
//! types, so the macro knows every topic, internal topic and store while compiling and checks
//! them: a mistake is a compile error at the offending token that says how to fix it.
//!
//! The macro defines:
//!
//! - the type (`WordCount`), implementing [`Topology`](crate::task::Topology): the application
//!   id, [`INFO`](crate::task::Topology::INFO) (subtopologies, topics with their configs,
//!   copartition groups, stores), [`describe()`](crate::task::Topology::describe) and
//!   [`create_task`](crate::task::Topology::create_task);
//! - typed handles: one [`TopicRef`](crate::task::TopicRef) per user topic
//!   (`WordCount::SENTENCES`, `WordCount::WORD_COUNTS`) and one
//!   [`StoreRef`](crate::task::StoreRef) or [`WindowStoreRef`](crate::task::WindowStoreRef) per
//!   store (`WordCount::COUNTS`); names are upper-cased, `-` and `.` become `_`, and a store
//!   whose name equals a topic's gets the suffix `_STORE`;
//! - hidden task types, one per subtopology.
//!
//! # Sources
//!
//! | | |
//! |---|---|
//! | `stream("topic", KeySerde, ValueSerde)` | a record stream |
//! | `table("topic", KeySerde, ValueSerde)` | a table; its store (named like the topic, or `table("topic", K, V, "store")`) uses the topic as its changelog, and a null value deletes the key |
//!
//! A topic is read once; bind it with `let` to use it several times. Give a table's topic
//! `cleanup.policy=compact`.
//!
//! # Stateless operators
//!
//! Closures are ordinary Rust closures, called inline. Predicates and key selectors borrow the
//! record; mapping closures take it by value.
//!
//! | operator | closure |
//! |---|---|
//! | `filter(p)`, `filter_not(p)` | `\|key: &K, value: &V\| -> bool` |
//! | `map(f)` | `\|key: K, value: V\| -> (K2, V2)` |
//! | `map_values(f)` | `\|value: V\| -> V2` or `\|key: &K, value: V\| -> V2` |
//! | `flat_map(f)` | `\|key: &K, value: &V\| -> impl IntoIterator<Item = (K2, V2)>` |
//! | `flat_map_values(f)` | `\|value: &V\| -> impl IntoIterator<Item = V2>` or with `&K` first |
//! | `select_key(f)` | `\|key: &K, value: &V\| -> K2` |
//! | `peek(f)` | `\|key: &K, value: &V\|` |
//! | `merge(other)` | — both streams continue as one |
//! | `branch(p1, p2, ..)` | predicates as for `filter`; a record goes to the first branch whose predicate holds, or nowhere; bind the branches: `let [a, b] = s.branch(..);` |
//! | `repartition("name", KeySerde, ValueSerde)` | — writes the stream to `<app>-<name>-repartition` and reads it back, partitioned by its current key (for example before a join, after `select_key`) |
//! | `try_map(f)`, `try_map_values(f)` | as `map`/`map_values`, returning `Result<_, ProcessError>`; an `Err` goes to `on_error` |
//!
//! A stream used by several operators (fan-out) hands each a reference; operators that need
//! the key or value by value clone it, so such types must be `Clone`.
//!
//! # Grouping and aggregation
//!
//! | | |
//! |---|---|
//! | `group_by(\|key, value\| new_key, KeySerde, ValueSerde)` | groups by a new key: records go through the repartition topic `<app>-<store>-repartition` |
//! | `group_by_key()` | groups by the key; repartitions only when an operator changed the key upstream, and then needs the serdes: `group_by_key(KeySerde, ValueSerde)` |
//! | `.windowed_by(tumbling(size).grace(g))`, `.windowed_by(hopping(size, advance).grace(g))` | windows; durations are `Duration::from_millis/from_secs/from_mins/from_hours(N)` or integer milliseconds; grace defaults to 0 |
//! | `count("store")` | `i64` counts |
//! | `reduce("store", \|aggregate: V, value: V\| -> V)` | |
//! | `aggregate("store", \|\| initial, \|key: &K, value: V, aggregate: A\| -> A, AggregateSerde)` | |
//! | `to_stream()` | the table's updates as a stream |
//!
//! Every store writes its updates to `<app>-<store>-changelog`. An aggregation emits the new
//! value for each record, or, with the record cache on (`KafkaStreams`' default, 10 MiB), the
//! latest value of each changed key at every commit ([`crate::cache`]). Windowed aggregations key their results by
//! [`Windowed<K>`](crate::serdes::Windowed); write them with `TimeWindowed::<KeySerde>` (the
//! macro fills in the window size). Stream time is the largest timestamp a task has seen; a
//! window closes when stream time reaches its end plus the grace period, and a record for a
//! closed window is dropped and counted in
//! [`Task::late_records_dropped`](crate::task::Task::late_records_dropped).
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Clicks = "clicks" {
//!         stream("clicks", Utf8, Utf8)
//!             .group_by_key()
//!             .windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(5)))
//!             .count("clicks-per-minute")
//!             .to_stream()
//!             .to("clicks-per-minute", TimeWindowed::<Utf8>, I64);
//!     }
//! }
//! # let _ = Clicks::CLICKS_PER_MINUTE_STORE;
//! ```
//!
//! # Joins
//!
//! `stream.join(table, |value: V, table_value: T| -> R)` emits for records whose key the table
//! holds; `left_join(table, |value: V, table_value: Option<T>| -> R)` emits for every record.
//! The stream and the table must have the same key type and be co-partitioned; the topology
//! declares their copartition group.
//!
//! Two streams join over a join window, as Kafka Streams' `JoinWindows`:
//! `left.join(right, |l: &L, r: &R| -> O, join_window(d))` joins records of equal keys at most
//! `d` apart, `join_window(before, after)` right records from `before` earlier to `after` later
//! than the left one, and `.grace(g)` accepts records up to `g` late. `left.left_join(right,
//! |l: &L, r: Option<&R>| -> O, ..)` also emits left records without a partner, and
//! `left.outer_join(right, |l: Option<&L>, r: Option<&R>| -> O, ..)` records of both sides
//! without one, each once its window has closed (stream time past its timestamp + window +
//! grace), never early. A result carries the later timestamp of the two records. Both streams
//! need the same key type, known serdes and their original keys (after `select_key` or `map`,
//! `repartition(..)` first); each side's records wait in a window store named like Kafka
//! Streams' (`KSTREAM-JOINTHIS-0000000004-store`, changelog `cleanup.policy=delete`, retention
//! before + after + grace + 1 day). A record with a negative timestamp, a null key or a null
//! value goes to `on_error`.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Attribution = "attribution" {
//!         let impressions = stream("impressions", Utf8, Utf8);
//!         let clicks = stream("clicks", Utf8, Utf8);
//!         impressions
//!             .left_join(
//!                 clicks,
//!                 |ad, click| format!("{ad} -> {}", click.map_or("no click", |c| c.as_str())),
//!                 join_window(Duration::from_mins(10)).grace(Duration::from_secs(30)),
//!             )
//!             .to("attributed", Utf8, Utf8);
//!     }
//! }
//! ```
//!
//! # The processor API
//!
//! Declare key-value stores with `store("name", KeySerde, ValueSerde)` and list the ones a
//! `process(["name", ..], |ctx, key, value| ..)` closure uses. The closure gets a context with
//! one accessor per store (the name in snake case) returning a [`KeyValueStore`](crate::store::KeyValueStore) (`get`, `put`,
//! `delete`, `range`, `all`), and the record's `timestamp()`, `headers()` and `partition()`. It
//! returns `Ok` with what it forwards — any `IntoIterator` of (key, value) pairs — or `Err` for
//! `on_error`. There are no timers yet.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Dedup = "dedup" {
//!         store("seen", Utf8, I64);
//!         stream("events", Utf8, Utf8)
//!             .process(["seen"], |ctx, id, payload| {
//!                 let now = ctx.timestamp();
//!                 if ctx.seen().get(&id)?.is_some() {
//!                     return Ok(None);
//!                 }
//!                 ctx.seen().put(&id, &now)?;
//!                 Ok(Some((id, payload)))
//!             })
//!             .to("unique-events", Utf8, Utf8);
//!     }
//! }
//! ```
//!
//! # Sinks and errors
//!
//! `to("topic", KeySerde, ValueSerde)` writes the stream and ends it. `on_error(|error| ..)`
//! decides per failing record (see [`task`](crate::task#errors-of-one-record)):
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Orders = "orders" {
//!         on_error(|error| match error.kind {
//!             ErrorKind::ValueDeserialization => ErrorResponse::DeadLetter("orders-dead-letter"),
//!             _ => ErrorResponse::Fail,
//!         });
//!         stream("orders", Utf8, Json::<serde_json::Value>).to("orders-copy", Utf8, Json::<serde_json::Value>);
//!     }
//! }
//! assert!(Orders::INFO.subtopologies[0].sink_topics.contains(&"orders-dead-letter"));
//! ```
//!
//! # What the macro rejects
//!
//! Among others (each a case in `ui-tests/tests/fail`): an invalid application id or topic
//! name, a name too long once the application id and the `-repartition`/`-changelog` suffix are
//! added (Kafka allows 249 characters), an internal topic that collides with a user topic, a
//! topic read twice, a duplicate or unknown store, an operator after a sink, `count`/`reduce`/
//! `aggregate` without grouping, an operation a table does not have, a join whose key type
//! differs from the table's, a serde whose type differs from the stream's, a windowed serde on
//! an unwindowed stream, a `process` naming an undeclared store, an invalid dead-letter topic,
//! a dead-letter topic that is also an input topic (a failing record would loop forever), two
//! merged streams whose key types differ, an empty topology body.
//!
//! It warns (as a use of a deprecated item, so `#[allow(deprecated)]` silences it) about a
//! stream or table bound by `let` that nothing uses; a name starting with `_` is exempt.
//!
//! ```compile_fail
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Bad = "bad" {
//!         // error: `count` needs a grouped stream: call group_by(..) or group_by_key() first
//!         stream("in", Utf8, Utf8).count("counts");
//!     }
//! }
//! ```
