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
//! them: a mistake is a compile error at the offending token that says how to fix it. The
//! serdes Kafka ships (`Serdes.String()`, `Long()`, `Double()`, `UUID()`, `ListSerde`, ..) have
//! byte-compatible equivalents (`Utf8`, `I64`, `F64`, `Uuid`, `ListOf::<S>`, ..): see the table
//! in [`serdes`](crate::serdes).
//!
//! The macro defines:
//!
//! - the type (`WordCount`), implementing [`Topology`](crate::task::Topology): the application
//!   id, [`INFO`](crate::task::Topology::INFO) (subtopologies, topics with their configs,
//!   copartition groups, stores), [`describe()`](crate::task::Topology::describe) and
//!   [`create_task`](crate::task::Topology::create_task);
//! - typed handles: one [`TopicRef`](crate::task::TopicRef) per user topic
//!   (`WordCount::SENTENCES`, `WordCount::WORD_COUNTS`) and one
//!   [`StoreRef`](crate::task::StoreRef), [`WindowStoreRef`](crate::task::WindowStoreRef) (time
//!   and sliding windows) or [`SessionStoreRef`](crate::task::SessionStoreRef) per store
//!   (`WordCount::COUNTS`), to read it in the `TestDriver` (interactive queries take the
//!   key-value and window handles); names are upper-cased, `-` and `.` become `_`, and a store
//!   whose name equals a topic's gets the suffix `_STORE`;
//! - hidden task types, one per subtopology.
//!
//! # Sources
//!
//! | | |
//! |---|---|
//! | `stream("topic", KeySerde, ValueSerde)` | a record stream |
//! | `stream("topic", KeySerde, ValueSerde, timestamp(..))` | a record stream stamped by a timestamp extractor (see [Event time](#event-time)) |
//! | `stream("topic", KeySerde, ValueSerde, offset_reset(..))` | a record stream that starts elsewhere than at the beginning when its group has no committed offset (see [Offset reset](#offset-reset)) |
//! | `stream(["web-clicks", "app-clicks"], KeySerde, ValueSerde)` | one record stream of several topics (Kafka Streams' `builder.stream(List.of(..))`: one source node); each record keeps its own topic, partition and offset; the topics' partition `n` go to task `n`, so give them the same partition count when a key must meet itself (an aggregation); with different counts there are as many tasks as the largest has partitions, and a task reads the topics that have its partition. A topic pattern (`builder.stream(Pattern)`) is refused while compiling: Kafka 4.4's streams group coordinator refuses source regexes, as Kafka Streams 4.4 refuses them with the streams protocol |
//! | `table("topic", KeySerde, ValueSerde)` | a table; its store (named like the topic, or `table("topic", K, V, "store")`) uses the topic as its changelog, and a null value deletes the key |
//! | `global_table("topic", KeySerde, ValueSerde)` | a global table, read in full by every instance (see [Global tables](#global-tables)) |
//!
//! A topic is read once; bind it with `let` to use it several times. Give a table's topic
//! `cleanup.policy=compact`.
//!
//! ## Offset reset
//!
//! Where a stream starts reading a partition for which its group has no committed offset (a new
//! application, or one reset), per source, as Kafka Streams' `Consumed.withOffsetResetPolicy`
//! (`AutoOffsetReset`, KIP-1106). A committed offset always wins; both options of `stream(..)`
//! combine (`timestamp(..)` and `offset_reset(..)`, in any order).
//!
//! | | |
//! |---|---|
//! | (none), `offset_reset(earliest)` | the partition's beginning, as Kafka Streams' default `auto.offset.reset` |
//! | `offset_reset(latest)` | its end when the task starts (the last stable offset under exactly-once): only what is written afterwards |
//! | `offset_reset(by_duration(Duration::from_secs(3600)))` | the first record stamped at most that long before the task starts (by the records' timestamps; the end if none is that recent); the duration is a const expression |
//! | `offset_reset(none)` | no start: the application stops with `StreamsError::NoCommittedOffset`, which names the partition |
//!
//! The start is looked up once, when the task is created, and kept: if the interval's work is
//! dropped before the first commit (an aborted transaction), the task goes back to that same
//! offset rather than looking again, so nothing written meanwhile is skipped.
//!
//! A table takes the same option after its store name: `table("customers", Utf8, Utf8,
//! "customers-store", offset_reset(latest))` (Kafka Streams' `builder.table(topic,
//! Consumed..withOffsetResetPolicy(..))`). A table that does not start at the beginning does not
//! hold the values written before its start: `latest` starts it empty. A global table always
//! reads its topic from the beginning (Kafka Streams ignores the policy there), so
//! `global_table(.., offset_reset(..))` is refused while compiling.
//!
//! ## Event time
//!
//! A record's timestamp is Kafka's, unless the stream's source extracts its own:
//! `stream("topic", K, V, timestamp(..))`, Kafka Streams' `Consumed.withTimestampExtractor`.
//! The extracted timestamp is the record's for every operator after the source: it moves
//! stream time, places the record in windows and join windows, and stamps what the record
//! produces. A record whose extracted timestamp is negative is skipped and counted in
//! [`Task::invalid_timestamps_dropped`](crate::task::Task::invalid_timestamps_dropped) (Kafka
//! Streams' `dropped-records`). Details, and what happens to null keys and values, in
//! [`event_time`](crate::event_time).
//!
//! | `timestamp(..)` | Kafka Streams | a record's timestamp |
//! |---|---|---|
//! | `\|key: &K, value: &V, record_ts: i64, partition_time: i64\| -> i64` | a `TimestampExtractor`'s `extract(record, partitionTime)` | what the closure returns (`partition_time`: the largest timestamp extracted so far, `-1` before the first) |
//! | `WallClock` | `WallclockTimestampExtractor` | the system clock when the record is read |
//! | `FailOnInvalid` | `FailOnInvalidTimestamp` | Kafka's; a negative one fails the record (`on_error`, `ErrorKind::InvalidTimestamp`) |
//! | `LogAndSkipOnInvalid` | `LogAndSkipOnInvalidTimestamp` | Kafka's; a negative one skips the record (counted) |
//! | `UsePartitionTimeOnInvalid` | `UsePartitionTimeOnInvalidTimestamp` | Kafka's; a negative one becomes the partition time (fails while that is unknown) |
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! /// `"<epoch millis>,<reading>"` → the millis; -1 (skipped) when there are none.
//! fn measured_at(value: &str) -> i64 {
//!     value.split(',').next().and_then(|t| t.parse().ok()).unwrap_or(-1)
//! }
//!
//! topology! {
//!     pub Sensors = "sensors" {
//!         stream("readings", Utf8, Utf8, timestamp(|_sensor, reading: &String, _record_ts, _partition_time| measured_at(reading)))
//!             .group_by_key()
//!             .windowed_by(tumbling(Duration::from_mins(1)))
//!             .count("readings-per-minute")
//!             .to_stream()
//!             .to("readings-per-minute", TimeWindowed::<Utf8>, I64);
//!         stream("heartbeats", Utf8, Utf8, timestamp(WallClock)).to("heartbeats-seen", Utf8, Utf8);
//!     }
//! }
//! # let _ = Sensors::READINGS_PER_MINUTE_STORE;
//! ```
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
//! | `repartition("name", KeySerde, ValueSerde, partitioner(\|key: &K, value: &V, partitions: u32\| ..))` | — the same, each record to the partitions the closure chooses (Kafka Streams' `Repartitioned.withStreamPartitioner`; see [`routing`](crate::routing)); after `partitions(n)` when both are given |
//! | `repartition("name", KeySerde, ValueSerde, partitions(n))` | — the same, the topic declared with `n` partitions (Kafka Streams' `Repartitioned.withNumberOfPartitions(n)`): the coordinator creates it with `n` rather than the source topics' count; `n` is an integer literal of 1 or more. The [`TestDriver`](crate::testing::TestDriver) runs this topic, as every other, with the driver's partition count |
//! | `try_map(f)`, `try_map_values(f)` | as `map`/`map_values`, returning `Result<_, ProcessError>`; an `Err` goes to `on_error` |
//!
//! A stream used by several operators (fan-out) hands each a reference; operators that need
//! the key or value by value clone it, so such types must be `Clone`.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub ByCustomer = "by-customer" {
//!         stream("orders", Utf8, Utf8)
//!             .select_key(|_order_id, order| order.split(':').next().unwrap_or_default().to_owned())
//!             .repartition("by-customer", Utf8, Utf8, partitions(12))
//!             .group_by_key()
//!             .count("orders-per-customer")
//!             .to_stream()
//!             .to("orders-per-customer", Utf8, I64);
//!     }
//! }
//! let topics = ByCustomer::INFO.subtopologies[1].repartition_source_topics;
//! assert_eq!((topics[0].name, topics[0].partitions), ("by-customer-by-customer-repartition", 12));
//! ```
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
//! | `.windowed_by(session(gap).grace(g))` | session windows ([below](#session-and-sliding-windows-emit-final)) |
//! | `.windowed_by(sliding(time_difference).grace(g))` | sliding windows ([below](#session-and-sliding-windows-emit-final)) |
//! | `aggregate("store", \|\| initial, \|key, value, aggregate\| .., \|key: &K, a: A, b: A\| -> A, AggregateSerde)` | after `session(..)`: the fourth argument merges two sessions' aggregates |
//! | `to_stream()` | the table's updates as a stream (aggregations of streams: plain values) |
//! | `suppress_until_window_closes()`, `suppress_until_window_closes("name")`, `suppress_until_window_closes(max_records(n).shut_down_when_full(), "name")` | after a windowed aggregation: one final result per window and key, when it closes |
//! | `suppress_until_time_limit(Duration, buffer, "name")` (buffer and name optional) | on a table (an aggregation's, windowed or not, or one that forwards changes): a key's latest result or change, once stream time passes the time it was first buffered plus the limit |
//!
//! Every store writes its updates to `<app>-<store>-changelog`. An aggregation emits the new
//! value for each record, or, with the record cache on (`KafkaStreams`' default, 10 MiB), the
//! latest value of each changed key at every commit ([`StreamsConfig::cache_max_bytes`](crate::StreamsConfig)). Windowed aggregations key their results by
//! [`Windowed<K>`](crate::serdes::Windowed); write them with `TimeWindowed::<KeySerde>` (the
//! macro fills in the window size). `to(..)` writes a record with a `TimeWindowed` or
//! `SessionWindowed` key to the partition of its inner key (murmur2 of the key without its
//! window bytes), as Kafka Streams' `WindowedStreamPartitioner` does, so a window's result lands
//! where the key's plain records do and Java consumers of the topic agree. Stream time is the largest timestamp a task has seen; a
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
//! ## Session and sliding windows, emit-final
//!
//! Both behave as Kafka Streams 4.4's (`KStreamSessionWindowAggregate`,
//! `KStreamSlidingWindowAggregate`), so a ported topology gives the same results:
//!
//! - **`session(gap)`**: a session is `[first, last]` record of a key (both inclusive). A
//!   record within `gap` of one or more sessions merges them: the old sessions are deleted and,
//!   downstream, replaced by a tombstone under their old session key, then the merged session
//!   is forwarded (stamped with its end). A session closes `gap + grace` after its end; a record
//!   whose merged session would end before that is late. Keys are written with
//!   `SessionWindowed::<KeySerde>` (key, end, start: Kafka Streams' `SessionWindowedSerializer`).
//!   The tombstones reach the sinks that follow `to_stream()` directly (typed operators in
//!   between see the updates only: a Rust value is never null). Session aggregations bypass the
//!   record cache and forward every update.
//! - **`sliding(d)`**: windows `[start, start + d]` (both inclusive) exist where records are: a
//!   record at `t` updates every window of its key containing it, creates `[t − d, t]`, creates
//!   `[t + 1, t + 1 + d]` if a later record lies in it, and creates its predecessor's right
//!   window if it falls in it; records before `d` share `[0, d]`. Results are stamped with the
//!   window's largest record timestamp and written with `TimeWindowed::<KeySerde>`.
//! - **`suppress_until_window_closes()`** (Kafka Streams' `suppress(untilWindowCloses(..))`,
//!   chosen over KIP-825's emit strategy because it composes with every windowed aggregation,
//!   including sessions, and its buffer is a plain changelogged store): buffers each window's
//!   latest result and forwards it once, when stream time reaches the window's end plus grace
//!   (plus the gap for sessions). The buffer's changelog
//!   (`<app>-KTABLE-SUPPRESS-STATE-STORE-<n>-changelog`, or `<app>-<name>-store-changelog`)
//!   is written in the task's transaction, so under exactly-once each final result is emitted
//!   once across crashes and rebalances.
//! - **`suppress_until_time_limit(limit)`** (Kafka Streams'
//!   `suppress(Suppressed.untilTimeLimit(limit, ..))`), after an aggregation with or without
//!   time or sliding windows: buffers each key's latest result and forwards it (stamped with
//!   that result's timestamp) once the suppression's stream time (the largest timestamp that
//!   reached it) is at least the time the key was *first* buffered plus `limit`; a later update
//!   replaces the value but keeps the key's place, as in Kafka Streams. A limit of 0 forwards
//!   every update at once (Kafka Streams allows it too). The buffer is changelogged like the
//!   one above and restored after a crash; the suppression's stream time starts again with the
//!   task, as Kafka Streams' processor-local time does. After a session-windowed aggregation
//!   the deletes of merged-away sessions are held too, each from its session's end, and
//!   forwarded as tombstones to a sink right after `to_stream()`. On a table that forwards
//!   changes (`table(..)`, `to_table(..)`, their filters and joins, a re-grouped table's
//!   aggregation) it holds each key's latest change and forwards it with that change's old
//!   value, as Kafka Streams does, deletes included, so the table operators after it (`filter`,
//!   `group_by` and its subtractor) see what they expect; such a table is not joined (the
//!   macro refuses it: Kafka Streams' join would read a buffered key's value from before its
//!   buffered changes), and its value serde must be known (not after `map_values`).
//! - **Buffer configs** (Kafka Streams' `Suppressed.BufferConfig`), the optional argument of
//!   both: `unbounded()` (the default), `max_records(n)`, `max_bytes(n)`, chained with
//!   `.with_max_records(n)`, `.with_max_bytes(n)`, `.with_no_bound()` and what a full buffer
//!   does: `.emit_early_when_full()` (the default of `max_records`/`max_bytes`: the
//!   earliest-buffered keys are forwarded early until it fits) or `.shut_down_when_full()` (the
//!   task fails with [`TaskError::BufferFull`](crate::task::TaskError::BufferFull), which stops
//!   the instance whatever `on_error` says, as Kafka Streams' `StreamsException`; its message
//!   names the config to change). A buffer is full when it holds more than `n` records, or more
//!   than `n` bytes, counted per entry as 8 + the serialized key + the serialized value + 20 for
//!   the record's timestamp, offset and partition. That is the core of Kafka Streams' estimate,
//!   not all of it: Kafka Streams also counts the record's topic name, its headers and the old
//!   value it buffers beside the new one, so the same `max_bytes` fills later here. `suppress_until_window_closes`
//!   takes only strict configs (`unbounded()` or `.shut_down_when_full()`): emitting early would
//!   forward results that are not final, so the macro refuses it, as Kafka Streams' types do.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Settled = "settled" {
//!         let counts = stream("clicks", Utf8, Utf8).group_by_key().count("clicks");
//!         counts
//!             .suppress_until_time_limit(Duration::from_secs(30), max_records(10_000))
//!             .to_stream()
//!             .to("clicks-settled", Utf8, I64);
//!         stream("views", Utf8, Utf8)
//!             .group_by_key()
//!             .windowed_by(tumbling(Duration::from_mins(1)))
//!             .count("views-per-minute")
//!             .suppress_until_window_closes(max_bytes(64_000_000).shut_down_when_full(), "views-final")
//!             .to_stream()
//!             .to("views-per-minute", TimeWindowed::<Utf8>, I64);
//!     }
//! }
//! ```
//!
//! Stores keep windows for their retention (time: size + grace; session: gap + grace;
//! sliding: 2 × difference + grace) and delete older ones with a changelog tombstone, found
//! through a time-ordered index ([`TimeIndex`](crate::window::TimeIndex)) rather than a scan of
//! the store; as in Kafka Streams, a session or sliding window older than the store's newest
//! time minus retention is no longer seen by new records. Changelogs of window stores have
//! `cleanup.policy=compact,delete` and `retention.ms` = retention + 1 day
//! (`windowstore.changelog.additional.retention.ms`), as Kafka Streams sets them.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Activity = "activity" {
//!         let clicks = stream("clicks", Utf8, Utf8);
//!         clicks
//!             .group_by_key()
//!             .windowed_by(session(Duration::from_mins(30)).grace(Duration::from_secs(10)))
//!             .count("clicks-per-session")
//!             .suppress_until_window_closes()
//!             .to_stream()
//!             .to("sessions", SessionWindowed::<Utf8>, I64);
//!         clicks
//!             .group_by_key()
//!             .windowed_by(sliding(Duration::from_mins(5)))
//!             .count("clicks-in-5-minutes")
//!             .to_stream()
//!             .to("recent-clicks", TimeWindowed::<Utf8>, I64);
//!     }
//! }
//! ```
//!
//! ## Cogroup
//!
//! Several grouped streams aggregated into one store, each with its own aggregator and one
//! initializer (Kafka Streams' `KGroupedStream#cogroup`, `CogroupedKStream`):
//!
//! | | |
//! |---|---|
//! | `grouped.cogroup(\|key: &K, value: V1, aggregate: A\| -> A)` | starts a cogroup with a grouped stream and its aggregator |
//! | `.cogroup(other_grouped, \|key: &K, value: V2, aggregate: A\| -> A)` | adds a grouped stream bound by `let` (same key type, any value type) |
//! | `.windowed_by(window)` | optional, once, after the last `cogroup(..)`: time, sliding or session windows |
//! | `.aggregate("store", \|\| initial, AggregateSerde)` | the cogroup's table; after `session(..)`: `.aggregate("store", \|\| initial, \|key, a, b\| merged, AggregateSerde)` |
//!
//! As in Kafka Streams, a record of any stream updates the one store with its stream's
//! aggregator and emits the new aggregate (stamped with the larger of the record's and the
//! aggregate's timestamps); records with a null key or value are dropped. The cogrouped streams
//! are copartitioned. A stream grouped after a key change goes through the repartition topic
//! `<app>-<store>-repartition`, so only one of them can need one (Kafka Streams names them all
//! after the store and refuses two): repartition the others before grouping them. Each stream's
//! aggregation closes windows by the largest timestamp it has seen itself (Kafka Streams'
//! processors each keep their own stream time), not by the task's; a time window still open for
//! a lagging stream but older than the store's retention allows reads as absent (the aggregate
//! starts over from the initializer), as in Kafka Streams. The table continues with
//! `to_stream()`.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Customers = "customers" {
//!         let views = stream("views", Utf8, Utf8).group_by_key();
//!         stream("clicks", Utf8, Utf8)
//!             .group_by_key()
//!             .cogroup(|_key: &String, _click: String, (clicks, views): (i64, i64)| (clicks + 1, views))
//!             .cogroup(views, |_key: &String, _view: String, (clicks, views): (i64, i64)| (clicks, views + 1))
//!             .windowed_by(tumbling(Duration::from_mins(1)))
//!             .aggregate("activity", || (0i64, 0i64), Json::<(i64, i64)>)
//!             .to_stream()
//!             .to("activity-per-minute", TimeWindowed::<Utf8>, Json::<(i64, i64)>);
//!     }
//! }
//! ```
//!
//! # Joins
//!
//! `stream.join(table, |value: V, table_value: T| -> R)` emits for records whose key the table
//! holds; `left_join(table, |value: V, table_value: Option<T>| -> R)` emits for every record.
//! The stream and the table must have the same key type and be co-partitioned; the topology
//! declares their copartition group. For joins of two tables, see [Tables](#tables).
//!
//! Every joiner may take the key first, as Kafka Streams' `ValueJoinerWithKey`:
//! `join(table, |key: &K, value: V, table_value: T| ..)`, and likewise for `left_join`, the
//! stream-stream joins (`|key: &K, l: &L, r: &R|`, `|key, l, r: Option<&R>|`, `|key, l:
//! Option<&L>, r: Option<&R>|`), the global-table joins (the stream record's key, not the
//! mapped one), the table-table joins and the foreign-key joins (the left row's key). The macro
//! tells the two forms apart by the closure's number of parameters, as for `map_values`; a
//! closure of another arity is a compile error. Kafka Streams has no `ValueJoinerWithKey` for
//! table-table and foreign-key joins; there the key form is this crate's addition. A joiner
//! that takes the key cannot take a missing one: where a left or outer join forwards a record
//! with a null key (see [Null keys and values](#null-keys-and-values)) to such a joiner, the
//! record fails (`on_error`, kind `KeyDeserialization`) where Kafka Streams would pass `null`;
//! read the topic with `Nullable::<S>` keys to join those records.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Labelled = "labelled" {
//!         let labels = table("labels", Utf8, Utf8);
//!         stream("events", Utf8, Utf8)
//!             .join(labels, |key: &String, event: String, label: String| format!("{key}/{label}: {event}"))
//!             .to("labelled-events", Utf8, Utf8);
//!     }
//! }
//! ```
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
//! before + after + grace + 1 day). A record with a negative timestamp goes to `on_error`; one
//! with a null key or value is dropped and counted, except that the left side of a left join and
//! both sides of an outer join forward a null-key record at once, joined with no partner, as
//! Kafka Streams does (see [Null keys and values](#null-keys-and-values)).
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
//!
//! # Tables
//!
//! A table is a changelog: per key, the latest value. Its operators see each update as the
//! new value and the old one, with Kafka Streams' `KTable` semantics. Tables are materialized
//! where they start (`table(..)` and `to_table(..)` keep a store), so old values are always
//! known, as in Kafka Streams with a materialized source.
//!
//! | | |
//! |---|---|
//! | `stream.to_table("store")` | the latest value per key of a stream (`KSTREAM-TOTABLE-n`), kept in a logged store; a value that encodes as null (`Nullable::<S>`) deletes the key, a null key is dropped; `to_table("store", KeySerde, ValueSerde)` where the stream's serdes are not known |
//! | `table.filter(p)`, `table.filter_not(p)` | `\|key: &K, value: &V\| -> bool`; a key that stops passing forwards a tombstone, but only if it had been forwarded (`KTABLE-FILTER-n`) |
//! | `table.map_values(f)` | `\|value: V\| -> V2` or `\|key: &K, value: V\| -> V2`; deletes stay deletes (`KTABLE-MAPVALUES-n`) |
//! | `table.join(other, \|l: &V, r: &V2\| -> R)` | a result while both tables have the key; a delete on either side retracts it (tombstone) |
//! | `table.left_join(other, \|l: &V, r: Option<&V2>\| -> R)` | a result while the left table has the key |
//! | `table.outer_join(other, \|l: Option<&V>, r: Option<&V2>\| -> R)` | a result while either table has the key |
//! | `table.group_by(\|key: &K, value: V\| -> (K2, V2), KeySerde, ValueSerde)` | re-groups the rows (`KTABLE-SELECT-n`) through `<app>-<store>-repartition`, each update as its old and new value in Kafka Streams' `ChangedSerializer` format; then one of the three below |
//! | `.count("store")` | rows per new key (`i64`); a count that falls to 0 stays |
//! | `.reduce("store", \|agg: V2, value: V2\| adder, \|agg: V2, old: V2\| subtractor)` | the first value is the aggregate as it is |
//! | `.aggregate("store", \|\| init, \|key: &K2, value: V2, agg: A\| adder, \|key: &K2, old: V2, agg: A\| subtractor, AggregateSerde)` | an update subtracts the old value from its old group, then adds the new one to its new group (one change when the group is the same) |
//! | `table.join_on_foreign_key(other, \|value: &V\| -> FK, \|l: &V, r: &V2\| -> R)` (the extractor may take the key too: `\|key: &K, value: &V\| -> FK`, KIP-1104) | a result while the other table has the foreign key the row's value names; see [Foreign-key joins](#foreign-key-joins) |
//! | `table.left_join_on_foreign_key(other, \|value: &V\| -> FK, \|l: &V, r: Option<&V2>\| -> R)` | a result for every row, `None` while the other table lacks its foreign key |
//! | `table.to_stream()` | the updates as a stream of `Option<V>` values, `None` for a delete: write it with `Nullable::<ValueSerde>` so deletes become tombstones |
//! | `.with_retention(Duration::from_hours(1))` | right after a windowed `count`/`reduce`/`aggregate`: its store keeps windows that long instead of the least it needs (size + grace; gap + grace; 2 × difference + grace), so queries see older windows (Kafka Streams' `Materialized.withRetention`; the changelog's `retention.ms` is the retention plus a day, as Kafka Streams declares it; a shorter one is refused at the call) |
//! | `.versioned(Duration::from_mins(10))` | right after `table(..)` or `to_table(..)`: the table keeps its values' history that long (Kafka Streams' versioned store, KIP-889); see [Versioned tables](#versioned-tables) |
//! | `.with_caching_disabled()` | right after `table(..)`, `count`/`reduce`/`aggregate` or `to_table(..)`: that store's updates skip the record cache (Kafka Streams' `Materialized.withCachingDisabled()`), so every update is forwarded as it happens |
//! | `.with_logging_enabled([("segment.ms", "600000"), ..])` | right after `count`/`reduce`/`aggregate` (windowed or not), `to_table(..)` or a store declared for `process(..)`: the store's changelog gets these topic configs of its own (Kafka Streams' `Materialized.withLoggingEnabled(Map)`), over Kafka Streams' defaults and the application's `internal_topic_config(..)`; see [Changelogs and internal topics](#changelogs-and-internal-topics) |
//! | `.in_memory()` | right after `table(..)`, `count`/`reduce`/`aggregate`, `to_table(..)` or a store declared for `process(..)`: the store stays in memory when the application keeps its stores on disk (`state_dir(..)`; Kafka Streams' `Materialized.as(Stores.inMemoryKeyValueStore(..))`): it is restored from its changelog's start whenever its task starts, while the task's stores on disk replay only what they miss |
//! | `.with_logging_disabled()` | right after `count`/`reduce`/`aggregate`, `to_table(..)` or a store declared for `process(..)`: the store has no changelog (Kafka Streams' `Materialized.withLoggingDisabled()`); see [Changelogs and internal topics](#changelogs-and-internal-topics) |
//!
//! With the record cache on (`cache_max_bytes`, 10 MiB by default), a table read from a topic,
//! a `to_table(..)` and a re-grouped table's `count`/`reduce`/`aggregate` forward as Kafka
//! Streams forwards its materialized tables (our table stores are named, as with
//! `Materialized.as`): one change per key and flush (every commit, or a full cache), from
//! the key's value at the previous flush to its latest, stamped with its last update's
//! timestamp; a key created and deleted in between forwards nothing. Lookups in its store (a
//! stream-table join, queries) see every update at once. `with_caching_disabled()` forwards
//! every record.
//!
//! `filter`, `map_values` and joins are not materialized: a join reads them through their
//! parent's store, applying the filter or mapper on the fly. Both tables of a join must have
//! the same key type and be co-partitioned; the join runs in one task and declares the
//! copartition group. Its nodes are named as Kafka Streams names them: `KTABLE-MERGE-n`,
//! `KTABLE-JOINTHIS-n+1` (the left table's updates) and `KTABLE-JOINOTHER-n+2`. Each result
//! has Kafka Streams' timestamp: the larger of the update's and the other side's stored one
//! (the update's when the other side lacks the key); a re-grouped table's aggregation result
//! the larger of the update's and the aggregate's. Table stores keep each value's timestamp
//! (Kafka Streams' timestamped stores; their changelogs carry the plain value, stamped), and
//! restore it from the changelog. The tables of aggregations forward their
//! results rather than changes: to filter, map or re-group one, write
//! `.to_stream().to_table("store")` first. Joins take them as they are, without that extra
//! store and changelog: a stream joins a `count`/`reduce`/`aggregate` table through its store,
//! and `join`, `left_join` and `outer_join` of tables take one on either side (each result a
//! new value, as an aggregation never deletes). As the aggregation forwards no old values
//! (Kafka Streams' `sendOldValues` is not enabled for it), such a join's result continues with
//! `to_stream()` only, and windowed aggregations' tables are not joined.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub ClicksPerView = "clicks-per-view" {
//!         let clicks = stream("clicks", Utf8, Utf8).group_by_key().count("clicks-per-page");
//!         let views = stream("views", Utf8, Utf8).group_by_key().count("views-per-page");
//!         clicks
//!             .join(views, |c: &i64, v: &i64| *c as f64 / *v as f64)
//!             .to_stream()
//!             .to("click-rates", Utf8, Nullable::<F64>);
//!     }
//! }
//! ```
//!
//! ## Changelogs and internal topics
//!
//! Every store has a changelog topic, `<app>-<store>-changelog`, which the group coordinator
//! creates and from which the store is restored after a failure or a move (a table read from a
//! topic restores from that topic instead). Its configs are declared to the coordinator in
//! Kafka Streams' layers, each overriding the one before:
//!
//! 1. Kafka Streams' own, per kind of topic: `cleanup.policy=compact` for key-value stores,
//!    `compact,delete` for window and session stores, `delete` for repartition topics (with
//!    `retention.ms=-1` and `segment.bytes=52428800`), and `message.timestamp.type=CreateTime`;
//! 2. the application's, for every internal topic: `KafkaStreams::builder(..)
//!    .internal_topic_config("min.insync.replicas", "2")` (Kafka Streams' `topic.` configs);
//! 3. the store's own: `.with_logging_enabled([("segment.ms", "600000")])`.
//!
//! Then a window store's changelog gets `retention.ms` = the store's retention plus
//! `window_changelog_additional_retention(..)` (a day by default), and a versioned store's
//! `min.compaction.lag.ms` = its history plus a day, unless the store's own configs set them.
//! Every internal topic has the replication factor of `replication_factor(..)` (-1 by default:
//! the broker's `default.replication.factor`).
//!
//! The coordinator compares a joining member's topology with the group's field by field,
//! configs and replication factor included: to take over a Kafka Streams application's group,
//! declare what it declares. `describe()` prints the declaration under Kafka Streams' default
//! settings, and the Java calls that give the same.
//!
//! The macro checks each config of `with_logging_enabled` while compiling: a name that is no
//! topic config of Kafka 4.4 (with the closest one), a config given twice, a `cleanup.policy`
//! that is no policy, a size or duration that is no number. `build()` checks the names given to
//! `internal_topic_config`.
//!
//!
//! **Without a changelog** (`with_logging_disabled()`), the store is not declared to the
//! coordinator, nothing is written for it, and nothing restores it: it holds only what its task
//! processed on this instance since the task started here. After a move, a restart in memory, or
//! a failure that rebuilds the task's stores, it starts empty. Under exactly-once the same holds
//! on disk (`state_dir`) after a crash: such a store may hold writes of an interval that was
//! never committed, so unless the task closed cleanly it is emptied (Kafka Streams wipes such a
//! task's state too). Output computed from it is then not exactly-once with respect to its
//! input; use it for state that can be lost (a cache, a deduplication window that may let a
//! repeat through). Queries still answer from it. A table read from a topic keeps that topic as
//! its changelog, and a versioned table rebuilds its history from its changelog, so neither can
//! disable it.
//!
//! ## Versioned tables
//!
//! `.versioned(history)` right after `table(..)` or `to_table(..)` makes the table keep, besides
//! each key's latest value, the values it had over the last `history` (Kafka Streams'
//! `Materialized.as(Stores.persistentVersionedKeyValueStore(name, history))`, KIP-889):
//!
//! ```
//! # use dekaf_streams::prelude::*;
//! topology! {
//!     pub Totals = "order-totals" {
//!         let prices = table("prices", Utf8, I64, "price-store").versioned(Duration::from_mins(10));
//!         stream("orders", Utf8, I64)
//!             // The price valid when the order was placed, not the latest one.
//!             .join(prices, |quantity: i64, price: i64| quantity * price)
//!             .to("totals", Utf8, I64);
//!     }
//! }
//! ```
//!
//! - A **stream-table join** reads the table as of the stream record's timestamp (KIP-914): the
//!   version valid then, or none (a left join gets `None`) when the key had no value then or
//!   the time lies before the table's history (its largest timestamp minus `history`).
//! - With **`grace(D)`** as a third argument (`s.join(prices, f, grace(Duration::from_secs(5)))`,
//!   Kafka Streams' `Joined.withGracePeriod`, KIP-923) stream records wait in a buffer until the
//!   buffer's stream time (its largest record timestamp) passes their timestamp plus `D`, then
//!   join as of their timestamp: a table update that arrives up to `D` late still reaches the
//!   records it belongs to. They leave in timestamp order, then key order. A record older than
//!   the buffer's stream time minus `D` joins at once. The buffer is a store `<join node>-Buffer`
//!   with a changelog, so under exactly-once each record joins once across crashes. The table
//!   must be versioned with a history of at least `D` (checked at compile time); where an
//!   operator changed the stream's values, name their serde: `grace(D, ValueSerde)`. A buffered
//!   record's headers are not kept.
//! - An update **older than the key's latest** goes into the history, where later joins and
//!   reads as of its time see it. It is still forwarded, marked as not the latest (Kafka
//!   Streams' `Change.isLatest`): `to_stream()`, `filter` and `map_values` pass it on,
//!   table-table and foreign-key joins drop it (counted as dropped records), a re-grouping
//!   (`group_by(..).count()`, ..) skips it. An update older than the history reaches (the
//!   table's largest timestamp minus `history`) is dropped and counted. A delete is a version
//!   too (the key is absent from its timestamp on).
//! - Versioned tables are **not cached**: every update that becomes a key's latest is forwarded
//!   when it happens (Kafka Streams does not cache versioned stores either).
//! - Reads as of a time: `TestDriver::key_value_store(..).get_as_of(&key, time)` answers a
//!   [`VersionedRecord`](crate::query::VersionedRecord) (value, timestamp, valid-to); a plain
//!   `get` reads the latest value.
//! - **State:** the latest values live in the table's store (memory or LMDB), the history in
//!   memory next to it; a task with a versioned table rebuilds both from the changelog's start
//!   when it starts (an LMDB store is not reused across restarts). The changelog (of
//!   `to_table(..)`; a `table(..)` restores from its topic) is declared with
//!   `min.compaction.lag.ms` = history + 1 day, as Kafka Streams declares it, so compaction
//!   keeps the versions the history needs.
//!
//! ## Foreign-key joins
//!
//! `orders.join_on_foreign_key(customers, |order| customer_id, |order, customer| ..)` joins
//! each row of the left table with the row of the right table whose key its value names (KIP-213),
//! without co-partitioning the two tables, as Kafka Streams runs it: every change of a left row
//! sends a subscription (the left key, the murmur3 hash of the value's bytes, its partition) to
//! `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-<n>-topic`, keyed by the foreign key; the
//! right table's task keeps the subscriptions in the store
//! `KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-<n+4>` (logged) and answers each, and every change
//! of a right row, on `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-<n+8>-topic`; the left task
//! joins a response only if it carries the hash of the row's current value, so a response to a
//! row whose foreign key changed since is dropped and no result of an outdated foreign key is
//! emitted. The records of both topics are Kafka Streams' (`SubscriptionWrapper` version 1,
//! `SubscriptionResponseWrapper` version 0), so Java peers of the same application read them.
//!
//! Results, per left row: a change of the row or of its right row forwards the new result; a
//! deleted right row forwards a tombstone (inner) or `joiner(l, None)` (left); a deleted left
//! row forwards a tombstone; a foreign key that names no right row forwards nothing (inner) or
//! `joiner(l, None)` (left); a foreign key that serializes to null (`None` with a
//! `Nullable::<S>` key serde) is skipped by the inner join (unsubscribing the old one, which
//! forwards a tombstone) and joins with `None` in the left join. Both tables must be read
//! through their stores (`table(..)` or `to_table(..)`); the result has no store and no old
//! values (Kafka Streams does not materialize it either), so continue it with `to_stream()`.
//!
//! The extractor may take the row's key first, `|key: &K, value: &V| -> FK` (Kafka Streams
//! 4.0's `BiFunction` extractor, KIP-1104), for a foreign key that the key holds; the joiner
//! may take the left row's key first (`|key: &K, l: &V, r: &V2|`).
//!
//! A name as fourth argument, `join_on_foreign_key(customers, |o| .., |o, c| .., "by-customer")`,
//! is Kafka Streams' `TableJoined.as("by-customer")`: the topics are
//! `<app>-by-customer-subscription-registration-topic` and
//! `<app>-by-customer-subscription-response-topic`, the store `by-customer-subscription-store`,
//! the nodes `by-customer-subscription-registration-processor` .. `by-customer-result`; name the
//! join on both sides when a Java application of the same id runs (or ran) it.
//!
//! Results carry Kafka Streams' timestamps: a subscription's answer the larger of the left
//! row's and the right row's, a right row's change its own.
//!
//! ```
//! use dekaf_streams::prelude::*;
//! use dekaf_streams::serdes::Nullable;
//!
//! topology! {
//!     pub Orders = "orders-with-customers" {
//!         let orders = table("orders", Utf8, Utf8, "orders-store");
//!         let customers = table("customers", Utf8, Utf8, "customers-store");
//!         orders
//!             .left_join_on_foreign_key(
//!                 customers,
//!                 |order: &String| order.split(':').next().unwrap_or_default().to_owned(),
//!                 |order: &String, customer: Option<&String>| {
//!                     format!("{order} for {}", customer.map_or("nobody", |c| c.as_str()))
//!                 },
//!             )
//!             .to_stream()
//!             .to("orders-with-customers", Utf8, Nullable::<Utf8>);
//!     }
//! }
//! ```
//!
//! # Global tables
//!
//! `global_table("topic", KeySerde, ValueSerde)` (or with a store name as fourth argument) is
//! Kafka Streams' `GlobalKTable`: every instance reads every partition of the topic (committed
//! records only) into one store its tasks share, completely before any task processes a record,
//! and a dedicated global thread keeps it up to date while the application runs. The store is
//! named as Kafka Streams names it (`<topic>-STATE-STORE-0000000000`, with the builder's index)
//! and has no changelog of its own: the topic is read from the beginning at every start. A
//! record of the topic with a null key is skipped and counted (`GlobalStore::null_keys_dropped`,
//! the `dekaf.streams.global.dropped` counter), a tombstone deletes its key. Its store is
//! queryable on every instance (`queries().store(App::<STORE>)`, every key from the instance's
//! copy), as Kafka Streams' `store()` of a global store.
//!
//! A stream joins it by a key its key mapper picks from each record, so neither
//! co-partitioning nor the stream's original key is needed:
//!
//! | | |
//! |---|---|
//! | `stream.join(global, \|key: &K, value: &V\| -> GK, \|value: V, global_value: G\| -> R)` | emits when the global table has the mapped key (`KSTREAM-LEFTJOIN-n`, as Kafka Streams names it) |
//! | `stream.left_join(global, \|key: &K, value: &V\| -> GK, \|value: V, global_value: Option<G>\| -> R)` | emits for every record, with `None` where the table lacks the key |
//!
//! A mapped key that serializes to null (`None` with a `Nullable::<S>` key serde) finds
//! nothing: the inner join drops the record, the left join joins it with `None`
//! (`KStreamKTableJoinProcessor`). A global value that does not deserialize is an error of the
//! record that looked it up (`on_error`). A global table is not a stream: `filter`, `to` and
//! the other stream operators are compile errors on it; read the topic with `stream(..)` or
//! `table(..)` to process it. The [`TestDriver`](crate::testing::TestDriver) applies records
//! piped into the topic to the table at once, and
//! [`TestDriver::global_store`](crate::testing::TestDriver::global_store) reads it.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Enrich = "enrich" {
//!         let customers = global_table("customers", Utf8, Utf8);
//!         stream("orders", Utf8, Utf8)
//!             .join(
//!                 customers,
//!                 |_order_id: &String, order: &String| order.split(':').next().unwrap_or_default().to_owned(),
//!                 |order: String, customer: String| format!("{order} for {customer}"),
//!             )
//!             .to("enriched-orders", Utf8, Utf8);
//!     }
//! }
//! ```
//!
//! # Null keys and values
//!
//! Kafka records may have no key or no value. A serde that can hold them (`Nullable::<S>`:
//! `Option`s, or `Unit`) hands them to the closures as `None`. With any other serde (`Utf8`,
//! `I64`, `Json`...) a record with a null key or value still flows, operator by operator as in
//! Kafka Streams 4.4 (checked against its `TopologyTestDriver` by `examples/parity`):
//!
//! | operator | null key | null value |
//! |---|---|---|
//! | `to`, `repartition`, `merge`, branch arms | forwarded (written as null) | forwarded |
//! | `map_values`, `flat_map_values` (closures without the key) | forwarded, value mapped | fails |
//! | `count` / `reduce` / `aggregate`, sliding windows | dropped | dropped |
//! | time and session windows | dropped | `count()` counts it; `reduce`/`aggregate` fail |
//! | `to_table` | dropped | deletes the key |
//! | `table(..)` source | dropped | deletes the key |
//! | `stream.join(table)`, inner stream-stream joins | dropped | dropped |
//! | `stream.left_join(table)`, left side of a left join, outer joins | joined with no partner, forwarded | dropped |
//! | every other operator (its closure takes the missing part) | fails | fails |
//!
//! "Dropped" counts the record in [`Task::null_records_dropped`](crate::task::Task::null_records_dropped)
//! (Kafka Streams' `dropped-records`); aggregations and joins drop a `None` key or value of a
//! `Nullable` serde alike. "Fails" sends the record to `on_error` (kind `KeyDeserialization` or
//! `ValueDeserialization`), as a Java closure that dereferences the null would throw; read the
//! topic with `Nullable::<S>` to handle nulls in closures.
//!
//! Aggregation results carry Kafka Streams' timestamp: the larger of the record's and the
//! aggregate's (its stores are timestamped, as `TimestampedKeyValueStore` and
//! `TimestampedWindowStore`), so a late or out-of-order record does not move a result back in
//! time.
//!
//! A `to(..)` of a topic the topology also reads is a loop: every record written there is
//! processed again. The macro accepts it (Kafka Streams does) but warns, naming the topic;
//! `#[allow(deprecated)]` on the enclosing module or function silences the warning.
//!
//! # The processor API
//!
//! Declare key-value stores with `store("name", KeySerde, ValueSerde)` and list the ones a
//! `process(["name", ..], |ctx, key, value| ..)` closure uses. The closure gets a context with
//! one accessor per store (the name in snake case) returning a [`KeyValueStore`](crate::store::KeyValueStore) (`get`, `put`,
//! `delete`, `range`, `all`), and the record's `timestamp()`, `headers()`, `partition()`,
//! `topic()` and `offset()` (the last two `None` in a punctuation, as Kafka Streams'
//! `recordMetadata()` is empty there). It returns `Ok` with what it forwards — any
//! `IntoIterator` of (key, value) pairs — or `Err` for `on_error`. A forwarded record carries
//! the input record's timestamp and headers; to set them, forward
//! [`Forward`](crate::forward::Forward)s instead of pairs:
//! `Forward::new(key, value).with_timestamp(ts).with_headers(headers)` (Kafka Streams'
//! `record.withTimestamp(..)`, `withHeaders(..)`; in `process_values`, `Forward::value(value)`).
//! `ctx.commit()` asks for a commit as soon as possible (Kafka Streams'
//! `ProcessorContext#commit`): the runtime commits once the batch of records in hand is
//! processed instead of at the end of the commit interval, so under exactly-once what the
//! record wrote becomes readable then; the [`TestDriver`](crate::testing::TestDriver) counts
//! the requests (`commits_requested()`) and flushes the record caches after the record.
//!
//! Window and session stores are declared the same way:
//! `window_store("name", KeySerde, ValueSerde, size(Duration::from_secs(60)),
//! retention(Duration::from_secs(3600)))` (Kafka Streams'
//! `Stores.persistentWindowStore(name, retention, size, false)`) and
//! `session_store("name", KeySerde, ValueSerde, retention(Duration::from_secs(3600)))`
//! (`Stores.persistentSessionStore(name, retention)`); their accessors return a
//! [`WindowStore`](crate::store::WindowStore) (`put(key, value, window_start)`, `delete`,
//! `fetch(key, window_start)`, `fetch_range(key, from, to)`, `fetch_keys`, `fetch_all`, `all`,
//! the `backward_` variants) and a [`SessionStore`](crate::store::SessionStore) (`put(key,
//! start, end, value)`, `remove`, `fetch_session`, `find_sessions(key, earliest_end,
//! latest_start)`, `fetch`, the key-range and `backward_` variants). A window store's
//! retention counts from the latest window start it holds, a session store's from the latest
//! session end: what is a retention or more older is not stored, not read, and deleted. The
//! macro refuses a retention shorter than the window size, as Kafka Streams does.
//!
//! A declared store takes the options of Kafka Streams' `StoreBuilder` and `Stores`, chained on
//! its declaration: `.with_logging_disabled()` (no changelog: the store is not declared to the
//! coordinator, nothing is written, and after a failure or a move of its task it starts empty),
//! `.with_logging_enabled([("segment.ms", "600000"), ..])` (its changelog's own topic configs,
//! checked as for the operators' stores) and `.in_memory()` (kept in memory when the
//! application keeps its stores on disk; `Stores.inMemoryKeyValueStore`,
//! `inMemoryWindowStore`, `inMemorySessionStore`). A window or session store's reads keep the
//! order of Kafka Streams' persistent stores either way: by segment, then key, then time.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     /// Each click with how many clicks its key had in its minute and the minute before.
//!     pub Rate = "rate" {
//!         window_store("per-minute", Utf8, I64,
//!             size(Duration::from_secs(60)), retention(Duration::from_secs(600)));
//!         stream("clicks", Utf8, Utf8)
//!             .process(["per-minute"], |ctx, user: String, _click: String| {
//!                 let minute = ctx.timestamp() / 60_000 * 60_000;
//!                 let n = ctx.per_minute().fetch(&user, minute)?.unwrap_or(0) + 1;
//!                 ctx.per_minute().put(&user, &n, minute)?;
//!                 let recent: i64 = ctx
//!                     .per_minute()
//!                     .fetch_range(&user, minute.saturating_sub(60_000), minute)?
//!                     .iter()
//!                     .map(|(_, c)| c)
//!                     .sum();
//!                 Ok(Some((user, recent)))
//!             })
//!             .to("click-rates", Utf8, I64);
//!     }
//! }
//! ```
//!
//! `process_values(["name", ..], |ctx, key: &K, value| ..)` is Kafka Streams' `processValues`
//! (a `FixedKeyProcessor`, node `KSTREAM-PROCESSVALUES-n`): the closure gets the same context
//! and borrows the key, and returns `Ok` with any `IntoIterator` of values, each forwarded under
//! the record's key with its timestamp and headers. The key cannot change, so a later
//! `group_by_key()` or join does not repartition (after `process(..)`, which may change it, it
//! does, as after `map`). Returning (key, value) pairs from `process_values` is a type error at
//! the next operator: use `process(..)` to change keys.
//!
//! Punctuations (Kafka Streams' `ProcessorContext#schedule`) follow the closure:
//! `process([..], |ctx, key, value| .., schedule(Duration::from_secs(10), StreamTime, |ctx,
//! timestamp| ..))` (or `WallClock`; several `schedule(..)` allowed). A callback gets the same
//! context and the punctuation's time and returns records as the closure does; see
//! [`punctuation`](crate::punctuation) for when it runs. An interval of zero is a compile error.
//! A punctuation of `process_values` forwards nothing (Kafka Streams makes a `FixedKeyRecord`
//! only from an input record): its callback returns `Ok(())`, for store upkeep.
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
//!
//! topology! {
//!     /// Each reading with the one before it, counted per sensor: no repartition topic.
//!     pub Changes = "changes" {
//!         store("last", Utf8, Utf8);
//!         stream("readings", Utf8, Utf8)
//!             .process_values(
//!                 ["last"],
//!                 |ctx, sensor: &String, reading: String| {
//!                     let before = ctx.last().get(sensor)?;
//!                     ctx.last().put(sensor, &reading)?;
//!                     Ok(before.map(|b| format!("{b} -> {reading}")))
//!                 },
//!                 schedule(std::time::Duration::from_secs(3600), WallClock, |ctx, _now| {
//!                     for (sensor, _) in ctx.last().all()? {
//!                         ctx.last().delete(&sensor)?;
//!                     }
//!                     Ok(())
//!                 })
//!             )
//!             .group_by_key()
//!             .count("changes")
//!             .to_stream()
//!             .to("change-counts", Utf8, I64);
//!     }
//! }
//! assert!(Changes::INFO.subtopologies[0].repartition_sink_topics.is_empty());
//! ```
//!
//! # Sinks and errors
//!
//! `to("topic", KeySerde, ValueSerde)` writes the stream and ends it. `to(["orders-eu",
//! "orders-us"], |key: &K, value: &V| -> topic, KeySerde, ValueSerde)` chooses each record's
//! topic (Kafka Streams' `TopicNameExtractor`) among the topics it lists: the closure returns a
//! `&str` or a `String`; the application checks at start that every listed topic exists
//! (`StreamsError::MissingChosenTopics` names the missing ones), and a record whose closure names
//! a topic not listed fails (`on_error`, `ErrorKind::Processing`, the list in the message). The
//! chooser may take the record's context as a third parameter, `|key, value, ctx:
//! &RecordContext<'_>|` (Kafka Streams' `TopicNameExtractor` gets it): the topic, partition and
//! offset it was read from, its timestamp and headers.
//! Either takes a last `partitioner(|key: &K, value: &V, partitions: u32| ..)` that chooses each
//! record's partitions (Kafka Streams' `StreamPartitioner`; `|topic: &str, key, value,
//! partitions|` also gets the topic, as its `partitions(topic, ..)`): a `u32`, an `Option<u32>` (`None`:
//! by key, as the default partitioner), or a `Vec<u32>` (the record goes to each; an empty list
//! drops it, as KIP-837's multicast); see [`routing`](crate::routing). `repartition(..)` takes
//! one too, after `partitions(n)` if both are given.
//! `foreach(|key: &K, value:
//! &V| ..)` ends it too: it calls the closure for each record and forwards nothing (Kafka
//! Streams' `KStream#foreach`, a `KSTREAM-FOREACH-n` processor without children), for side
//! effects at the end of a chain (`peek` is the one that continues it). `print()` and
//! `print("label")` end it as well, writing each record to standard output as Kafka Streams'
//! `print(Printed.toSysOut())` does: `[label]: key, value`, the label defaulting to the name of
//! the node the stream comes from, key and value with `Display` (or `Debug` where a type has no
//! `Display`), `null` for a missing one. `on_error(|error| ..)`
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
//! topic read twice, a duplicate or unknown store, an operator after a sink or `foreach`, `count`/`reduce`/
//! `aggregate` without grouping, an operation a table does not have, a join whose key type
//! differs from the table's, a serde whose type differs from the stream's, a windowed serde on
//! an unwindowed stream, `SessionWindowed` on time windows or `TimeWindowed` on sessions, a
//! session gap or sliding time difference of zero (Kafka Streams 4.4 accepts a zero gap; a
//! session of one timestamp is nearly always a mistake), a session `aggregate` without its
//! merger or a merger without session windows, `suppress_until_window_closes()` on a table that
//! is not a windowed aggregation or with a buffer config that emits early,
//! `suppress_until_time_limit(..)` on a table whose values have no known serde, a join of a
//! suppressed table, a `process` or
//! `process_values` naming an undeclared store or whose closure does not take the context, key
//! and value, an invalid dead-letter topic,
//! a dead-letter topic that is also an input topic (a failing record would loop forever), two
//! merged streams whose key types differ, a joiner of other than 2 or 3 parameters (3: the key
//! first) or a foreign-key extractor of other than 1 or 2, a windowed aggregation's table in a
//! table-table join, an operator other than `to_stream()` after a join of an aggregation's
//! table, a repartition partition count of 0 or not an integer literal, an unknown option of
//! `stream(..)`, an unknown built-in timestamp extractor, a closure extractor without its four
//! parameters, `timestamp(..)` given twice, an empty topology body.
//!
//! It warns (as a use of a deprecated item, so `#[allow(deprecated)]` silences it) about a
//! stream or table bound by `let` that nothing uses (a name starting with `_` is exempt), and
//! about a `to(..)` of a topic the topology reads (a loop).
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
