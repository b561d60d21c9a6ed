//! Windowed stream-stream joins: `join`, `left_join` and `outer_join` of two streams over a
//! join window, with Kafka Streams' semantics (see `dekaf_streams::join`). The values are
//! strings and the joiner writes `left+right` (`null` for a missing side), as Kafka Streams'
//! `MockValueJoiner` does in its tests, so the expected outputs read like theirs.

use dekaf_streams::prelude::*;

/// `l+r`, `null` for a missing side.
pub fn joined(l: Option<&String>, r: Option<&String>) -> String {
    format!(
        "{}+{}",
        l.map_or("null", String::as_str),
        r.map_or("null", String::as_str)
    )
}

topology! {
    /// Inner join, records at most 10 ms apart, 5 ms grace.
    pub InnerJoin = "inner-join" {
        let left = stream("inner-left", Utf8, Utf8);
        let right = stream("inner-right", Utf8, Utf8);
        left.join(right, |l, r| joined(Some(l), Some(r)), join_window(10).grace(5))
            .to("inner-joined", Utf8, Utf8);
    }
}

topology! {
    /// Left join, records at most 10 ms apart, 5 ms grace.
    pub LeftJoin = "left-join" {
        let left = stream("left-left", Utf8, Utf8);
        let right = stream("left-right", Utf8, Utf8);
        left.left_join(right, |l, r| joined(Some(l), r), join_window(10).grace(5))
            .to("left-joined", Utf8, Utf8);
    }
}

topology! {
    /// Outer join, records at most 10 ms apart, 5 ms grace.
    pub OuterJoin = "outer-join" {
        let left = stream("outer-left", Utf8, Utf8);
        let right = stream("outer-right", Utf8, Utf8);
        left.outer_join(right, joined, join_window(10).grace(5))
            .to("outer-joined", Utf8, Utf8);
    }
}

topology! {
    /// Inner join of right records from 0 ms before to 10 ms after the left one, no grace.
    pub AsymmetricJoin = "asymmetric-join" {
        let left = stream("asym-left", Utf8, Utf8);
        let right = stream("asym-right", Utf8, Utf8);
        left.join(right, |l, r| joined(Some(l), Some(r)), join_window(0, 10))
            .to("asym-joined", Utf8, Utf8);
    }
}

topology! {
    /// A left join whose keys and values may be null: bad records go to a dead-letter topic
    /// per error kind.
    pub JoinBadInput = "join-bad-input" {
        on_error(|e| match e.kind {
            ErrorKind::InvalidTimestamp => ErrorResponse::DeadLetter("join-bad-timestamp"),
            ErrorKind::NullKey => ErrorResponse::DeadLetter("join-null-key"),
            ErrorKind::NullValue => ErrorResponse::DeadLetter("join-null-value"),
            _ => ErrorResponse::DeadLetter("join-bad-other"),
        });
        let left = stream("bad-left", Nullable::<Utf8>, Nullable::<Utf8>);
        let right = stream("bad-right", Nullable::<Utf8>, Utf8);
        left.join(
            right,
            |l, r| format!("{}+{r}", l.as_deref().unwrap_or("null")),
            join_window(Duration::from_secs(1)),
        )
        .to("bad-joined", Nullable::<Utf8>, Utf8);
    }
}

topology! {
    /// The broker test's left join of orders with payments (1-minute window, 1 s grace), run
    /// by `e2e-instance join-kill` so the test can SIGKILL it.
    pub JoinKill = "e2e-join-kill" {
        let orders = stream("e2e-join-kill-orders", Utf8, Utf8);
        let payments = stream("e2e-join-kill-payments", Utf8, Utf8);
        orders
            .left_join(
                payments,
                |o, p| joined(Some(o), p),
                join_window(Duration::from_mins(1)).grace(Duration::from_secs(1)),
            )
            .to("e2e-join-kill-out", Utf8, Utf8);
    }
}
