//! `repartition("name", K, V)`: writes the stream to `<app>-<name>-repartition` and reads it
//! back, partitioned by its current key (Kafka Streams' `repartition(Repartitioned.as(name))`).
//! `repartition("name", K, V, partitions(n))` declares the topic with `n` partitions
//! (`Repartitioned.withNumberOfPartitions(n)`): the coordinator creates it so, rather than
//! with the partition count of the subtopology's source topics. A last
//! `partitioner(|key, value, partitions| ..)` chooses each record's partitions
//! (`Repartitioned.withStreamPartitioner`; see `dekaf_streams::routing`).

use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, err, err_at, name_arg, serde_arg};
use crate::build::{Builder, Flow, Stream};
use crate::ir::NodeKind;
use crate::names;
use crate::parse::Call;

pub(crate) const REPARTITION: Operator = Operator {
    name: "repartition",
    usage: "repartition(\"name\", KeySerde, ValueSerde), then partitions(n) and/or partitioner(|key, value, partitions| ..) if wanted",
    lower: &[Lower::Stream(repartition)],
    on_stream: None,
    emit: &[],
};

fn repartition(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = REPARTITION.usage;
    let (name, nspan) = name_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    // Then `partitions(n)` and `partitioner(..)`, either, both (in this order) or none.
    let mut partitions = None;
    let mut partitioner = None;
    let mut at = 3;
    if let Some(Expr::Call(c)) = call.arg(at)
        && matches!(&*c.func, Expr::Path(p) if p.path.is_ident("partitions"))
    {
        partitions = Some(partitions_arg(&call.args[at])?);
        at += 1;
    }
    if let Some(e) = call.arg(at) {
        let is_partitioner = matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("partitioner")));
        if !is_partitioner {
            return Err(err_at(
                e,
                format!(
                    "after the serdes, repartition(..) takes partitions(n) (its partition count, n an integer of 1 or more, e.g. partitions(8)) and/or partitioner(|key, value, partitions| ..), in this order: {usage}"
                ),
            ));
        }
        partitioner = Some(Box::new(super::to::partitioner_arg(e, usage)?));
        at += 1;
    }
    arity(call, at, usage)?;
    if s.window.is_some() || key.is_windowed() {
        return Err(err_at(
            &call.name,
            "a stream with windowed keys cannot be repartitioned",
        ));
    }
    b.check_key_serde(&s, &key);
    b.check_value_serde(&s, &value);
    if let Some(c) = names::illegal_char(&name) {
        return Err(err(
            nspan,
            format!(
                "invalid repartition name `{name}`: it names an internal topic, so it may contain ASCII letters, digits, '.', '_' and '-' but not {c:?}"
            ),
        ));
    }
    let topic = b.internal(&name, "repartition");
    if let Some(other) = b.repartition_names.insert(topic.clone(), nspan) {
        let mut e = err(
            nspan,
            format!(
                "duplicate repartition name `{name}`: it would share the topic `{topic}` with another repartition"
            ),
        );
        e.combine(err(other, "first used here"));
        return Err(e);
    }
    if let Some(n) = partitions {
        b.repartition_partitions.insert(topic.clone(), n);
    }
    let (sink_name, source_name) = names::repartition_node_names(&name);
    let sink = b.push_node(
        NodeKind::RepartitionSink {
            topic: topic.clone(),
            key: key.clone(),
            value: value.clone(),
            partitioner,
        },
        sink_name,
        nspan,
        &[s.node],
    );
    let source = b.push_node(
        NodeKind::RepartitionSource {
            topic,
            key: key.clone(),
            value: value.clone(),
        },
        source_name,
        nspan,
        &[],
    );
    b.repartitions.push((sink, source));
    Ok(Flow::Stream(Stream {
        node: source,
        key: Some(key),
        value: Some(value),
        key_changed: false,
        window: None,
    }))
}

/// `partitions(n)`: a partition count of 1 or more (an integer literal).
fn partitions_arg(e: &Expr) -> syn::Result<u32> {
    let usage = "the fourth argument of repartition(..) is its partition count: partitions(n), n an integer of 1 or more, e.g. partitions(8)";
    let Expr::Call(c) = e else {
        return Err(err_at(e, usage));
    };
    if !matches!(&*c.func, Expr::Path(p) if p.path.is_ident("partitions")) || c.args.len() != 1 {
        return Err(err_at(e, usage));
    }
    let n = match &c.args[0] {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u32>().map_err(|_| err_at(i, usage))?,
        other => return Err(err_at(other, usage)),
    };
    if n == 0 || n > i32::MAX as u32 {
        return Err(err_at(
            &c.args[0],
            "a repartition topic needs at least 1 partition: write partitions(n) with n of 1 or more, or leave partitions(..) out to let the coordinator derive the count from the source topics",
        ));
    }
    Ok(n)
}
