//! `suppress_until_window_closes()`: one final result per window and key, forwarded when stream
//! time passes the window's end plus its grace (plus the gap, for sessions), as Kafka Streams'
//! `suppress(Suppressed.untilWindowCloses(unbounded()))`. Its buffer is a store changelogged to
//! `<app>-KTABLE-SUPPRESS-STATE-STORE-<n>-changelog` (or `<app>-<name>-store-changelog` with a
//! name, as `Suppressed.withName`), so results survive restarts and stay exactly-once.

use super::{Lower, Operator};
use crate::args::{err_call, name_arg};
use crate::build::{Builder, Flow, Table};
use crate::ir::{NodeKind, Store, StoreOwner};
use crate::names;
use crate::parse::Call;

pub const SUPPRESS_UNTIL_WINDOW_CLOSES: Operator = Operator {
    name: "suppress_until_window_closes",
    usage: "suppress_until_window_closes() or suppress_until_window_closes(\"name\")",
    lower: Lower::Table(suppress),
    on_stream: Some(
        "suppress_until_window_closes() applies to the table of a windowed aggregation: call it right after count(..), reduce(..) or aggregate(..) of windowed_by(..)",
    ),
};

fn suppress(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = SUPPRESS_UNTIL_WINDOW_CLOSES.usage;
    let named = match call.args.len() {
        0 => None,
        1 => Some(name_arg(call, 0, usage)?),
        _ => {
            return Err(err_call(
                call,
                format!("wrong number of arguments: {usage}"),
            ));
        }
    };
    let windows = &b.stores[t.store];
    let is_aggregate = matches!(b.nodes[t.node].kind, NodeKind::Aggregate { .. });
    if windows.window.is_none() || !is_aggregate {
        return Err(err_call(
            call,
            "suppress_until_window_closes() emits one final result per window, but this table is not the result of a windowed aggregation, so its windows never close: window the aggregation (group_by_key().windowed_by(tumbling(..)).count(..)) or remove suppress_until_window_closes()",
        ));
    }
    let (key, value) = (windows.key.clone(), windows.value.clone());
    let kind = NodeKind::Suppress {
        buffer: b.stores.len(),
        windows: t.store,
    };
    // Kafka Streams: `<name>-suppress` with a name, else `KTABLE-SUPPRESS-<n>` (its store
    // takes the next number).
    let node = match &named {
        Some((n, _)) => b.push_node(kind, format!("{n}-suppress"), call.span, &[t.node]),
        None => b.node(kind, "KTABLE-SUPPRESS", call.span, &[t.node]),
    };
    let (name, span) = match named {
        Some((n, span)) => (format!("{n}-store"), span),
        None => (
            names::node_name("KTABLE-SUPPRESS-STATE-STORE", b.next_index()),
            call.span,
        ),
    };
    let buffer = b.stores.len();
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store {
        name,
        span,
        key,
        value,
        window: None,
        changelog,
        logged: true,
        owner: StoreOwner::Suppress,
        sub: 0,
        users: vec![node],
    });
    debug_assert!(
        matches!(b.nodes[node].kind, NodeKind::Suppress { buffer: x, .. } if x == buffer)
    );
    Ok(Flow::Table(Table {
        node,
        store: t.store,
    }))
}
