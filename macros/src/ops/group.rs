//! Grouping: `group_by(f, K, V)` groups by a new key (through a repartition topic),
//! `group_by_key()` by the key (repartitioning only after a key change), and
//! `windowed_by(window)` windows a grouped stream before its aggregation.

use quote::ToTokens;

use super::{Lower, Operator};
use crate::args::{arity, err_at, err_call, expr_arg, serde_arg, window_spec};
use crate::build::{Builder, Flow, Grouped, Stream};
use crate::ir::NodeKind;
use crate::parse::Call;

pub(crate) const GROUP_BY: Operator = Operator {
    name: "group_by",
    usage: "group_by(|key, value| new_key, KeySerde, ValueSerde)",
    lower: &[
        Lower::Stream(group_by),
        Lower::Table(super::table_group::group_by),
    ],
    on_stream: None,
    emit: &[super::table_group::EMIT],
};

pub(crate) const GROUP_BY_KEY: Operator = Operator {
    name: "group_by_key",
    usage: "group_by_key() or group_by_key(KeySerde, ValueSerde)",
    lower: &[Lower::Stream(group_by_key)],
    on_stream: None,
    emit: &[],
};

pub(crate) const WINDOWED_BY: Operator = Operator {
    name: "windowed_by",
    usage: "windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(10)))",
    lower: &[
        Lower::Grouped(windowed_by),
        Lower::Cogrouped(super::cogroup::windowed_by),
    ],
    on_stream: Some(
        "windowed_by(..) applies to a grouped stream: call group_by(..) or group_by_key() first",
    ),
    emit: &[],
};

fn group_by(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = GROUP_BY.usage;
    let f = expr_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    arity(call, 3, usage)?;
    b.check_value_serde(&s, &value);
    let node = b.node(
        NodeKind::SelectKey { f },
        "KSTREAM-KEY-SELECT",
        call.span,
        &[s.node],
    );
    Ok(Flow::Grouped(Grouped {
        node,
        key: Some(key),
        value: Some(value),
        repartition: true,
        window: None,
        span: call.span,
        tokens: call.tokens.clone(),
        how: "group_by(..)",
    }))
}

fn group_by_key(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = GROUP_BY_KEY.usage;
    let (key, value) = match call.args.len() {
        0 => (s.key.clone(), s.value.clone()),
        2 => {
            let k = serde_arg(call, 0, usage)?;
            let v = serde_arg(call, 1, usage)?;
            b.check_key_serde(&s, &k);
            b.check_value_serde(&s, &v);
            (Some(k), Some(v))
        }
        _ => {
            return Err(err_call(
                call,
                format!("wrong number of arguments: {usage}"),
            ));
        }
    };
    if s.key_changed && (key.is_none() || value.is_none()) {
        return Err(err_call(
            call,
            "the key changed upstream (map, select_key, flat_map), so group_by_key() repartitions and needs the serdes: group_by_key(KeySerde, ValueSerde)",
        ));
    }
    if s.window.is_some() {
        return Err(err_call(
            call,
            "the stream has windowed keys: group it with group_by(..) to a plain key first",
        ));
    }
    Ok(Flow::Grouped(Grouped {
        node: s.node,
        key,
        value,
        repartition: s.key_changed,
        window: None,
        span: call.span,
        tokens: call.tokens.clone(),
        how: "group_by_key()",
    }))
}

fn windowed_by(_: &mut Builder, g: Grouped, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, WINDOWED_BY.usage)?;
    if g.window.is_some() {
        return Err(err_at(
            call.name.to_token_stream(),
            "the stream is windowed already: call windowed_by(..) once",
        ));
    }
    let window = window_spec(&call.args[0])?;
    Ok(Flow::Grouped(Grouped {
        window: Some(window),
        ..g
    }))
}
