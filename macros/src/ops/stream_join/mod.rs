//! Windowed stream-stream joins: `left.join(right, |l, r| .., join_window(..))`, `left_join`
//! and `outer_join`, lowered as Kafka Streams' `KStreamImplJoin` lowers them: a
//! `KSTREAM-WINDOWED-` node per side, one join node per side (`KSTREAM-JOINTHIS-`/`-JOINOTHER-`;
//! `-OUTERTHIS-`/`-OUTEROTHER-` on the sides that emit unmatched records) and a `KSTREAM-MERGE-`
//! of both. Each side has a window store named after its join node (`<node>-store`), a left or
//! outer join a shared `KSTREAM-OUTERSHARED-<this node index>-store`.
//!
//! `join` and `left_join` dispatch here when their first argument is a stream (a table keeps
//! the stream-table join of [`super::join`]); `outer_join` is stream-stream only.
//!
//! Co-partitioning: both sides must be keyed as read. After a key change (`select_key`, `map`,
//! `flat_map`) the macro does not know the new key's serde, so it cannot write the repartition
//! topic Kafka Streams would insert; it asks for `.repartition("name", K, V)` instead, which
//! writes `<app>-<name>-repartition` as Kafka Streams' `Repartitioned.as(name)` does.

pub(crate) mod emit;

use quote::ToTokens;
use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, duration, err, err_at, err_call};
use crate::build::{Builder, Flow, Stream};
use crate::ir::{JoinKind, JoinWindowSpec, NodeKind, SerdeTy, Store, StoreOwner, StreamJoinSide};
use crate::names;
use crate::parse::Call;

pub(crate) const OUTER_JOIN: Operator = Operator {
    name: "outer_join",
    usage: "outer_join(other_stream, |value, other_value| joined, join_window(Duration::from_secs(60)))",
    lower: &[
        Lower::Stream(outer_join),
        Lower::Table(super::table_join::outer_join),
    ],
    on_stream: None,
    emit: &[emit::EMIT, super::table_join::EMIT],
};

const WINDOW_USAGE: &str = "join_window(Duration::from_secs(60)) (records up to 60 s apart either way), or join_window(before, after) for an asymmetric window, optionally followed by .grace(Duration::from_secs(10))";

fn outer_join(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = OUTER_JOIN.usage;
    let name = crate::args::bound_name_arg(
        call,
        0,
        "outer_join(..) takes a stream bound by `let`: `let other = stream(..);` then `s.outer_join(other, .., join_window(..))`",
    )?;
    match b.lookup(name) {
        Some(Flow::Stream(other)) => lower(b, s, other, name, call, JoinKind::Outer),
        Some(Flow::Broken) => Ok(Flow::Broken),
        Some(Flow::Table(_)) => Err(err_at(
            name,
            format!(
                "`{name}` is a table: outer_join(..) joins two streams (Kafka Streams has no stream-table outer join); use left_join({name}, ..) for a stream-table join, or read `{name}` with stream(..)"
            ),
        )),
        Some(_) => Err(err_at(name, format!("`{name}` is not a stream: {usage}"))),
        None => Err(b.unbound(name, "stream", "stream(..)")),
    }
}

/// `join_window(d)`, `join_window(before, after)`, optionally `.grace(g)`.
pub(crate) fn join_window(e: &Expr) -> syn::Result<JoinWindowSpec> {
    let (base, grace) = match e {
        Expr::MethodCall(m) if m.method == "grace" => {
            if m.args.len() != 1 {
                return Err(err_at(
                    m,
                    format!("grace(..) takes one duration: {WINDOW_USAGE}"),
                ));
            }
            (&*m.receiver, non_negative(&m.args[0], "grace period")?)
        }
        other => (other, 0),
    };
    let call = match base {
        Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("join_window")) => c,
        other => {
            return Err(err_at(
                other,
                format!("expected a join window: {WINDOW_USAGE}"),
            ));
        }
    };
    let args: Vec<&Expr> = call.args.iter().collect();
    let (before, after) = match args.as_slice() {
        [d] => {
            let d = non_negative(d, "join window")?;
            (d, d)
        }
        [before, after] => (
            non_negative(before, "join window")?,
            non_negative(after, "join window")?,
        ),
        _ => {
            return Err(err_at(
                call,
                format!("join_window takes one or two durations: {WINDOW_USAGE}"),
            ));
        }
    };
    Ok(JoinWindowSpec {
        before,
        after,
        grace,
    })
}

fn non_negative(e: &Expr, what: &str) -> syn::Result<i64> {
    if let Expr::Unary(u) = e
        && matches!(u.op, syn::UnOp::Neg(_))
    {
        return Err(err_at(
            e,
            format!(
                "a {what} cannot be negative: write a duration of 0 or more, e.g. join_window(Duration::from_secs(60)) or join_window(0, Duration::from_secs(60)) for records up to 60 s later only"
            ),
        ));
    }
    duration(e)
}

fn known(serde: &Option<SerdeTy>, side: &str, what: &str, name: &str) -> Result<SerdeTy, String> {
    serde.clone().ok_or_else(|| {
        format!(
            "the {what}s of the {side} stream{name} have no known serde here (an operator changed them): the join stores them, so join before that operator, or give them a serde with .repartition(\"name\", KeySerde, ValueSerde) before the join"
        )
    })
}

/// Lowers a stream-stream join of `s` (left) with `other` (right).
pub(crate) fn lower(
    b: &mut Builder,
    s: Stream,
    other: Stream,
    other_name: &syn::Ident,
    call: &Call,
    kind: JoinKind,
) -> syn::Result<Flow> {
    let op = call.name.to_string();
    if call.args.len() == 2 {
        return Err(err_call(
            call,
            format!(
                "`{other_name}` is a stream, and a stream-stream join needs a join window as its third argument: `.{op}({other_name}, |value, other_value| .., join_window(Duration::from_secs(60)))`"
            ),
        ));
    }
    arity(
        call,
        3,
        &format!("{op}(other_stream, |value, other_value| joined, {WINDOW_USAGE})"),
    )?;
    crate::args::joiner_with_key(
        &call.args[1],
        &format!(
            "{op}(other_stream, |value, other_value| joined, ..) or {op}(other_stream, |key, value, other_value| joined, ..)"
        ),
    )?;
    let window = join_window(&call.args[2])?;
    let (key, other_key, left_value, right_value) = sides(&s, &other, other_name, call)?;

    // Kafka Streams' indexes: two WINDOWED nodes, this, other, merge.
    let n = b.next_index();
    let (this_kind, other_kind) = match kind {
        JoinKind::Inner => ("KSTREAM-JOINTHIS", "KSTREAM-JOINOTHER"),
        JoinKind::Left => ("KSTREAM-JOINTHIS", "KSTREAM-OUTEROTHER"),
        JoinKind::Outer => ("KSTREAM-OUTERTHIS", "KSTREAM-OUTEROTHER"),
    };
    let this_name = names::node_name(this_kind, n + 2);
    let other_name_s = names::node_name(other_kind, n + 3);
    let store = |b: &mut Builder, name: String, value: &SerdeTy, owner: StoreOwner| {
        let changelog = b.internal(&name, "changelog");
        b.stores.push(Store::new(
            name,
            call.span,
            key.clone(),
            value.clone(),
            changelog,
            owner,
        ));
        b.stores.len() - 1
    };
    let this_store = store(
        b,
        format!("{this_name}-store"),
        &left_value,
        StoreOwner::JoinWindow(window),
    );
    let other_store = store(
        b,
        format!("{other_name_s}-store"),
        &right_value,
        StoreOwner::JoinWindow(window),
    );
    let shared = (kind != JoinKind::Inner).then(|| {
        store(
            b,
            format!("{}-store", names::node_name("KSTREAM-OUTERSHARED", n + 2)),
            &left_value,
            StoreOwner::JoinShared,
        )
    });
    let span = call.span;
    let w_this = b.node(
        NodeKind::JoinWindowed { store: this_store },
        "KSTREAM-WINDOWED",
        span,
        &[s.node],
    );
    let w_other = b.node(
        NodeKind::JoinWindowed { store: other_store },
        "KSTREAM-WINDOWED",
        span,
        &[other.node],
    );
    let side = |left: bool| {
        NodeKind::StreamJoin(Box::new(StreamJoinSide {
            kind,
            left,
            window,
            this_store: if left { this_store } else { other_store },
            other_store: if left { other_store } else { this_store },
            shared,
            state: n + 2,
            f: call.args[1].clone(),
            key: key.clone(),
            right_key: other_key.clone(),
            left_value: left_value.clone(),
            right_value: right_value.clone(),
        }))
    };
    let j_this = b.push_node(side(true), this_name, span, &[w_this]);
    let j_other = b.push_node(side(false), other_name_s, span, &[w_other]);
    let merge = b.node(
        NodeKind::Merge { keys: None },
        "KSTREAM-MERGE",
        span,
        &[j_this, j_other],
    );
    b.stores[this_store].users.extend([w_this, j_this, j_other]);
    b.stores[other_store]
        .users
        .extend([w_other, j_other, j_this]);
    if let Some(sh) = shared {
        b.stores[sh].users.extend([j_this, j_other]);
    }
    b.joins.push((j_this, j_other));
    Ok(Flow::Stream(Stream {
        node: merge,
        key: Some(key),
        value: None,
        key_changed: false,
        window: None,
    }))
}

/// Checks that both streams can be joined (plain keys, partitioned by them, one key type) and
/// returns their known serdes: left key, right key, left value, right value.
fn sides(
    s: &Stream,
    other: &Stream,
    other_name: &syn::Ident,
    call: &Call,
) -> syn::Result<(SerdeTy, SerdeTy, SerdeTy, SerdeTy)> {
    for (side, st, tokens) in [
        ("left", s, call.name.to_token_stream()),
        ("right", other, other_name.to_token_stream()),
    ] {
        if st.key_changed {
            return Err(err_at(
                tokens,
                format!(
                    "the key of the {side} stream changed upstream (map, select_key, flat_map), so it is not partitioned by its key: repartition it first with .repartition(\"name\", KeySerde, ValueSerde) (topic `<application id>-name-repartition`, as Kafka Streams names it), or join before changing the key"
                ),
            ));
        }
        if st.window.is_some() {
            return Err(err_at(
                tokens,
                format!("the {side} stream has windowed keys: stream-stream joins need plain keys"),
            ));
        }
    }
    let key = known(&s.key, "left", "key", "").map_err(|m| err_at(&call.name, m))?;
    let other_key = known(&other.key, "right", "key", &format!(" `{other_name}`"))
        .map_err(|m| err_at(other_name, m))?;
    let left_value = known(&s.value, "left", "value", "").map_err(|m| err_at(&call.name, m))?;
    let right_value = known(&other.value, "right", "value", &format!(" `{other_name}`"))
        .map_err(|m| err_at(other_name, m))?;
    if let (Some(a), Some(bk)) = (key.builtin_value(), other_key.builtin_value())
        && a != bk
    {
        let mut e = err_at(
            other_name,
            format!(
                "the left stream's keys are {a} (serde `{}`) but `{other_name}` has {bk} keys (serde `{}`): a join matches equal keys, so both sides need one key type; re-key one side with map(..) or select_key(..) and repartition it",
                key.text(),
                other_key.text()
            ),
        );
        e.combine(err(other_key.span, "the right stream's key serde"));
        return Err(e);
    }
    Ok((key, other_key, left_value, right_value))
}
