//! Foreign-key table-table joins (KIP-213): `left.join_on_foreign_key(right, |value| fk,
//! |value, right_value| joined)` and `left.left_join_on_foreign_key(right, |value| fk, |value,
//! right_value: Option<&_>| joined)`, lowered as Kafka Streams' `KTableImpl#doJoinOnForeignKey`
//! builds them, with its names (the builder's index `n` first):
//!
//! | index | what |
//! |---|---|
//! | n | topic `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-n-topic` |
//! | n+1 | `KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-n+1`: subscribes (left task) |
//! | n+2, n+3 | `KTABLE-SINK-`, `KTABLE-SOURCE-` of the subscription topic |
//! | n+4 | store `KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-n+4` (right task, logged) |
//! | n+5 | `KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-`: registers the subscription |
//! | n+6 | `KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-`: answers it with the right value |
//! | n+7 | `KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-`: answers subscribers of a changed right row |
//! | n+8 | topic `<app>-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-n+8-topic` |
//! | n+9, n+10 | `KTABLE-SINK-`, `KTABLE-SOURCE-` of the response topic |
//! | n+11 | `KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-`: drops stale responses, joins |
//! | n+12 | `KTABLE-FK-JOIN-OUTPUT-`: the result table |
//! | n+13 | the result's store name, which Kafka Streams generates but does not materialize |
//!
//! A name as a fourth argument (`join_on_foreign_key(right, |v| fk, |v, r| .., "name")`) is
//! Kafka Streams' `TableJoined.as("name")`: every node, both topics and the subscription store
//! are named after it (`<app>-name-subscription-registration-topic`,
//! `name-subscription-store`, `<app>-name-subscription-response-topic`,
//! `name-subscription-registration-processor`, .., `name-result`), while the indexes are still
//! taken, as `NamedInternal#suffixWithOrElseGet` burns them, so the nodes after the join are
//! numbered as in Java.
//!
//! The subscription topic is co-partitioned with the right table's topic, the response topic
//! with the left table's. The runtime side is `dekaf_streams::__private::fk_*` (the
//! processors, on bytes) and the generated code is [`crate::ops::fk_join::emit`].
//!
//! Both tables are read through their stores (a `table(..)` or a `.to_table(..)`), and the
//! result forwards changes without old values (Kafka Streams does not materialize it either):
//! continue it with `to_stream()`.

pub(crate) mod emit;

use super::{Lower, Operator};
use crate::args::{arity, bound_name_arg, err_at, name_arg};
use crate::build::{Builder, Flow, Table};
use crate::ir::{NodeKind, SerdeTy, Store, StoreOwner};
use crate::names;
use crate::parse::Call;

use super::changes::changing;
pub(crate) use super::changes::is_result;
use crate::ir::TableNode;
pub(crate) use crate::ir::joins::{FkJoin, FkRole};

pub(crate) const JOIN_ON_FOREIGN_KEY: Operator = Operator {
    name: "join_on_foreign_key",
    usage: "join_on_foreign_key(other_table, |value| foreign_key, |value, other_value| joined) or with a name (TableJoined.as): join_on_foreign_key(other_table, |value| foreign_key, |value, other_value| joined, \"name\")",
    lower: &[Lower::Table(join)],
    on_stream: Some(
        "`{op}` joins two tables: call it on a table (`table(..)`, or `.to_table(\"store\")` on a stream)",
    ),
    emit: &[emit::EMIT],
};

pub(crate) const LEFT_JOIN_ON_FOREIGN_KEY: Operator = Operator {
    name: "left_join_on_foreign_key",
    usage: "left_join_on_foreign_key(other_table, |value| foreign_key, |value, other_value: Option<&_>| joined) or with a name (TableJoined.as) as a fourth argument",
    lower: &[Lower::Table(left_join)],
    on_stream: Some(
        "`{op}` joins two tables: call it on a table (`table(..)`, or `.to_table(\"store\")` on a stream)",
    ),
    emit: &[emit::EMIT],
};

fn join(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower(b, t, call, false)
}

fn left_join(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    lower(b, t, call, true)
}

/// Whether table node `node` has a store of its own (a table source or `to_table`).
fn stored(b: &Builder, node: usize) -> bool {
    matches!(
        b.nodes[node].kind,
        NodeKind::TableSource { .. } | NodeKind::Table(TableNode::ToTable { .. })
    )
}

/// The error for an operation other than `to_stream()` on a join's result.
pub(crate) fn result_only_to_stream(call: &Call) -> syn::Error {
    err_at(
        &call.name,
        format!(
            "a foreign-key join's result forwards its changes without old values and has no store (as in Kafka Streams): `{}` needs one; write `.to_stream().to_table(\"store\")` first",
            call.name
        ),
    )
}

fn lower(b: &mut Builder, t: Table, call: &Call, left: bool) -> syn::Result<Flow> {
    let op = if left {
        LEFT_JOIN_ON_FOREIGN_KEY
    } else {
        JOIN_ON_FOREIGN_KEY
    };
    // `TableJoined.as("name")`: the join's nodes, topics and store are named after it.
    let joined_as = match call.args.len() {
        3 => None,
        4 => Some(name_arg(call, 3, op.usage)?),
        _ => {
            arity(call, 3, op.usage)?;
            None
        }
    };
    let name = bound_name_arg(
        call,
        0,
        &format!(
            "{}(..) takes a table bound by `let`: `let t = table(..);` then `other.{}(t, ..)`",
            op.name, op.name
        ),
    )?;
    let Some(o) = b.bound_table(
        name,
        "a foreign-key join joins two tables; make it one with .to_table(\"store\")",
    )?
    else {
        return Ok(Flow::Broken);
    };
    changing(b, t, call)?;
    changing(b, o, call)?;
    for (node, what) in [(t.node, "this table"), (o.node, "the other table")] {
        if !stored(b, node) {
            return Err(err_at(
                &call.name,
                format!(
                    "{what} is filtered, mapped or joined, without a store of its own: a foreign-key join reads both tables' stores; materialize it first (`.to_stream().to_table(\"store\")`)"
                ),
            ));
        }
    }
    if b.stores[t.store].window.is_some() || b.stores[o.store].window.is_some() {
        return Err(err_at(
            &call.name,
            "a foreign-key join joins tables with plain keys, not windowed ones",
        ));
    }
    match crate::args::closure_arity(&call.args[1]) {
        Some(1 | 2) | None => {}
        Some(n) => {
            return Err(err_at(
                &call.args[1],
                format!(
                    "this foreign-key extractor takes {}: it takes the row's value, `|value| foreign_key`, or its key and value, `|key, value| foreign_key` (KIP-1104): {}",
                    crate::args::parameters(n),
                    op.usage
                ),
            ));
        }
    }
    crate::args::joiner_with_key(
        &call.args[2],
        &format!(
            "{}, the joiner optionally taking the left row's key first: |key, value, other_value| joined",
            op.usage
        ),
    )?;
    let span = call.span;
    let app = b.app_id.clone();
    let joined = joined_as.as_ref().map(|(n, _)| n.clone());
    let topic = |n: usize, what: &str, suffix: &str| {
        let base = match &joined {
            Some(j) => format!("{j}{suffix}"),
            None => names::node_name(&format!("KTABLE-FK-JOIN-SUBSCRIPTION-{what}"), n),
        };
        names::internal_topic(&app, &base, "topic")
    };
    let n = b.reserve_index();
    let subscription_topic = topic(n, "REGISTRATION", "-subscription-registration");
    let response_topic = topic(n + 8, "RESPONSE", "-subscription-response");
    let store_name = match &joined {
        Some(j) => format!("{j}-subscription-store"),
        None => names::node_name("KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE", n + 4),
    };
    let bytes = SerdeTy {
        ty: syn::parse_quote!(::dekaf_streams::serdes::Bytes),
        span,
    };
    let subscriptions = b.stores.len();
    let changelog = b.internal(&store_name, "changelog");
    b.stores.push(Store::new(
        store_name,
        joined_as.as_ref().map_or(span, |(_, s)| *s),
        bytes.clone(),
        bytes.clone(),
        changelog,
        StoreOwner::FkSubscription,
    ));
    let base = FkJoin {
        role: FkRole::Send,
        left,
        extractor: call.args[1].clone(),
        joiner: call.args[2].clone(),
        left_store: t.store,
        right_store: o.store,
        subscriptions,
        subscription_topic: subscription_topic.clone(),
        response_topic: response_topic.clone(),
        output: 0,
    };
    let output = add_nodes(b, (t, o), &base, joined.as_deref(), span, bytes);
    Ok(Flow::Table(Table {
        node: output,
        store: t.store,
    }))
}

/// The join's nodes (Kafka Streams' `KTableImpl#doJoinOnForeignKey`): the left table's
/// subscription, the right table's registration and answers, the left table's resolution of
/// the responses, and the result; returns the result's node.
fn add_nodes(
    b: &mut Builder,
    (t, o): (Table, Table),
    base: &FkJoin,
    joined: Option<&str>,
    span: proc_macro2::Span,
    bytes: SerdeTy,
) -> usize {
    // A node named after the join's name, or numbered; either way it takes the next index.
    let add = |b: &mut Builder, kind: NodeKind, prefix: &str, suffix: &str, parents: &[usize]| {
        match joined {
            Some(j) => b.push_node(kind, format!("{j}{suffix}"), span, parents),
            None => b.node(kind, prefix, span, parents),
        }
    };
    let kind = |role: FkRole| {
        NodeKind::FkJoin(Box::new(FkJoin {
            role,
            ..base.clone()
        }))
    };
    const PROCESSOR: &str = "KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR";
    let send = add(
        b,
        kind(FkRole::Send),
        "KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION",
        "-subscription-registration-processor",
        &[t.node],
    );
    let right_key = b.stores[o.store].key.clone();
    let left_key = b.stores[t.store].key.clone();
    let sink = add(
        b,
        NodeKind::RepartitionSink {
            topic: base.subscription_topic.clone(),
            key: right_key,
            value: bytes.clone(),
            partitioner: None,
        },
        "KTABLE-SINK",
        "-subscription-registration-sink",
        &[send],
    );
    let source = add(
        b,
        kind(FkRole::SubscriptionSource),
        "KTABLE-SOURCE",
        "-subscription-registration-source",
        &[],
    );
    b.repartitions.push((sink, source));
    b.reserve_index(); // the subscription store
    let receive = add(
        b,
        kind(FkRole::Receive),
        PROCESSOR,
        "-subscription-receive",
        &[source],
    );
    let answer = add(
        b,
        kind(FkRole::JoinForeign),
        PROCESSOR,
        "-subscription-join-foreign",
        &[receive],
    );
    let foreign = add(
        b,
        kind(FkRole::ForeignChange),
        PROCESSOR,
        "-foreign-join-subscription",
        &[o.node],
    );
    b.reserve_index(); // the response topic
    let response_sink = add(
        b,
        NodeKind::RepartitionSink {
            topic: base.response_topic.clone(),
            key: left_key,
            value: bytes,
            partitioner: None,
        },
        "KTABLE-SINK",
        "-subscription-response-sink",
        &[answer, foreign],
    );
    let response_source = add(
        b,
        kind(FkRole::ResponseSource),
        "KTABLE-SOURCE",
        "-subscription-response-source",
        &[],
    );
    b.repartitions.push((response_sink, response_source));
    let resolver = add(
        b,
        kind(FkRole::Resolver),
        "KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR",
        "-subscription-response-resolver",
        &[response_source],
    );
    let output = add(
        b,
        kind(FkRole::Output),
        "KTABLE-FK-JOIN-OUTPUT",
        "-result",
        &[resolver],
    );
    b.reserve_index(); // the result's store name
    for id in [
        send,
        source,
        receive,
        answer,
        foreign,
        response_source,
        resolver,
        output,
    ] {
        if let NodeKind::FkJoin(f) = &mut b.nodes[id].kind {
            f.output = output;
        }
    }
    b.stores[base.subscriptions]
        .users
        .extend([receive, foreign]);
    // The right side's nodes run in the right table's task, the resolver in the left table's;
    // each pair's topics are co-partitioned.
    b.joins.push((receive, o.node));
    b.joins.push((resolver, t.node));
    output
}

/// The `describe()` line of a node of the join, with the stores it reads or writes as Kafka
/// Streams connects them.
pub(crate) fn describe_node(m: &crate::ir::Model, name: &str, f: &FkJoin) -> String {
    if let Some(topic) = f.source_topic() {
        return format!("Source: {name} (topics: [{topic}])");
    }
    let store = match f.role {
        FkRole::Receive | FkRole::ForeignChange => Some(f.subscriptions),
        FkRole::JoinForeign => Some(f.right_store),
        FkRole::Resolver => Some(f.left_store),
        _ => None,
    };
    format!(
        "Processor: {name} (stores: [{}])",
        store.map_or(String::new(), |s| m.stores[s].name.clone())
    )
}
