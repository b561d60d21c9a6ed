//! `repartition("name", K, V)`: writes the stream to `<app>-<name>-repartition` and reads it
//! back, partitioned by its current key (Kafka Streams' `repartition(Repartitioned.as(name))`).

use super::{Lower, Operator};
use crate::args::{arity, err, err_at, name_arg, serde_arg};
use crate::build::{Builder, Flow, Stream};
use crate::ir::NodeKind;
use crate::names;
use crate::parse::Call;

pub(crate) const REPARTITION: Operator = Operator {
    name: "repartition",
    usage: "repartition(\"name\", KeySerde, ValueSerde)",
    lower: &[Lower::Stream(repartition)],
    on_stream: None,
    emit: &[],
};

fn repartition(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = REPARTITION.usage;
    let (name, nspan) = name_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    arity(call, 3, usage)?;
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
    let (sink_name, source_name) = names::repartition_node_names(&name);
    let sink = b.push_node(
        NodeKind::RepartitionSink {
            topic: topic.clone(),
            key: key.clone(),
            value: value.clone(),
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
