//! The nodes of table operators: Kafka Streams' `KTable` processors (`crate::ops::table`,
//! `crate::ops::table_join`, `crate::ops::table_group`), as plain data.

use syn::Expr;

/// A table operator's node.
#[derive(Clone)]
pub(crate) enum TableNode {
    /// `filter`/`filter_not` on a table.
    Filter { f: Expr, negate: bool },
    /// `map_values` on a table (`with_key`: the closure takes the key too).
    MapValues { f: Expr, with_key: bool },
    /// `to_table("store")` on a stream: the store is written, changes forwarded.
    ToTable { store: usize },
    /// One side of a table-table join (`crate::ops::table_join`).
    Join(JoinSide),
    /// The merge of a table-table join's two sides (`KTABLE-MERGE-n`).
    JoinMerge,
    /// `group_by` of a table (`KTABLE-SELECT-n`, `crate::ops::table_group`).
    Select { f: Expr },
    /// The aggregation of a re-grouped table (`KTABLE-AGGREGATE-n`, `KTABLE-REDUCE-n`).
    Aggregate { store: usize, op: Box<TableAgg> },
    /// `suppress_until_time_limit(..)` of a table that forwards changes
    /// (`crate::ops::suppress_changes`): `buffer` is its store, `limit` the time limit in ms.
    Suppress {
        buffer: usize,
        limit: i64,
        limits: crate::ir::BufferSpec,
    },
}

/// Which join.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum JoinKind {
    Inner,
    Left,
    Outer,
}

/// One side of a table-table join.
#[derive(Clone)]
pub(crate) struct JoinSide {
    pub kind: JoinKind,
    /// The left table's side (`KTABLE-JOINTHIS`), or the right one's.
    pub this: bool,
    pub f: Expr,
    /// The table node of the other side, read through its value getter.
    pub other: usize,
}

/// The aggregation of a re-grouped table.
// A few per expansion: their size does not matter, and boxing the closures would only add
// indirection to every read.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum TableAgg {
    Count,
    Reduce {
        add: Expr,
        subtract: Expr,
    },
    Aggregate {
        init: Expr,
        add: Expr,
        subtract: Expr,
    },
}
