//! `with_logging_disabled()` and `with_logging_enabled([("name", "value"), ..])`: Kafka
//! Streams' `Materialized.withLoggingDisabled()` and `withLoggingEnabled(Map)` on the store a
//! table was just made with (`count`/`reduce`/`aggregate`, windowed or not, `to_table(..)`, a
//! re-grouped table's aggregation, a cogroup's aggregate), and `StoreBuilder`'s on a store
//! declared for `process(..)` (`store(..).with_logging_disabled()`).
//!
//! Disabled, the store has no changelog: it is not declared to the coordinator, nothing is
//! written to it, and after a failure or a move of its task the store starts empty (under
//! exactly-once also on disk, unless the task closed cleanly: the store may hold uncommitted
//! work). Enabled with configs, they are the changelog topic's own configs, over Kafka Streams'
//! defaults and the application's `internal_topic_config(..)`.
//!
//! Checked here, as the broker would check them when the coordinator creates the topic: every
//! name is a topic config of Kafka 4.4, each once, with a value of the right shape
//! (`cleanup.policy` a policy, sizes and durations numbers). A table read from a topic keeps
//! that topic as its changelog, and a versioned table's history is rebuilt from its changelog,
//! so neither can disable it.

use super::{Lower, Operator};
use crate::args::{arity, err_at};
use crate::build::{Builder, Flow, Table};
use crate::ir::{Logging, NodeKind};
use crate::parse::Call;
use syn::Expr;

/// Every topic config a Kafka 4.4 broker knows, sorted (the runtime reads the same file).
const TOPIC_CONFIG_NAMES: &[&str] = &include!("../../../runtime/src/kafka/topic_config_names.in");

pub(crate) const WITH_LOGGING_DISABLED: Operator = Operator {
    name: "with_logging_disabled",
    usage: "with_logging_disabled() right after the count/reduce/aggregate, to_table(..) or store(..) that made the store",
    lower: &[
        Lower::Table(with_logging_disabled),
        Lower::Store(store_logging_disabled),
    ],
    on_stream: Some(
        "a stream has no store: with_logging_disabled() applies to the table of `count`/`reduce`/`aggregate` or `to_table(..)`, right after it",
    ),
    emit: &[],
};

pub(crate) const WITH_LOGGING_ENABLED: Operator = Operator {
    name: "with_logging_enabled",
    usage: "with_logging_enabled([(\"segment.ms\", \"600000\"), ..]) right after the count/reduce/aggregate, to_table(..) or store(..) that made the store",
    lower: &[
        Lower::Table(with_logging_enabled),
        Lower::Store(store_logging_enabled),
    ],
    on_stream: Some(
        "a stream has no store: with_logging_enabled([..]) applies to the table of `count`/`reduce`/`aggregate` or `to_table(..)`, right after it",
    ),
    emit: &[],
};

/// The store of `t`, when the call may set its logging: a store of its own, not a table's
/// source topic, not already set.
fn own_store(b: &Builder, t: Table, call: &Call, what: &str) -> syn::Result<()> {
    let store = &b.stores[t.store];
    if !super::caching::owns_store(b, t) {
        return Err(err_at(
            &call.name,
            format!(
                "this table has no store of its own (it reads `{}` through the operators before it): write {what} right after the `count`/`reduce`/`aggregate` or `to_table(..)` that made the store",
                store.name
            ),
        ));
    }
    if matches!(b.nodes[t.node].kind, NodeKind::TableSource { .. }) {
        return Err(err_at(
            &call.name,
            format!(
                "the store `{}` of a table read from a topic restores from that topic, which is its changelog: it has no changelog of its own to configure; to keep a copy with its own changelog write .to_stream().to_table(\"name\") and set {what} there",
                store.name
            ),
        ));
    }
    not_set(b, t.store, call)
}

/// Refuses a second logging call on store `s`.
fn not_set(b: &Builder, s: usize, call: &Call) -> syn::Result<()> {
    let store = &b.stores[s];
    if store.logging != Logging::default() {
        return Err(err_at(
            &call.name,
            format!(
                "the logging of store `{}` is already set by the call before: keep one with_logging_enabled(..) or with_logging_disabled()",
                store.name
            ),
        ));
    }
    Ok(())
}

fn with_logging_disabled(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, WITH_LOGGING_DISABLED.usage)?;
    own_store(b, t, call, "with_logging_disabled()")?;
    disable(b, t.store, call)?;
    Ok(Flow::Table(t))
}

/// `store(..).with_logging_disabled()`: Kafka Streams' `StoreBuilder.withLoggingDisabled()`.
fn store_logging_disabled(b: &mut Builder, s: usize, call: &Call) -> syn::Result<Flow> {
    arity(call, 0, WITH_LOGGING_DISABLED.usage)?;
    not_set(b, s, call)?;
    disable(b, s, call)?;
    Ok(Flow::Store(s))
}

fn disable(b: &mut Builder, s: usize, call: &Call) -> syn::Result<()> {
    let store = &mut b.stores[s];
    if store.versioned.is_some() {
        return Err(err_at(
            &call.name,
            format!(
                "the versioned store `{}` rebuilds its history from its changelog: it cannot do without one; remove with_logging_disabled(), or versioned(..)",
                store.name
            ),
        ));
    }
    store.logging = Logging::Disabled;
    Ok(())
}

fn with_logging_enabled(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, WITH_LOGGING_ENABLED.usage)?;
    own_store(b, t, call, "with_logging_enabled([..])")?;
    enable(b, t.store, call)?;
    Ok(Flow::Table(t))
}

/// `store(..).with_logging_enabled([..])`: Kafka Streams' `StoreBuilder.withLoggingEnabled(Map)`.
fn store_logging_enabled(b: &mut Builder, s: usize, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, WITH_LOGGING_ENABLED.usage)?;
    not_set(b, s, call)?;
    enable(b, s, call)?;
    Ok(Flow::Store(s))
}

/// Sets store `s`'s changelog configs from the call's `[("name", "value"), ..]`, checked.
fn enable(b: &mut Builder, s: usize, call: &Call) -> syn::Result<()> {
    let usage = WITH_LOGGING_ENABLED.usage;
    let Some(Expr::Array(array)) = call.arg(0) else {
        return Err(err_at(
            &call.args[0],
            format!("expected the changelog's topic configs in brackets: {usage}"),
        ));
    };
    let mut configs: Vec<(String, String)> = Vec::new();
    for e in &array.elems {
        let (name, value) = config_pair(e, usage)?;
        if configs.iter().any(|(n, _)| *n == name.0) {
            return Err(err_at(
                name.1,
                format!("`{}` is given twice: give each config once", name.0),
            ));
        }
        configs.push((name.0, value));
    }
    configs.sort();
    b.stores[s].logging = Logging::Enabled(configs);
    Ok(())
}

/// One `("name", "value")` pair, checked.
fn config_pair(e: &Expr, usage: &str) -> syn::Result<((String, syn::LitStr), String)> {
    let pair = match e {
        Expr::Tuple(t) if t.elems.len() == 2 => t,
        _ => {
            return Err(err_at(
                e,
                format!("expected a (\"name\", \"value\") pair of string literals: {usage}"),
            ));
        }
    };
    let literal = |e: &Expr| match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.clone()),
        _ => None,
    };
    let (Some(name), Some(value)) = (literal(&pair.elems[0]), literal(&pair.elems[1])) else {
        return Err(err_at(
            e,
            format!(
                "expected a (\"name\", \"value\") pair of string literals (configs are checked while compiling): {usage}"
            ),
        ));
    };
    let key = name.value();
    if TOPIC_CONFIG_NAMES.binary_search(&key.as_str()).is_err() {
        let hint = match key.strip_prefix("topic.") {
            Some(bare) => format!(": name it without the `topic.` prefix, `{bare}`"),
            None => closest(&key).map_or(String::new(), |c| format!(": did you mean `{c}`?")),
        };
        return Err(err_at(
            &name,
            format!(
                "`{key}` is not a topic config of Kafka 4.4, and the coordinator could not create the changelog with it{hint}"
            ),
        ));
    }
    check_value(&key, &value)?;
    Ok(((key, name), value.value()))
}

/// Refuses a value the broker would refuse for `key`, where its shape is plain.
fn check_value(key: &str, value: &syn::LitStr) -> syn::Result<()> {
    let v = value.value();
    let numeric = [
        ".ms",
        ".bytes",
        ".messages",
        ".level",
        "min.insync.replicas",
    ]
    .iter()
    .any(|end| key.ends_with(end));
    if key == "cleanup.policy" {
        let ok = !v.is_empty()
            && v.split(',')
                .all(|p| matches!(p.trim(), "compact" | "delete"));
        if !ok {
            return Err(err_at(
                value,
                format!(
                    "cleanup.policy `{v}` is not a policy: give \"compact\", \"delete\" or \"compact,delete\""
                ),
            ));
        }
    } else if numeric && v.parse::<i64>().is_err() {
        return Err(err_at(
            value,
            format!("{key} takes a whole number, not `{v}`"),
        ));
    }
    Ok(())
}

/// The known config closest to `key` (within a few edits), for the error of a misspelt one.
fn closest(key: &str) -> Option<&'static str> {
    TOPIC_CONFIG_NAMES
        .iter()
        .map(|c| (edit_distance(key, c), *c))
        .filter(|(d, _)| *d <= 3)
        .min()
        .map(|(_, c)| c)
}

/// Levenshtein distance of two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelt_config_finds_its_name() {
        assert!(TOPIC_CONFIG_NAMES.is_sorted());
        assert_eq!(closest("segment.msx"), Some("segment.ms"));
        assert_eq!(closest("min.insync.replica"), Some("min.insync.replicas"));
        assert_eq!(closest("totally.unrelated.name"), None);
    }
}
