//! The operator registry: every operator of the DSL, one entry each. An operator is one file
//! (or one directory for a family: `aggregate/`, `stream_join/`, `fk_join/`) holding its usage,
//! its rules, its lowering into nodes of [`crate::ir`], its code generation ([`Emit`]) and its
//! docs. One name can apply to several receivers (`filter` on streams and on tables is one
//! entry with two lowerings).
//!
//! Adding an operator is a new file and one line in [`REGISTRY`] (and its section in the DSL
//! docs, `runtime/src/dsl.rs`); the dispatch ([`crate::lower`]), the code generation, the
//! "unknown operator" and "a table has" messages and the test that keeps the DSL docs complete
//! all read the registry.

pub(crate) mod aggregate;
pub(crate) mod branch;
pub(crate) mod caching;
pub(crate) mod changes;
pub(crate) mod cogroup;
pub(crate) mod filter;
pub(crate) mod fk_join;
pub(crate) mod flat_map;
pub(crate) mod foreach;
pub(crate) mod global_table;
pub(crate) mod group;
pub(crate) mod in_memory;
pub(crate) mod join;
pub(crate) mod join_grace;
pub(crate) mod logging;
pub(crate) mod map;
pub(crate) mod merge;
pub(crate) mod peek;
pub(crate) mod print;
pub(crate) mod process;
pub(crate) mod repartition;
pub(crate) mod retention;
pub(crate) mod select_key;
pub(crate) mod sources;
pub(crate) mod store_decl;
pub(crate) mod stream_join;
pub(crate) mod suppress;
pub(crate) mod suppress_changes;
pub(crate) mod table;
pub(crate) mod table_group;
pub(crate) mod table_join;
pub(crate) mod to;
pub(crate) mod to_stream;
pub(crate) mod versioned;

use crate::args::err_at;
use crate::build::{Builder, Cogrouped, Flow, Grouped, Stream, Table};
pub(crate) use crate::codegen::emitter::Emit;
use crate::codegen::parts::TaskFn;
use crate::parse::Call;

/// The lowering of a statement's first call.
pub(crate) type LowerRoot = fn(&mut Builder, &Call) -> syn::Result<Flow>;
/// The lowering of an operator of a stream.
pub(crate) type LowerStream = fn(&mut Builder, Stream, &Call) -> syn::Result<Flow>;
/// The lowering of an operator of a grouped stream.
pub(crate) type LowerGrouped = fn(&mut Builder, Grouped, &Call) -> syn::Result<Flow>;
/// The lowering of an operator of cogrouped streams.
pub(crate) type LowerCogrouped = fn(&mut Builder, Cogrouped, &Call) -> syn::Result<Flow>;
/// The lowering of an operator of a table.
pub(crate) type LowerTable = fn(&mut Builder, Table, &Call) -> syn::Result<Flow>;
/// The lowering of an option of a store declared for `process(..)` (its index).
pub(crate) type LowerStore = fn(&mut Builder, usize, &Call) -> syn::Result<Flow>;

/// How an operator is lowered, by what it is called on (an operator has one per receiver).
pub(crate) enum Lower {
    /// A statement's first call: `stream(..)`, `table(..)`, `store(..)`, `on_error(..)`.
    Root(LowerRoot),
    /// An operator of a stream.
    Stream(LowerStream),
    /// An operator of a grouped (or grouped and windowed) stream.
    Grouped(LowerGrouped),
    /// An operator of cogrouped streams (`cogroup(..)`, `windowed_by(..)`, `aggregate(..)`).
    Cogrouped(LowerCogrouped),
    /// An operator of a table.
    Table(LowerTable),
    /// An option of a declared store (`store(..).in_memory()`).
    Store(LowerStore),
}

/// One operator of the DSL.
pub(crate) struct Operator {
    /// Its name in the DSL.
    pub name: &'static str,
    /// Its usage line, quoted in errors.
    pub usage: &'static str,
    /// What it is called on, and how it becomes nodes: one lowering per receiver.
    pub lower: &'static [Lower],
    /// The error when it is called on a plain stream but is not a stream operator (`{op}`
    /// stands for its name).
    pub on_stream: Option<&'static str>,
    /// Its code generation, for the nodes its lowering makes (one per family of nodes: `join`
    /// makes the nodes of stream-table, stream-stream, table-table and global-table joins).
    pub emit: &'static [Emit],
}

impl Operator {
    /// Its lowering on a stream.
    pub(crate) fn lower_stream(&self) -> Option<LowerStream> {
        self.lower.iter().find_map(|l| match l {
            Lower::Stream(f) => Some(*f),
            _ => None,
        })
    }

    /// Its lowering on a grouped stream.
    pub(crate) fn lower_grouped(&self) -> Option<LowerGrouped> {
        self.lower.iter().find_map(|l| match l {
            Lower::Grouped(f) => Some(*f),
            _ => None,
        })
    }

    /// Its lowering on cogrouped streams.
    pub(crate) fn lower_cogrouped(&self) -> Option<LowerCogrouped> {
        self.lower.iter().find_map(|l| match l {
            Lower::Cogrouped(f) => Some(*f),
            _ => None,
        })
    }

    /// Its lowering on a table.
    pub(crate) fn lower_table(&self) -> Option<LowerTable> {
        self.lower.iter().find_map(|l| match l {
            Lower::Table(f) => Some(*f),
            _ => None,
        })
    }

    /// Its lowering on a declared store.
    pub(crate) fn lower_store(&self) -> Option<LowerStore> {
        self.lower.iter().find_map(|l| match l {
            Lower::Store(f) => Some(*f),
            _ => None,
        })
    }

    /// Its lowering as a statement's first call.
    pub(crate) fn lower_root(&self) -> Option<LowerRoot> {
        self.lower.iter().find_map(|l| match l {
            Lower::Root(f) => Some(*f),
            _ => None,
        })
    }
}

/// Every operator. The operators of each receiver are listed in this order in the "unknown
/// operator" and "a table has" messages.
pub(crate) const REGISTRY: &[Operator] = &[
    sources::STREAM,
    sources::TABLE,
    store_decl::STORE,
    store_decl::WINDOW_STORE,
    store_decl::SESSION_STORE,
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
    foreach::FOREACH,
    print::PRINT,
    merge::MERGE,
    branch::BRANCH,
    group::GROUP_BY,
    group::GROUP_BY_KEY,
    join::JOIN,
    join::LEFT_JOIN,
    stream_join::OUTER_JOIN,
    process::PROCESS,
    process::PROCESS_VALUES,
    repartition::REPARTITION,
    to::TO,
    cogroup::COGROUP,
    group::WINDOWED_BY,
    aggregate::COUNT,
    aggregate::REDUCE,
    aggregate::AGGREGATE,
    to_stream::TO_STREAM,
    table::TO_TABLE,
    caching::WITH_CACHING_DISABLED,
    logging::WITH_LOGGING_ENABLED,
    logging::WITH_LOGGING_DISABLED,
    in_memory::IN_MEMORY,
    retention::WITH_RETENTION,
    versioned::VERSIONED,
    fk_join::JOIN_ON_FOREIGN_KEY,
    fk_join::LEFT_JOIN_ON_FOREIGN_KEY,
    suppress::SUPPRESS_UNTIL_WINDOW_CLOSES,
    suppress::SUPPRESS_UNTIL_TIME_LIMIT,
];

/// What the operators add to a subtopology's task beyond their per-record code (state fields,
/// restores, flushes, punctuations), in this order; each reads what the ones before added.
pub(crate) const TASK_PARTS: &[TaskFn] = &[
    stream_join::emit::task_parts,
    global_table::task_parts,
    fk_join::emit::task_parts,
    aggregate::cache::task_parts,
    cogroup::task_parts,
    process::punctuate::task_parts,
    suppress::task_parts,
    join_grace::task_parts,
];

/// The code generation of every operator, in registry order.
pub(crate) fn emits() -> Vec<Emit> {
    REGISTRY
        .iter()
        .flat_map(|op| op.emit.iter().copied())
        .collect()
}

/// The operator named `name`.
pub(crate) fn find(name: &str) -> Option<&'static Operator> {
    REGISTRY.iter().find(|op| op.name == name)
}

/// The names of the operators that `pick` accepts, in registry order.
fn names(pick: fn(&Operator) -> bool) -> Vec<&'static str> {
    REGISTRY
        .iter()
        .filter(|op| pick(op))
        .map(|op| op.name)
        .collect()
}

/// "a, b, c or d" (`last`: "or", "and").
fn list(items: &[String], last: &str) -> String {
    match items.split_last() {
        Some((tail, rest)) if !rest.is_empty() => format!("{} {last} {tail}", rest.join(", ")),
        _ => items.join(""),
    }
}

/// "`stream(..)`, `table(..)`, `store(..)` or `on_error(..)`"
pub(crate) fn roots() -> String {
    let roots: Vec<String> = names(|op| op.lower_root().is_some())
        .iter()
        .map(|n| format!("`{n}(..)`"))
        .collect();
    list(&roots, "or")
}

/// The operators of a stream, comma-separated.
pub(crate) fn stream_operators() -> String {
    names(|op| op.lower_stream().is_some()).join(", ")
}

/// The operators of a grouped stream, comma-separated.
pub(crate) fn grouped_operators() -> String {
    names(|op| op.lower_grouped().is_some()).join(", ")
}

/// The operators of cogrouped streams, comma-separated.
pub(crate) fn cogrouped_operators() -> String {
    names(|op| op.lower_cogrouped().is_some()).join(", ")
}

/// The options of a declared store, in a sentence ("in_memory(), .. or ..").
pub(crate) fn store_options() -> String {
    let names: Vec<String> = names(|op| op.lower_store().is_some())
        .into_iter()
        .map(|n| format!("{n}(..)"))
        .collect();
    list(&names, "or")
}

/// The operators of a table, comma-separated.
pub(crate) fn table_operators() -> String {
    names(|op| op.lower_table().is_some()).join(", ")
}

/// "filter, filter_not, .. and to_stream": the operators of a table, in a sentence.
pub(crate) fn table_operators_sentence() -> String {
    let names: Vec<String> = names(|op| op.lower_table().is_some())
        .into_iter()
        .map(str::to_owned)
        .collect();
    list(&names, "and")
}

/// The error for a name no operator has.
pub(crate) fn unknown(call: &Call) -> syn::Error {
    err_at(
        &call.name,
        format!(
            "unknown operator `{}`; streams have {}; grouped streams have {}; tables have {}",
            call.name,
            stream_operators(),
            grouped_operators(),
            table_operators(),
        ),
    )
}

/// The error for an operator of streams called on a table.
pub(crate) fn not_on_tables(call: &Call) -> syn::Error {
    let op = &call.name;
    err_at(
        op,
        format!(
            "a table has no `{op}`: call `to_stream()` first, then `{op}(..)` on the stream (a table has {})",
            table_operators_sentence()
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

    /// The lists in messages are the registry's: every operator of a receiver is named, and
    /// nothing else.
    #[test]
    fn messages_list_the_registry() {
        let stream: Vec<&str> = REGISTRY
            .iter()
            .filter(|op| op.lower_stream().is_some())
            .map(|op| op.name)
            .collect();
        assert_eq!(stream_operators(), stream.join(", "));
        for op in REGISTRY {
            let sentence = table_operators_sentence();
            let named = sentence.split([',', ' ']).any(|w| w == op.name);
            assert_eq!(
                named,
                op.lower_table().is_some(),
                "`{}` and \"a table has {sentence}\"",
                op.name
            );
        }
        for name in [
            "join_on_foreign_key",
            "to_stream",
            "suppress_until_window_closes",
            "filter",
        ] {
            assert!(table_operators().split(", ").any(|n| n == name), "{name}");
        }
    }

    /// The longest run of operator names in `text` listed as "a, b, c and d" (or "or"), each
    /// maybe followed by `()` or `(..)`.
    fn longest_list(text: &str) -> usize {
        let mut words: Vec<(&str, &str)> = Vec::new(); // (word, separator before it)
        let mut rest = text;
        let mut sep_start = rest;
        while let Some(start) = rest.find(|c: char| c.is_alphanumeric() || c == '_') {
            let sep = &sep_start[..sep_start.len() - rest.len() + start];
            let after = &rest[start..];
            let end = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            let word = &after[..end];
            if (word == "and" || word == "or") && sep == " " {
                // "a and b": the conjunction is the separator of the next word.
                words.push(("", if word == "and" { " and " } else { " or " }));
            } else {
                words.push((word, sep));
            }
            let mut next = &after[end..];
            for call in ["(..)", "()"] {
                if let Some(n) = next.strip_prefix(call) {
                    next = n;
                }
            }
            rest = next;
            sep_start = next;
        }
        let (mut best, mut run) = (0, 0);
        let mut conjunction = None;
        for (word, mut sep) in words {
            if word.is_empty() {
                conjunction = Some(sep);
                continue;
            }
            if let Some(c) = conjunction.take() {
                sep = c;
            }
            let op = REGISTRY.iter().any(|o| o.name == word);
            let listed = [", ", " and ", " or "].contains(&sep);
            run = match (op, listed && run > 0) {
                (false, _) => 0,
                (true, true) => run + 1,
                (true, false) => 1,
            };
            best = best.max(run);
        }
        best
    }

    #[test]
    fn the_list_finder_finds_lists() {
        assert_eq!(
            longest_list("a table has filter, filter_not, map_values and to_stream()"),
            4
        );
        assert_eq!(
            longest_list("the key changed (map, select_key, flat_map)"),
            3
        );
        assert_eq!(longest_list("join a table, a stream or a map"), 1);
    }

    /// No message outside the registry lists operators by hand: a string literal of the macro
    /// crate with a list of four or more operators ("filter, filter_not, map_values and
    /// join") is a hand-kept list, which drifts: generate it from [`REGISTRY`].
    #[test]
    fn no_hand_kept_operator_lists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        let mut dirs = vec![root];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).expect("src").flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    files.push(p);
                }
            }
        }
        let mut lists = Vec::new();
        for f in files {
            let text = std::fs::read_to_string(&f).expect("readable");
            // Test code may spell lists out.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, literal) in code.split('"').enumerate() {
                if i % 2 == 1 && longest_list(literal) >= 4 {
                    lists.push(format!("{}: {literal}", f.display()));
                }
            }
        }
        assert!(
            lists.is_empty(),
            "operator lists kept by hand (generate them from ops::REGISTRY): {lists:#?}"
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
