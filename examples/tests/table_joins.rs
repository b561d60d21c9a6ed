//! Table-table joins in the TestDriver, with exact outputs after every update, as Kafka
//! Streams 4.4's `KTableKTable{Inner,Left,Outer}Join` (and `RightJoin` for a left join's right
//! side) forward them: a delete on either side retracts (tombstone) or updates the result.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::Nullable;
use dekaf_streams::testing::TestDriver;

fn opt(x: Option<&String>) -> String {
    x.map_or("-".to_owned(), Clone::clone)
}

topology! {
    /// The three joins of the same two tables.
    pub Joins = "table-joins" {
        let left = table("left", Utf8, Utf8, "left-store");
        let right = table("right", Utf8, Utf8, "right-store");
        left.join(right, |l: &String, r: &String| format!("{l}+{r}"))
            .to_stream()
            .to("inner", Utf8, Nullable::<Utf8>);
        left.left_join(right, |l: &String, r: Option<&String>| format!("{l}+{}", opt(r)))
            .to_stream()
            .to("left-out", Utf8, Nullable::<Utf8>);
        left.outer_join(right, |l: Option<&String>, r: Option<&String>| format!("{}+{}", opt(l), opt(r)))
            .to_stream()
            .to("outer", Utf8, Nullable::<Utf8>);
    }
}

fn s(x: &str) -> String {
    x.to_owned()
}

fn some(x: &str) -> Option<String> {
    Some(x.to_owned())
}

/// The same sequence of updates for every join.
fn drive(driver: &TestDriver<Joins>) {
    let left = driver.input_topic(Joins::LEFT);
    let right = driver.input_topic(Joins::RIGHT);
    left.pipe_input(s("a"), s("l1")); // 1
    right.pipe_input(s("a"), s("r1")); // 2
    left.pipe_input(s("a"), s("l2")); // 3
    right.pipe_tombstone(s("a"), 0); // 4
    right.pipe_input(s("b"), s("rb")); // 5
    left.pipe_tombstone(s("a"), 0); // 6
    right.pipe_tombstone(s("b"), 0); // 7
    left.pipe_tombstone(s("x"), 0); // 8: delete of a key neither side has
}

#[test]
fn inner_join_forwards_only_with_a_partner() {
    let driver = TestDriver::<Joins>::new();
    drive(&driver);
    assert_eq!(
        driver.output_topic(Joins::INNER).read_key_values_to_list(),
        [
            (s("a"), some("l1+r1")), // 2
            (s("a"), some("l2+r1")), // 3
            (s("a"), None),          // 4: the right side deleted: retracted
        ]
    );
}

#[test]
fn left_join_keeps_left_rows_without_a_partner() {
    let driver = TestDriver::<Joins>::new();
    drive(&driver);
    assert_eq!(
        driver
            .output_topic(Joins::LEFT_OUT)
            .read_key_values_to_list(),
        [
            (s("a"), some("l1+-")),  // 1
            (s("a"), some("l1+r1")), // 2
            (s("a"), some("l2+r1")), // 3
            (s("a"), some("l2+-")),  // 4: right deleted: the left row stays
            (s("a"), None),          // 6: left deleted: retracted
        ]
    );
}

#[test]
fn outer_join_forwards_whenever_either_side_has_a_value() {
    let driver = TestDriver::<Joins>::new();
    drive(&driver);
    assert_eq!(
        driver.output_topic(Joins::OUTER).read_key_values_to_list(),
        [
            (s("a"), some("l1+-")),  // 1
            (s("a"), some("l1+r1")), // 2
            (s("a"), some("l2+r1")), // 3
            (s("a"), some("l2+-")),  // 4
            (s("b"), some("-+rb")),  // 5
            (s("a"), None),          // 6: both sides gone
            (s("b"), None),          // 7
        ]
    );
}

topology! {
    /// A join of a filtered table (read through the filter) whose result is filtered again.
    pub Chained = "table-joins-chained" {
        let names = table("names", Utf8, Utf8);
        let big = table("amounts", Utf8, I64).filter(|_k, n| *n >= 10);
        names
            .join(big, |name: &String, n: &i64| format!("{name}:{n}"))
            .filter_not(|_k, v| v.starts_with("skip"))
            .to_stream()
            .to("big-named", Utf8, Nullable::<Utf8>);
    }
}

#[test]
fn a_join_reads_a_filtered_table_through_its_filter() {
    let driver = TestDriver::<Chained>::new();
    let names = driver.input_topic(Chained::NAMES);
    let amounts = driver.input_topic(Chained::AMOUNTS);
    let out = driver.output_topic(Chained::BIG_NAMED);
    amounts.pipe_input(s("a"), 5); // filtered out
    names.pipe_input(s("a"), s("ann")); // the getter applies the filter: no partner
    assert!(out.is_empty());
    amounts.pipe_input(s("a"), 50);
    names.pipe_input(s("a"), s("anna")); // update of the left side
    amounts.pipe_input(s("a"), 7); // leaves the filtered table: retracted
    names.pipe_input(s("b"), s("skip-me"));
    amounts.pipe_input(s("b"), 99); // joined but filtered out downstream: nothing
    names.pipe_input(s("b"), s("bob")); // passes now
    assert_eq!(
        out.read_key_values_to_list(),
        [
            (s("a"), some("ann:50")),
            (s("a"), some("anna:50")),
            (s("a"), None),
            (s("b"), some("bob:99")),
        ]
    );
}

#[test]
fn describe_names_join_nodes_and_copartitions_both_topics() {
    let d = <Joins as dekaf_streams::task::Topology>::DESCRIPTION;
    for line in [
        // Each table takes two indexes (KSTREAM-SOURCE, KTABLE-SOURCE), as in Kafka Streams.
        "Processor: KTABLE-MERGE-0000000004 (stores: [])",
        "Processor: KTABLE-JOINTHIS-0000000005 (stores: [right-store])",
        "Processor: KTABLE-JOINOTHER-0000000006 (stores: [left-store])",
        "      --> KTABLE-JOINTHIS-0000000005, KTABLE-JOINTHIS-0000000010, KTABLE-JOINTHIS-0000000015",
        "      <-- KTABLE-JOINTHIS-0000000005, KTABLE-JOINOTHER-0000000006",
        "Co-partitioned: [left, right]",
    ] {
        assert!(d.contains(line), "missing {line:?} in\n{d}");
    }
}

topology! {
    /// Joiners that take the key first (Kafka Streams' `ValueJoinerWithKey`), with untyped
    /// parameters: the types are inferred from the join.
    pub KeyedJoins = "table-joins-keyed" {
        let left = table("keyed-left", Utf8, Utf8, "keyed-left-store");
        let right = table("keyed-right", Utf8, Utf8, "keyed-right-store");
        let lookups = global_table("keyed-global", Utf8, Utf8);
        left.join(right, |k, l, r| format!("{k}:{l}+{r}"))
            .to_stream()
            .to("keyed-inner", Utf8, Nullable::<Utf8>);
        left.left_join(right, |k: &String, l: &String, r: Option<&String>| format!("{k}:{l}+{}", opt(r)))
            .to_stream()
            .to("keyed-left-out", Utf8, Nullable::<Utf8>);
        left.outer_join(right, |k, l, r| format!("{k}:{}+{}", opt(l), opt(r)))
            .to_stream()
            .to("keyed-outer", Utf8, Nullable::<Utf8>);
        let events = stream("keyed-events", Utf8, Utf8);
        events
            .join(right, |k, v, t| format!("{k}:{v}+{t}"))
            .to("keyed-stream-inner", Utf8, Utf8);
        events
            .left_join(right, |k: &String, v: String, t: Option<String>| format!("{k}:{v}+{}", opt(t.as_ref())))
            .to("keyed-stream-left", Utf8, Utf8);
        events
            .join(lookups, |_k, v| v.clone(), |k, v, g| format!("{k}:{v}+{g}"))
            .to("keyed-global-inner", Utf8, Utf8);
        events
            .left_join(lookups, |_k: &String, v: &String| v.clone(), |k: &String, v: String, g: Option<String>| format!("{k}:{v}+{}", opt(g.as_ref())))
            .to("keyed-global-left", Utf8, Utf8);
    }
}

#[test]
fn joiners_with_the_key_see_the_key_of_every_result() {
    let driver = TestDriver::<KeyedJoins>::new();
    let left = driver.input_topic(KeyedJoins::KEYED_LEFT);
    let right = driver.input_topic(KeyedJoins::KEYED_RIGHT);
    let global = driver.input_topic(KeyedJoins::KEYED_GLOBAL);
    let events = driver.input_topic(KeyedJoins::KEYED_EVENTS);
    left.pipe_input(s("a"), s("l1"));
    right.pipe_input(s("a"), s("r1"));
    right.pipe_input(s("b"), s("rb"));
    right.pipe_tombstone(s("a"), 0);
    global.pipe_input(s("x"), s("gx"));
    events.pipe_input(s("b"), s("x"));
    events.pipe_input(s("c"), s("y"));
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_INNER)
            .read_key_values_to_list(),
        [(s("a"), some("a:l1+r1")), (s("a"), None)]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_LEFT_OUT)
            .read_key_values_to_list(),
        [
            (s("a"), some("a:l1+-")),
            (s("a"), some("a:l1+r1")),
            (s("a"), some("a:l1+-"))
        ]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_OUTER)
            .read_key_values_to_list(),
        [
            (s("a"), some("a:l1+-")),
            (s("a"), some("a:l1+r1")),
            (s("b"), some("b:-+rb")),
            (s("a"), some("a:l1+-"))
        ]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_STREAM_INNER)
            .read_key_values_to_list(),
        [(s("b"), s("b:x+rb"))]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_STREAM_LEFT)
            .read_key_values_to_list(),
        [(s("b"), s("b:x+rb")), (s("c"), s("c:y+-"))]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_GLOBAL_INNER)
            .read_key_values_to_list(),
        [(s("b"), s("b:x+gx"))]
    );
    assert_eq!(
        driver
            .output_topic(KeyedJoins::KEYED_GLOBAL_LEFT)
            .read_key_values_to_list(),
        [(s("b"), s("b:x+gx")), (s("c"), s("c:y+-"))]
    );
}

topology! {
    /// Aggregations' tables joined as they are: no `to_stream().to_table(..)`, no extra store.
    pub AggregationJoins = "table-joins-aggregations" {
        let counts = stream("agg-clicks", Utf8, Utf8).group_by_key().count("agg-click-counts");
        let names = stream("agg-names", Utf8, Utf8)
            .group_by_key()
            .reduce("agg-names-joined", |a: String, v: String| format!("{a},{v}"));
        counts
            .join(names, |c: &i64, n: &String| format!("{c}:{n}"))
            .to_stream()
            .to("agg-inner", Utf8, Nullable::<Utf8>);
        counts
            .outer_join(names, |c: Option<&i64>, n: Option<&String>| format!("{}:{}", c.map_or(0, |c| *c), opt(n)))
            .to_stream()
            .to("agg-outer", Utf8, Nullable::<Utf8>);
        stream("agg-lookups", Utf8, Utf8)
            .left_join(counts, |v: String, c: Option<i64>| format!("{v}@{}", c.unwrap_or(0)))
            .to("agg-lookup-counts", Utf8, Utf8);
    }
}

#[test]
fn aggregation_tables_join_directly() {
    use dekaf_streams::task::Topology;
    // Only the aggregations' own stores: the joins add none.
    // One subtopology (the joins co-partition the three topics), with only the aggregations'
    // own stores: the joins add none.
    let subs = AggregationJoins::INFO.subtopologies;
    assert_eq!(subs.len(), 1);
    let stores: Vec<&str> = subs[0].stores.iter().map(|s| s.name).collect();
    assert_eq!(stores, ["agg-click-counts", "agg-names-joined"]);
    let driver = TestDriver::<AggregationJoins>::new();
    let clicks = driver.input_topic(AggregationJoins::AGG_CLICKS);
    let names = driver.input_topic(AggregationJoins::AGG_NAMES);
    let lookups = driver.input_topic(AggregationJoins::AGG_LOOKUPS);
    clicks.pipe_input(s("a"), s("x")); // count a = 1
    names.pipe_input(s("a"), s("n1"));
    clicks.pipe_input(s("a"), s("y")); // count a = 2
    names.pipe_input(s("b"), s("m1"));
    names.pipe_input(s("a"), s("n2"));
    lookups.pipe_input(s("a"), s("q"));
    lookups.pipe_input(s("c"), s("r"));
    assert_eq!(
        driver
            .output_topic(AggregationJoins::AGG_INNER)
            .read_key_values_to_list(),
        [
            (s("a"), some("1:n1")),
            (s("a"), some("2:n1")),
            (s("a"), some("2:n1,n2")),
        ]
    );
    assert_eq!(
        driver
            .output_topic(AggregationJoins::AGG_OUTER)
            .read_key_values_to_list(),
        [
            (s("a"), some("1:-")),
            (s("a"), some("1:n1")),
            (s("a"), some("2:n1")),
            (s("b"), some("0:m1")),
            (s("a"), some("2:n1,n2")),
        ]
    );
    assert_eq!(
        driver
            .output_topic(AggregationJoins::AGG_LOOKUP_COUNTS)
            .read_key_values_to_list(),
        [(s("a"), s("q@2")), (s("c"), s("r@0"))]
    );
}

topology! {
    /// The same topology as Kafka Streams 4.4's `count()` table joined with a `reduce()` table.
    pub AggregationJoinDescribe = "table-joins-aggregation-describe" {
        let c = stream("in", Utf8, Utf8).group_by_key().count("c");
        let r = stream("in2", Utf8, Utf8).group_by_key().reduce("r", |x: String, v: String| format!("{x},{v}"));
        c.join(r, |x: &i64, y: &String| format!("{x}+{y}")).to_stream().to("out", Utf8, Nullable::<Utf8>);
    }
}

/// Kafka Streams 4.4's `describe()` of the Java topology
/// `c = stream("in").groupByKey().count(as("c")); r = stream("in2").groupByKey().reduce(.., as("r"));
/// c.join(r, ..).toStream().to("out")`: no store between the aggregations and the join.
const AGGREGATION_JOIN_DESCRIBE: &str = "\
Topologies:
   Sub-topology: 0
    Source: KSTREAM-SOURCE-0000000000 (topics: [in])
      --> KSTREAM-AGGREGATE-0000000001
    Source: KSTREAM-SOURCE-0000000002 (topics: [in2])
      --> KSTREAM-REDUCE-0000000003
    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [c])
      --> KTABLE-JOINTHIS-0000000005
      <-- KSTREAM-SOURCE-0000000000
    Processor: KSTREAM-REDUCE-0000000003 (stores: [r])
      --> KTABLE-JOINOTHER-0000000006
      <-- KSTREAM-SOURCE-0000000002
    Processor: KTABLE-JOINOTHER-0000000006 (stores: [c])
      --> KTABLE-MERGE-0000000004
      <-- KSTREAM-REDUCE-0000000003
    Processor: KTABLE-JOINTHIS-0000000005 (stores: [r])
      --> KTABLE-MERGE-0000000004
      <-- KSTREAM-AGGREGATE-0000000001
    Processor: KTABLE-MERGE-0000000004 (stores: [])
      --> KTABLE-TOSTREAM-0000000007
      <-- KTABLE-JOINTHIS-0000000005, KTABLE-JOINOTHER-0000000006
    Processor: KTABLE-TOSTREAM-0000000007 (stores: [])
      --> KSTREAM-SINK-0000000008
      <-- KTABLE-MERGE-0000000004
    Sink: KSTREAM-SINK-0000000008 (topic: out)
      <-- KTABLE-TOSTREAM-0000000007

";

/// The node blocks (a `Source:`/`Processor:`/`Sink:` line with its `-->`/`<--` lines) of a
/// `describe()` text, sorted: Kafka Streams lists a subtopology's nodes in another order.
fn node_blocks(describe: &str) -> Vec<String> {
    let mut blocks: Vec<String> = Vec::new();
    for line in describe.lines() {
        let t = line.trim_start();
        if t.starts_with("Source:") || t.starts_with("Processor:") || t.starts_with("Sink:") {
            blocks.push(t.to_owned());
        } else if (t.starts_with("-->") || t.starts_with("<--"))
            && let Some(b) = blocks.last_mut()
        {
            b.push('\n');
            b.push_str(t);
        }
    }
    blocks.sort();
    blocks
}

#[test]
fn aggregation_join_describes_as_kafka_streams() {
    use dekaf_streams::task::Topology;
    let ours = AggregationJoinDescribe::describe();
    assert_eq!(node_blocks(ours), node_blocks(AGGREGATION_JOIN_DESCRIBE));
    // The aggregations' stores only, in one subtopology.
    assert_eq!(ours.matches("    Store: ").count(), 2);
    assert!(!ours.contains("Sub-topology: 1"));
}
