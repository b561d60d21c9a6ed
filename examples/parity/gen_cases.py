#!/usr/bin/env python3
"""Writes examples/parity/cases/*.txt (the input files both sides read). Edit the CASES here and run
it again; the files are committed, so neither side needs Python."""
import os

CASES = {}

def case(name, topology, text, doc=""):
    assert name not in CASES, name
    CASES[name] = (topology, doc, text)

# ---- stateless ------------------------------------------------------------------------------
case("passthrough_basic", "passthrough", """
in a x 10
in b y 5
in a z 5
""", "records keep key, value and timestamp, also out of order and at equal timestamps")
case("passthrough_null_key", "passthrough", """
in null x 10
in a y 11
""", "a null key is forwarded to the sink as a null key")
case("passthrough_null_value", "passthrough", """
in a null 10
in b y 11
""", "a null value is forwarded to the sink as a tombstone")
case("passthrough_nullable_nulls", "passthrough_nullable", """
in null x 1
in a null 2
in null null 3
in b y 4
""", "Nullable serdes: nulls pass through")
case("filter_basic", "filter", """
in a apple 1
in b banana 2
in c avocado 2
""")
case("filter_null_value", "filter", """
in a apple 1
in b null 2
in c avocado 3
""", "a null value reaches a predicate that cannot take it: both sides fail")
case("filter_not_basic", "filter_not", """
in a apple 1
in b banana 2
in c cherry 0
""")
case("filter_nullable_nulls", "filter_nullable", """
in a null 1
in null apple 2
in b banana 3
in null null 4
""")
case("map_basic", "map", """
in a x 3
in b y 1
in c x 2
""", "swaps key and value")
case("map_values_basic", "map_values", """
in a x 3
in b yz 1
""")
case("map_values_null_key", "map_values", """
in null x 3
in b yz 4
""", "map_values forwards a null key: the mapper does not see it")
case("map_values_key_basic", "map_values_key", """
in a x 3
in b y 1
""")
case("map_values_nullable_nulls", "map_values_nullable", """
in a null 1
in null x 2
in b y 3
""")
case("flat_map_basic", "flat_map", """
in a x,y 1
in b z 2
in c , 3
""")
case("flat_map_values_basic", "flat_map_values", """
in a x,y,z 1
in b q 2
""")
case("flat_map_values_null_key", "flat_map_values", """
in null x,y 1
""")
case("select_key_basic", "select_key", """
in a xy 1
in b yz 2
in null zz 3
""", "re-keying, also of a null key")
case("select_key_nullable_null_key", "select_key_nullable", """
in null xy 1
in a yz 2
""", "with a Nullable key serde the selector runs for a null key, as Kafka Streams' does")
case("map_values_key_nullable_null_key", "map_values_key_nullable", """
in null x 1
in a null 2
""")
case("peek_basic", "peek", """
in a x 1
in b y 0
""")
case("merge_basic", "merge", """
in a x 1
in2 b y 0
in a z 2
in2 a w 2
""")
case("branch_basic", "branch", """
in a apple 1
in b banana 2
in c cherry 3
in d avocado 4
""", "records go to the first branch whose predicate holds, or nowhere")
case("repartition_basic", "repartition", """
in a xy 1
in b xz 2
in c yz 0
""")
case("loop_basic", "loop", """
in a b 1
in c dddd 2
""", "a topology writing to its own input topic processes its output again")
case("process_dedup", "process_dedup", """
in a x 1
in b y 2
in a z 3
in b w 0
""")

case("process_values_count", "process_values_count", """
in a 1 10
in a 2 20
in b 7 5
in a 3 15
in b 8 30
in c 9 31
""", "processValues keeps key and timestamp; counting after it needs no repartition")

case("process_window_store_basic", "process_window_store", """
in a x 1
in a x 5
in b x 12
in a x 14
in c x 15
in bb x 16
in a x 25
in a 10 26
""", "a window store of process(): counts per window, fetch of one key's time range, all, a key range and backward, in Kafka Streams' persistent store order")
case("process_window_store_expiry", "process_window_store", """
in a x 0
in a x 10
in b x 40
in a x 31
in a 10 41
in a 11 42
in a del 43
in c x 44
""", "windows the retention passed are neither read nor stored; a deleted window is gone")
case("process_window_store_segments", "process_window_store", """
in a x 5
in b x 100000
in c x 200000
in a 5 200001
in a 130000 200002
in d 180000 200003
""", "puts the retention passed count as dropped only when their persistent-store segment has expired")
case("process_session_store_basic", "process_session_store", """
in a x 0
in a x 5
in a x 24
in b x 31
in a x 14
in a x 45
in c x 46
in a rm 47
""", "a session store of process(): sessions found, removed and merged by hand; fetch, a key range, backward")
case("process_session_store_expiry", "process_session_store", """
in a x 0
in a x 22
in b x 70
in a x 25
in c x 20
in b rm 71
in a x 120
""", "sessions the retention passed are neither read nor stored; remove advances the store's time")

# ---- aggregations ---------------------------------------------------------------------------
case("multi_source_count_basic", "multi_source_count", """
in a x 10
in2 a y 11
in2 b z 5
in b w 12
in2 a null 13
""", "a source of two topics (stream([..])): both feed one count")
case("multi_source_map_basic", "multi_source_map", """
in a x 10
in2 b y 11
in2 c z 12
in a w 9
""", "a source of two topics keeps each record's own timestamp")
case("chosen_topic_basic", "chosen_topic", """
in k apple 1
in k banana 2
in j avocado 3
in null apricot 4
""", "to(TopicNameExtractor): each record to the topic its value names; a null key is sent as is")
case("chosen_topic_context_basic", "chosen_topic_context", """
in k apple 1
in2 k banana 2
in j avocado 300
in2 j cherry 4
""", "to(TopicNameExtractor) reading the record context: its source topic and timestamp")
case("count_basic", "count", """
in a x 10
in b x 11
in a y 12
""")
case("count_out_of_order", "count", """
in a x 10
in a y 5
in a z 7
in a w 20
""", "the result carries the larger of the record's and the aggregate's timestamp")
case("count_null_key", "count", """
in null x 10
in a y 11
""", "a null key is dropped and counted in dropped-records")
case("count_null_value", "count", """
in a null 10
in a y 11
""", "a null value is dropped and counted in dropped-records")
case("count_nullable_nulls", "count_nullable", """
in a null 10
in null x 11
in a y 9
""", "Nullable serdes: null key and null value are dropped as well")
case("count_group_by_basic", "count_group_by", """
in a x 10
in b x 8
in c y 12
in d x 9
""", "group_by re-keys through a repartition topic; the output time is the max of the group's records")
case("count_select_key_basic", "count_select_key", """
in a x 10
in b x 3
""")
case("reduce_basic", "reduce", """
in a x 10
in b y 11
in a z 4
""")
case("reduce_null_value", "reduce", """
in a x 10
in a null 11
in a z 12
""")
case("aggregate_basic", "aggregate", """
in a x 10
in a y 9
in b z 1
in a w 30
""")
case("aggregate_nullable_nulls", "aggregate_nullable", """
in a x 10
in a null 11
in null y 12
in a z 13
""")

# ---- windows --------------------------------------------------------------------------------
case("tumbling_count_basic", "tumbling_count", """
in a x 0
in a x 9
in a x 10
in b x 15
""", "window [0,10) ends before 10: a record at 10 opens [10,20)")
case("tumbling_count_late", "tumbling_count", """
in a x 5
in a x 12
in a x 9
in a x 11
""", "no grace: a record for a closed window is dropped and counted")
case("tumbling_count_out_of_order", "tumbling_count", """
in a x 8
in a x 3
in a x 9
""", "the window's result carries the max timestamp")
case("tumbling_count_grace_boundary", "tumbling_count_grace", """
in a x 2
in b x 14
in a x 9
in b x 15
in a x 8
""", "grace 5: [0,10) closes at stream time 15")
case("tumbling_count_null_key", "tumbling_count", """
in null x 1
in a x 2
""")
case("tumbling_count_null_value", "tumbling_count", """
in a null 1
in a x 2
""")
case("hopping_count_basic", "hopping_count", """
in a x 0
in a x 4
in a x 5
in a x 12
in a x 3
""", "size 10, advance 5: every record is in two windows")
case("tumbling_reduce_basic", "tumbling_reduce", """
in a x 1
in a y 3
in a z 2
in b q 12
in a w 20
in a late 9
""")
case("tumbling_aggregate_basic", "tumbling_aggregate", """
in a x 1
in a y 7
in a z 4
in a w 11
""")
case("session_count_basic", "session_count", """
in a x 0
in a x 5
in a x 30
in b x 31
""", "gap 10: merges replace the old session with a tombstone")
case("session_count_merge", "session_count", """
in a x 0
in a x 20
in a x 10
""", "a record between two sessions merges both")
case("session_count_boundary", "session_count", """
in a x 0
in b x 10
in a x 0
""", "Kafka Streams' boundary quirk: the late session is accepted but misses the old one")
case("session_count_late", "session_count_grace", """
in a x 0
in b x 30
in a x 5
in a x 14
""", "grace 5: close time = stream time - gap - grace")
case("session_count_null_value", "session_count", """
in a null 1
in a x 2
in null x 3
""", "session windows count a null value; a null key is dropped")
case("session_aggregate_merge", "session_aggregate", """
in a x 0
in a y 20
in a z 10
in a w 12
""")
case("session_reduce_basic", "session_reduce", """
in a x 0
in a y 5
in b z 4
in a w 100
""")
case("sliding_count_basic", "sliding_count", """
in a x 5
in a x 12
in a x 30
""", "records before the difference share [0,10]")
case("sliding_count_out_of_order", "sliding_count_grace", """
in a x 20
in a x 15
in a x 25
in a x 12
""")
case("sliding_count_boundary", "sliding_count", """
in a x 10
in a x 20
in a x 21
""", "windows [t-10, t] inclusive: records exactly 10 apart share one")
case("sliding_count_null_value", "sliding_count", """
in a null 10
in null x 11
in a x 12
""", "sliding windows drop a null key and a null value")
case("sliding_reduce_basic", "sliding_reduce", """
in a x 10
in a y 14
in a z 25
in a w 16
""")
case("tumbling_suppress_basic", "tumbling_suppress", """
in a x 1
in a x 3
in b x 9
in a x 14
in a x 15
in b x 30
""", "one final result per window, when stream time passes its end + grace")
case("tumbling_suppress_boundary", "tumbling_suppress", """
in a x 0
in a x 14
in a x 9
in a x 15
""")
case("session_limit_suppress_merges", "session_limit_suppress", """
in a x 0
in a x 5
in a x 30
in b x 31
in a x 12
in x x 100
""", "suppress_until_time_limit of sessions: merged-away sessions' tombstones are buffered and forwarded after the limit, stamped with their end")
case("session_limit_suppress_rich", "session_limit_suppress", """
in a x 0
in a x 5
in a x 30
in b x 31
in a x 22
in a x 12
in b x 35
in a x 40
in x x 100
""", "buffer time is the session's end: a session merged later keeps its first buffering's place")

case("session_suppress_basic", "session_suppress", """
in a x 0
in a x 5
in b x 20
in b x 30
in b x 50
""")
case("sliding_suppress_basic", "sliding_suppress", """
in a x 19
in b x 30
in a x 25
in a x 22
in b x 60
""")
case("limit_suppress_basic", "limit_suppress", """
in a x 0
in b x 5
in a x 8
in a x 10
in b x 14
in c x 15
in a x 30
""", "until_time_limit: a key's latest count once stream time reaches its first buffered time + 10; updates keep the key's place")
case("limit_suppress_late", "limit_suppress", """
in a x 20
in b x 3
in c x 25
in b x 31
""", "an update older than stream time is buffered at its own time and emitted at once if that is past the limit")
case("limit_suppress_zero_basic", "limit_suppress_zero", """
in a x 0
in a x 1
in b x 0
in a x 5
""", "a zero time limit forwards every update at once")
case("limit_suppress_early_basic", "limit_suppress_early", """
in a x 0
in b x 1
in a x 2
in c x 3
in d x 4
in c x 5
in e x 200
""", "max_records(2) emits the earliest-buffered keys early when a third key arrives")
case("limit_suppress_shut_down_basic", "limit_suppress_shut_down", """
in a x 0
in a x 1
in b x 2
""", "max_records(1).shut_down_when_full(): a second key fails the task")
case("tumbling_limit_suppress_basic", "tumbling_limit_suppress", """
in a x 0
in a x 3
in b x 6
in a x 8
in x x 20
""", "until_time_limit on a windowed count: keyed by window, buffered at the update's time")
case("tumbling_suppress_shut_down_basic", "tumbling_suppress_shut_down", """
in a x 0
in a x 5
in a x 12
in b x 13
""", "until_window_closes(max_records(1).shut_down_when_full()): closed windows leave before the capacity check; two open windows fail the task")

# ---- tables ---------------------------------------------------------------------------------
case("table_passthrough_basic", "table_passthrough", """
t1 a x 10
t1 a y 5
t1 a null 7
t1 null z 8
t1 b null 9
""", "tombstones delete; a null key is dropped")
case("table_limit_suppress_basic", "table_limit_suppress", """
t1 a 1 0
t1 a 2 1
t1 a null 2
t1 b 1 3
t1 c x 20
t1 d 1 21
t1 d null 22
t1 q null 23
t1 e 1 24
t1 e 2 25
t1 z z 40
t1 y y 60
""", "suppress_until_time_limit of a table read from a topic: each key's latest change after the limit, deletes too (also of a key never forwarded, or never there)")
case("table_filter_limit_suppress_basic", "table_filter_limit_suppress", """
t1 a 1 0
t1 a 2 1
t1 a null 2
t1 b 1 3
t1 c x 20
t1 d 1 21
t1 d null 22
t1 q null 23
t1 e 1 24
t1 e 2 25
t1 z z 40
t1 y y 60
""", "a filter before the suppression: it forwards old values (the suppression asks for them), so a filtered-out update is a delete")
case("table_limit_suppress_filter_basic", "table_limit_suppress_filter", """
t1 a 1 0
t1 a 2 1
t1 a null 2
t1 b 1 3
t1 c x 20
t1 d 1 21
t1 d null 22
t1 q null 23
t1 e 1 24
t1 e 2 25
t1 z z 40
t1 y y 60
""", "a filter after the suppression sees the buffered change's new and old value")
case("table_limit_suppress_changes_basic", "table_limit_suppress_changes", """
t1 b 1 0
t1 a 1 1
t1 a 2 2
t1 a 3 3
t1 c x 20
t1 a 4 21
t1 a 5 22
t1 z z 40
t1 f 1 41
t1 g 1 42
t1 h 1 43
""", "a re-grouping after the suppression subtracts the old value of the last buffered change (not the value before the first); emits early over two keys")

case("table_filter_basic", "table_filter", """
t1 a apple 1
t1 b banana 2
t1 a avocado 3
t1 a berry 4
t1 b null 5
t1 a null 6
""")
case("table_filter_not_basic", "table_filter_not", """
t1 a apple 1
t1 b banana 2
t1 b blueberry 3
t1 b avocado 4
""")
case("table_map_values_basic", "table_map_values", """
t1 a x 1
t1 a y 2
t1 a null 3
""")
case("table_changes_basic", "table_changes", """
t1 a x 1
t1 a y 2
t1 b z 3
t1 a null 4
t1 a w 5
""", "old and new values as a table forwards them")
case("table_filter_changes_basic", "table_filter_changes", """
t1 a apple 1
t1 a berry 2
t1 a avocado 3
t1 b banana 4
t1 a null 5
""")
case("table_map_values_changes_basic", "table_map_values_changes", """
t1 a x 1
t1 a y 2
t1 a null 3
""")
case("to_table_basic", "to_table", """
in a x 1
in a y 2
in null z 3
in b w 4
""")
case("to_table_null_value", "to_table", """
in a x 1
in a null 2
in b null 3
""", "a null value deletes the key")
case("to_table_nullable_nulls", "to_table_nullable", """
in a x 1
in a null 2
in null z 3
""")
case("table_group_count_basic", "table_group_count", """
t1 a x 10
t1 b x 5
t1 a y 7
t1 b null 20
""", "re-grouping subtracts from the old group; the result time is max(update, aggregate)")
case("table_group_reduce_basic", "table_group_reduce", """
t1 a1 5 1
t1 a2 7 2
t1 b1 1 3
t1 a1 10 0
t1 a2 null 4
""")
case("table_group_aggregate_basic", "table_group_aggregate", """
t1 a x 1
t1 b x 2
t1 a y 3
t1 b null 4
""")
case("table_join_basic", "table_join", """
t1 a l1 1
t2 a r1 2
t1 a l2 0
t2 a null 3
t1 b l3 4
t2 b r3 4
t1 b null 5
""")
case("table_left_join_basic", "table_left_join", """
t1 a l1 1
t2 a r1 2
t1 a l2 0
t2 a null 3
t1 a null 4
""")
case("table_outer_join_basic", "table_outer_join", """
t2 a r1 2
t1 a l1 1
t2 a null 3
t1 a null 4
t1 b l2 5
""")
case("versioned_table_basic", "versioned_table", """
t1 a v1 10
t1 a v2 20
t1 a v3 15
t1 a v2b 20
t1 b x 2000
t1 a v4 999
t1 a v4b 1000
t1 a v5 2100
t1 a null 2200
t1 a null 2150
t1 a v6 2180
t1 c null 2300
t1 c null 1500
t1 d null 100
t1 a null 2400
t1 a v7 500
""", "a versioned table (history 1 s) forwards out-of-order updates too; puts older than its history are dropped and counted")
case("versioned_to_table_basic", "versioned_to_table", """
in a v1 10
in a v2 20
in a v3 15
in b x 2000
in a v4 999
in a null 2200
in a v5 2100
in null x 2300
""", "to_table into a versioned store: as a versioned table source")
case("versioned_stream_table_left_join_basic", "versioned_stream_table_left_join", """
t1 k A10 10
t1 k A20 20
in k s15 15
in k s5 5
in k s25 25
in k s20 20
in k s10 10
t1 k A15 15
in k s17 17
t1 z Z3000 3000
in k s1500 1500
in k s18 18
t1 k A2500 2500
in k s2100 2100
in k s1999 1999
in k null 3000
in null nk 3000
""", "a stream record joins the table's version valid at its timestamp; before the history, only a latest value not newer")
GRACE_STEPS = """
t1 k A10 10
in k s15 15
t1 k A20 20
in k s12 12
in k s30 30
in j j30 30
in b b30 30
in a a30 30
in k s20 20
t1 k A25 25
in k s114 114
in k s115 115
in k s125 125
in k s10 10
in k s24 24
in k s25 25
t1 k A200 200
in q q126 126
in k s130 130
in k null 500
in k s150 150
in k s300 300
in k s400 400
"""
case("versioned_grace_left_join_basic", "versioned_grace_left_join", GRACE_STEPS, "with a grace period (100 ms) stream records wait until the buffer's stream time passes them plus the grace, then join as of their time, in timestamp then key order; late ones join at once")
case("versioned_grace_join_basic", "versioned_grace_join", GRACE_STEPS, "the inner join with a grace period")
case("versioned_table_join_basic", "versioned_table_join", """
t2 k R10 10
t1 k L10 10
t1 k L20 20
t1 k L15 15
t2 k R5 5
t2 k R30 30
t1 k null 40
t1 k null 35
t1 k L50 50
t2 k null 45
t2 k R42 42
t1 j J5000 5000
t1 k L100 100
""", "a join of versioned tables drops and counts out-of-order updates")
case("versioned_group_count_basic", "versioned_group_count", """
t1 a x 10
t1 a y 20
t1 a z 15
t1 b x 30
t1 a null 40
t1 a w 35
t1 b null 25
t1 c null 50
t1 d x 3000
t1 b q 100
""", "a re-grouping skips out-of-order updates of a versioned table silently")
case("stream_table_join_basic", "stream_table_join", """
in a x 1
t1 a t1 2
in a y 3
in a z 0
t1 a null 4
in a w 5
""", "stream records join the table's current value; table updates emit nothing")
case("stream_table_join_nulls", "stream_table_join", """
t1 a t 1
in null x 2
in a null 3
in a y 4
""", "null key and null value are dropped and counted")
case("stream_table_left_join_basic", "stream_table_left_join", """
in a x 1
t1 a t1 2
in a y 3
in b z 4
""")
case("stream_table_left_join_nulls", "stream_table_left_join", """
t1 a t 1
in null x 2
in a null 3
in a y 4
""")
case("global_join_basic", "global_join", """
g x gx 1
in a x 2
in b y 3
g y gy 4
in c y 5
g x null 6
in d x 7
""")
case("global_left_join_basic", "global_left_join", """
g x gx 1
in a x 2
in b y 3
""")
case("fk_join_basic", "fk_join", """
t2 f1 F1 1
t1 a f1:x 2
t1 b f2:y 3
t2 f2 F2 4
t2 f1 F1b 5
t1 a f2:x 6
t2 f2 null 7
t1 b null 8
""")
case("versioned_fk_left_join_basic", "versioned_fk_left_join", """
t2 f1 F1 10
t1 a f1:x 10
t1 a f2:y 20
t1 a f1:z 15
t2 f2 F2 30
t2 f2 F2old 25
t2 f1 F1b 40
t1 b f1:w 50
t1 b f2:v 45
t1 a null 60
t2 f2 null 70
t1 c f2:u 3000
t1 a f1:late 100
""", "a foreign-key join of versioned tables drops and counts out-of-order updates on both sides")
case("fk_left_join_basic", "fk_left_join", """
t1 a f1:x 2
t2 f1 F1 1
t1 a f2:y 3
t2 f1 F1b 4
t1 a null 5
""")

# ---- stream-stream joins --------------------------------------------------------------------
case("ss_join_basic", "ss_join", """
in a l1 10
in2 a r1 15
in2 a r2 21
in2 a r3 0
in a l2 20
""", "window 10 each side inclusive; the result has the later timestamp")
case("ss_join_boundary", "ss_join", """
in a l1 10
in2 a r1 20
in2 a r2 21
in2 b r3 0
in a l2 0
""")
case("ss_join_nulls", "ss_join", """
in null l1 10
in a null 11
in2 a r1 12
in a l2 12
""")
case("ss_left_join_basic", "ss_left_join", """
in a l1 0
in2 b r1 5
in a l2 20
in2 b r2 40
""", "an unmatched left record is emitted once its window closes")
case("ss_left_join_null_key", "ss_left_join", """
in null l1 5
in a l2 6
in2 a r2 7
""", "a null-key left record is forwarded at once with a null partner")
case("ss_outer_join_basic", "ss_outer_join", """
in a l1 0
in2 b r1 3
in2 a r2 8
in a l3 30
in2 b r3 60
""")
case("ss_outer_join_null_key", "ss_outer_join", """
in null l1 5
in2 null r1 6
in a l2 7
""")
case("ss_join_asym_basic", "ss_join_asym", """
in a l1 10
in2 a r1 5
in2 a r2 10
in2 a r3 20
in2 a r4 21
""", "before 0, after 10: right records from the left one's time to 10 later")

# ---- sources: timestamp extractors ------------------------------------------------------------
# `extractor`: Consumed.withTimestampExtractor reading "<ms>|<payload>" from the value, "pt" the
# partition time, "ts" the record's timestamp, a null value the record's timestamp, -1 otherwise;
# written to `out` and counted in tumbling windows of 10 ms.
case("extractor_payload", "extractor", """
in a 15|x 1
in a 3|y 2
in b 25|z 3
""", "the extracted timestamp stamps the output and places the window")
case("extractor_negative_skipped", "extractor", """
in a nope 5
in a -7|x 6
in a 4|y 7
""", "a negative extracted timestamp skips the record, counted in dropped-records (RecordQueue)")
case("extractor_partition_time", "extractor", """
in a pt 10
in a ts 700
in a 900|x 20
in a pt 30
in a 100|y 40
in a pt 50
""", "the extractor gets the record's timestamp and the partition time (-1 before the first record: skipped)")
case("extractor_late", "extractor", """
in a 100|x 1
in a 5|y 200
""", "stream time follows the extracted timestamps: a record extracted into a closed window is late")
case("extractor_null_value", "extractor", """
in a null 10
in a 20|x 5
""", "a null value: the null-safe Java extractor takes the record's timestamp, as dekaf-streams does for a null its serde cannot hold")

here = os.path.dirname(os.path.abspath(__file__))
# ---- joiners with the key, foreign-key extractors with the key -----------------------------
case("ss_join_key_basic", "ss_join_key", """
in a A0 0
in2 a a5 5
in2 b b6 6
in a A10 10
""", "a stream-stream joiner taking the key (ValueJoinerWithKey) gets the records' key")
case("ss_left_join_key_basic", "ss_left_join_key", """
in a A0 0
in2 a a5 5
in b B6 6
in c C40 40
""", "also for the unmatched left records emitted when their window closes")
case("ss_outer_join_key_basic", "ss_outer_join_key", """
in a A0 0
in2 b b1 1
in2 a a5 5
in c C40 40
""", "and for the unmatched records of both sides of an outer join")
case("stream_table_join_key_basic", "stream_table_join_key", """
in a x 1
t1 a t1 2
in a y 3
in b z 4
""")
case("stream_table_left_join_key_basic", "stream_table_left_join_key", """
in a x 1
t1 a t1 2
in a y 3
in b z 4
""")
case("global_join_key_basic", "global_join_key", """
g x gx 1
in a x 2
in b y 3
""", "the joiner of a global-table join gets the stream record's key, not the mapped one")
case("global_left_join_key_basic", "global_left_join_key", """
g x gx 1
in a x 2
in b y 3
""")
case("fk_join_key_extractor_basic", "fk_join_key_extractor", """
t2 f1 F1 1
t1 f1-a x 2
t1 f2-b y 3
t2 f2 F2 4
t2 f1 F1b 5
t1 f1-a z 6
t1 f2-b null 7
""", "a foreign-key extractor that takes the key (KIP-1104)")
case("fk_left_join_key_extractor_basic", "fk_left_join_key_extractor", """
t1 f1-a x 2
t2 f1 F1 1
t1 f2-b y 3
t2 f1 null 4
""")

# ---- joins of aggregations' tables --------------------------------------------------------
AGG_JOIN = """
in a x 1
in2 a n1 2
in a y 3
in2 b m1 4
in2 a n2 0
in b z 5
in null w 6
in2 a null 7
"""
case("agg_table_join_basic", "agg_table_join", AGG_JOIN,
     "a count's table joined with a reduce's table directly: every update joins the other's current value")
case("agg_table_left_join_basic", "agg_table_left_join", AGG_JOIN)
case("agg_table_outer_join_basic", "agg_table_outer_join", AGG_JOIN)
case("stream_agg_table_join_basic", "stream_agg_table_join", """
in2 a q 1
in a x 2
in a y 3
in2 a r 4
in2 b s 5
in2 a r 1
""", "a stream joins a count's table (its store) directly")

# ---- cogroup ----------------------------------------------------------------------------------
case("cogroup_basic", "cogroup", """
in a x 1
in2 a y 3
in b z 2
in2 b w 0
in a v 5
""", "two streams' aggregators update one store; the result keeps the larger timestamp")
case("cogroup_nulls", "cogroup", """
in null x 1
in2 a null 2
in a y 3
in2 null z 4
in2 a w 5
""", "a null key or value is dropped (and counted) on either stream")
case("cogroup_rekey_basic", "cogroup_rekey", """
in a x 1
in b x 2
in2 x q 3
in2 null z 4
in2 y r 0
""", "one cogrouped stream is re-keyed through the store's repartition topic")
case("cogroup_tumbling_basic", "cogroup_tumbling", """
in a x 1
in2 a y 7
in a z 4
in2 a w 11
in a late 0
in2 b q 30
in a late2 3
""", "both streams update each window; late records are dropped")
case("cogroup_tumbling_expired", "cogroup_tumbling", """
in a x 1
in2 a y 20
in2 a w 21
in a z 9
in a q 9
""", "a window open for one stream's own stream time but past the store's retention reads as absent, every time")
case("cogroup_sliding_basic", "cogroup_sliding", """
in a x 10
in2 a y 14
in a z 25
in2 a w 16
""")
case("cogroup_session_merge", "cogroup_session", """
in a x 0
in2 a y 20
in a z 10
in2 a w 12
""", "a record of either stream merges sessions with the merger")

out = os.path.join(here, "cases")
os.makedirs(out, exist_ok=True)
for f in os.listdir(out):
    if f.endswith(".txt"):
        os.remove(os.path.join(out, f))
for name, (topology, doc, text) in sorted(CASES.items()):
    with open(os.path.join(out, name + ".txt"), "w") as f:
        if doc:
            f.write("# " + doc + "\n")
        f.write("topology " + topology + "\n")
        f.write(text.strip() + "\n")
print(len(CASES), "cases")
