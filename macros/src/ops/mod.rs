//! The operator registry: every operator of the DSL, one entry each, with the file that holds
//! its rules and its lowering (and, for the node kinds it creates, its code generation).
//!
//! Adding an operator is a new file (or a new entry in a family's file) and one line in
//! [`REGISTRY`]; the parser, the dispatch, the "unknown operator" message and the test that
//! keeps the DSL docs complete all read the registry.

pub mod aggregate;
pub mod branch;
pub mod filter;
pub mod fk_join;
pub mod flat_map;
pub mod global_table;
pub mod group;
pub mod join;
pub mod map;
pub mod merge;
pub mod peek;
pub mod process;
pub mod punctuate;
pub mod repartition;
pub mod select_key;
pub mod sources;
pub mod stream_join;
pub mod suppress;
pub mod table;
pub mod table_group;
pub mod table_join;
pub mod to;
pub mod to_stream;

use crate::args::err_at;
use crate::build::{Builder, Flow, Grouped, Stream, Table};
use crate::parse::Call;

/// How an operator is lowered, by what it is called on.
pub enum Lower {
    /// A statement's first call: `stream(..)`, `table(..)`, `store(..)`, `on_error(..)`.
    Root(fn(&mut Builder, &Call) -> syn::Result<Flow>),
    /// An operator of a stream.
    Stream(fn(&mut Builder, Stream, &Call) -> syn::Result<Flow>),
    /// An operator of a grouped (or grouped and windowed) stream.
    Grouped(fn(&mut Builder, Grouped, &Call) -> syn::Result<Flow>),
    /// An operator of a table.
    Table(fn(&mut Builder, Table, &Call) -> syn::Result<Flow>),
}

/// One operator of the DSL.
pub struct Operator {
    /// Its name in the DSL.
    pub name: &'static str,
    /// Its usage line, quoted in errors.
    pub usage: &'static str,
    /// What it is called on, and how it becomes nodes.
    pub lower: Lower,
    /// The error when it is called on a plain stream but is not a stream operator (`{op}`
    /// stands for its name).
    pub on_stream: Option<&'static str>,
}

/// Every operator. The stream and grouped operators are listed in this order in the "unknown
/// operator" message.
pub const REGISTRY: &[Operator] = &[
    sources::STREAM,
    sources::TABLE,
    sources::STORE,
    sources::ON_ERROR,
    global_table::GLOBAL_TABLE,
    filter::FILTER,
    filter::FILTER_NOT,
    map::MAP,
    map::TRY_MAP,
    map::MAP_VALUES,
    map::TRY_MAP_VALUES,
    flat_map::FLAT_MAP,
    flat_map::FLAT_MAP_VALUES,
    select_key::SELECT_KEY,
    peek::PEEK,
    merge::MERGE,
    branch::BRANCH,
    group::GROUP_BY,
    group::GROUP_BY_KEY,
    join::JOIN,
    join::LEFT_JOIN,
    stream_join::OUTER_JOIN,
    process::PROCESS,
    repartition::REPARTITION,
    to::TO,
    group::WINDOWED_BY,
    aggregate::COUNT,
    aggregate::REDUCE,
    aggregate::AGGREGATE,
    to_stream::TO_STREAM,
    table::TO_TABLE,
    fk_join::JOIN_ON_FOREIGN_KEY,
    fk_join::LEFT_JOIN_ON_FOREIGN_KEY,
    suppress::SUPPRESS_UNTIL_WINDOW_CLOSES,
];

/// The operator named `name`.
pub fn find(name: &str) -> Option<&'static Operator> {
    REGISTRY.iter().find(|op| op.name == name)
}

fn names(pick: fn(&Lower) -> bool) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|op| pick(&op.lower))
        .map(|op| op.name)
        .collect()
}

/// "`stream(..)`, `table(..)`, `store(..)` or `on_error(..)`"
pub fn roots() -> String {
    let roots: Vec<String> = names(|l| matches!(l, Lower::Root(_)))
        .iter()
        .map(|n| format!("`{n}(..)`"))
        .collect();
    match roots.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => roots.join(""),
    }
}

/// The error for a name no operator has.
pub fn unknown(call: &Call) -> syn::Error {
    err_at(
        &call.name,
        format!(
            "unknown operator `{}`; streams have {}; grouped streams have {}; tables have {}",
            call.name,
            names(|l| matches!(l, Lower::Stream(_))).join(", "),
            names(|l| matches!(l, Lower::Grouped(_))).join(", "),
            table::ON_TABLE
                .iter()
                .copied()
                .chain(names(|l| matches!(l, Lower::Table(_))))
                .collect::<Vec<_>>()
                .join(", "),
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator has a usage in the DSL docs (`dekaf_streams::dsl`): a code span starting
    /// with the call (`` `count(".."` ``) or a method call (`` `stream.join(` ``).
    #[test]
    fn every_operator_is_documented() {
        let docs = include_str!("../../../runtime/src/dsl.rs");
        let missing: Vec<&str> = REGISTRY
            .iter()
            .map(|op| op.name)
            .filter(|name| {
                let call = format!("{name}(");
                !docs.split('`').skip(1).step_by(2).any(|code| {
                    code.starts_with(&call)
                        || code.starts_with(&format!(".{call}"))
                        || code.contains(&format!(".{call}"))
                })
            })
            .collect();
        assert!(
            missing.is_empty(),
            "operators without an entry in runtime/src/dsl.rs: {missing:?}"
        );
    }

    #[test]
    fn names_are_unique() {
        for (i, op) in REGISTRY.iter().enumerate() {
            assert!(
                REGISTRY[..i].iter().all(|o| o.name != op.name),
                "`{}` is registered twice",
                op.name
            );
        }
    }
}
