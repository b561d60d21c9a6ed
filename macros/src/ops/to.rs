//! `to("topic", K, V)` writes the stream to a topic and ends it. Windowed keys are written
//! with `TimeWindowed::<S>`, whose window size the macro fills in.
//!
//! `to(["orders-eu", "orders-us"], |key, value| .., K, V)` chooses each record's topic (Kafka
//! Streams' `TopicNameExtractor`) among the topics it declares: the application checks at start
//! that every one exists (`Topology::CHOSEN_TOPICS`), and a record whose closure names another
//! topic fails (`on_error`) with the list in the message.
//!
//! A last `partitioner(|key, value, partitions| ..)` chooses each record's partitions (Kafka
//! Streams' `StreamPartitioner`; see `dekaf_streams::routing`); without it a record goes to the
//! partition of its key (murmur2), as Kafka's default partitioner.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::{Emit, Lower, Operator};
use crate::args::{arity, err, err_at, fill_window_size, name_arg, serde_arg, topic_list};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{ChosenTopics, NodeKind, SerdeTy, TopicRole, TopicUse};
use crate::parse::Call;

pub(crate) const TO: Operator = Operator {
    name: "to",
    usage: "to(\"topic\", KeySerde, ValueSerde), or to([\"topic-a\", \"topic-b\"], |key, value| topic, KeySerde, ValueSerde) to choose each record's topic among those; either with a last partitioner(|key, value, partitions| ..) to choose the partitions",
    lower: &[Lower::Stream(to)],
    on_stream: None,
    emit: &[EMIT],
};

fn to(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = TO.usage;
    // `to([..], chooser, K, V)`: the serdes come after the closure.
    let (topics, chooser, at) = match call.arg(0) {
        Some(syn::Expr::Array(array)) => {
            let topics = topic_list(array, usage)?;
            let f = call.arg(1).cloned().ok_or_else(|| {
                err_at(
                    &call.name,
                    format!("missing the closure that names each record's topic: {usage}"),
                )
            })?;
            if let syn::Expr::Closure(c) = &f
                && !(2..=3).contains(&c.inputs.len())
            {
                return Err(err_at(
                    &c.inputs,
                    format!(
                        "the topic chooser takes the key and the value (and the record's context), this closure takes {}: |key: &K, value: &V| or |key: &K, value: &V, ctx: &RecordContext<'_>| -> one of the declared topics (a &str or String)",
                        c.inputs.len()
                    ),
                ));
            }
            let with_context = matches!(&f, syn::Expr::Closure(c) if c.inputs.len() == 3);
            (topics, Some((f, with_context)), 2)
        }
        _ => (vec![name_arg(call, 0, usage)?], None, 1),
    };
    let mut key = serde_arg(call, at, usage)?;
    let value = serde_arg(call, at + 1, usage)?;
    let partitioner = match call.arg(at + 2) {
        Some(e) => Some(Box::new(partitioner_arg(e, usage)?)),
        None => None,
    };
    arity(call, at + 2 + usize::from(partitioner.is_some()), usage)?;
    let session = key.is_session_windowed();
    match (s.window, key.is_windowed() || session) {
        (None, true) => {
            return Err(err(
                key.span,
                format!(
                    "{} is a serde of windowed keys, but this stream's keys are not windowed: use the key's own serde (windowed keys come from windowed_by(..) aggregations)",
                    if session {
                        "SessionWindowed"
                    } else {
                        "TimeWindowed"
                    }
                ),
            ));
        }
        (Some(w), true) if w.time_keyed() && session => {
            return Err(err(
                key.span,
                "SessionWindowed is the serde of session-window keys (key, end, start), but this stream's windows are time windows: write TimeWindowed::<K> (key, start), as Kafka Streams' TimeWindowedSerializer does",
            ));
        }
        (Some(w), true) if !w.time_keyed() && !session => {
            return Err(err(
                key.span,
                "TimeWindowed is the serde of time-window keys (key, start), but this stream's windows are session windows: write SessionWindowed::<K> (key, end, start), as Kafka Streams' SessionWindowedSerializer does",
            ));
        }
        (Some(w), true) => {
            if !session {
                key = fill_window_size(key, w.size)?;
            }
        }
        (Some(w), false) => {
            if key.builtin_value().is_some() {
                return Err(err(
                    key.span,
                    format!(
                        "this stream's keys are windowed (Windowed<K>): write them with {}::<{}>",
                        if w.time_keyed() {
                            "TimeWindowed"
                        } else {
                            "SessionWindowed"
                        },
                        key.text()
                    ),
                ));
            }
        }
        (None, false) => {}
    }
    b.check_key_serde(&s, &key);
    b.check_value_serde(&s, &value);
    for (topic, span) in &topics {
        b.topics.push(TopicUse {
            name: topic.clone(),
            span: *span,
            role: TopicRole::Sink,
            key: Some(key.clone()),
            value: Some(value.clone()),
        });
    }
    let mut names = topics.into_iter().map(|(t, _)| t);
    let topic = names.next().unwrap_or_default();
    let chosen = chooser.map(|(f, with_context)| {
        Box::new(ChosenTopics {
            also: names.collect(),
            f,
            with_context,
        })
    });
    b.node(
        NodeKind::Sink {
            topic,
            key,
            value,
            chosen,
            partitioner,
        },
        "KSTREAM-SINK",
        call.span,
        &[s.node],
    );
    Ok(Flow::Ended(call.tokens.clone()))
}

/// The code of the sinks: to a user topic (`to`) or a repartition topic (`repartition`, and
/// the repartitions before a grouping or a join).
pub(crate) const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    match &em.m.nodes[node].kind {
        NodeKind::Sink {
            topic,
            key,
            value,
            chosen: Some(chosen),
            partitioner,
        } => {
            let choose = choose(em, node, topic, chosen, &k.r(key.span), &v.r(value.span));
            let send = emit_send(
                em,
                node,
                quote!(__dk_topic),
                (key, value),
                partitioner.as_deref(),
                k,
                v,
            );
            Some(quote!(#choose #send))
        }
        NodeKind::Sink {
            topic,
            key,
            value,
            partitioner,
            ..
        }
        | NodeKind::RepartitionSink {
            topic,
            key,
            value,
            partitioner,
        } => Some(emit_send(
            em,
            node,
            quote!(#topic),
            (key, value),
            partitioner.as_deref(),
            k,
            v,
        )),
        _ => None,
    }
}

/// `__dk_topic`: the topic the chooser of sink `node` names for key `kr` and value `vr` (both
/// references), one of the declared ones (`first`, then `chosen.also`), or the record fails.
fn choose(
    em: &Emitter<'_>,
    node: usize,
    first: &str,
    chosen: &ChosenTopics,
    kr: &TokenStream,
    vr: &TokenStream,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let topics = std::iter::once(first).chain(chosen.also.iter().map(String::as_str));
    let f = &chosen.f;
    let span = syn::spanned::Spanned::span(f);
    // Spanned at the closure, so a return type that names no topic is reported there.
    let named = quote_spanned!(span=> __dk_named);
    let chosen_topic = quote_spanned!(span=> #dk::chosen_topic(&[#(#topics),*], &#named, #name));
    let named_by = if chosen.with_context {
        quote! {
            let __dk_context = ::dekaf_streams::routing::RecordContext::of(
                #dk::Task::source_topics(self),
                __dk_record,
            );
            let #named = #dk::topic_named_with_context(#kr, #vr, &__dk_context, #f);
        }
    } else {
        quote!(let #named = #dk::topic_named_by(#kr, #vr, #f);)
    };
    quote! {
        #named_by
        let __dk_topic: &'static str = #chosen_topic?;
    }
}

/// A record with a null key or value is sent with the missing part as null.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let (NodeKind::Sink {
        topic,
        key,
        value,
        partitioner,
        ..
    }
    | NodeKind::RepartitionSink {
        topic,
        key,
        value,
        partitioner,
    }) = &n.kind
    else {
        return None;
    };
    if partitioner.is_some() {
        // The partitioner takes the key and value: a missing one cannot be given to it.
        return Some(em.null_fails(node, "partitioner(..)", k));
    }
    if let NodeKind::Sink {
        chosen: Some(_), ..
    } = &n.kind
    {
        // The chooser takes the key and value: a missing one cannot be given to it.
        return Some(em.null_fails(node, "to([..], chooser, ..)", k));
    }
    let kind = if matches!(n.kind, NodeKind::Sink { .. }) {
        quote!(Sink)
    } else {
        quote!(Repartition)
    };
    let (kt, vt) = (&key.ty, &value.ty);
    let (kdef, kbytes) = match k {
        Part::Null => (quote!(), quote!(::core::option::Option::None)),
        Part::Val(a) => {
            let r = a.r(key.span);
            (
                quote_spanned!(key.span=> let __dk_ke = #dk::ser_key_at::<#kt>(#topic, #r, &mut self.__kbuf, #name)?;),
                quote!(#dk::bytes(__dk_ke, &self.__kbuf)),
            )
        }
    };
    let (vdef, vbytes) = match v {
        Part::Null => (quote!(), quote!(::core::option::Option::None)),
        Part::Val(a) => {
            let r = a.r(value.span);
            (
                quote_spanned!(value.span=> let __dk_ve = #dk::ser_value_at::<#vt>(#topic, #r, &mut self.__vbuf, #name)?;),
                quote!(#dk::bytes(__dk_ve, &self.__vbuf)),
            )
        }
    };
    Some(quote! {
        #kdef
        #vdef
        #dk::send(
            __dk_sink, #topic, #dk::TopicKind::#kind, #kbytes, #vbytes,
            __dk_record.timestamp, __dk_record.headers,
        )?;
    })
}

/// Serializes the key and value (type errors land at the serdes) and sends the record to a
/// user topic (`to`) or a repartition topic: to the partitions its `partitioner` chooses, if it
/// has one, else by key.
fn emit_send(
    em: &Emitter<'_>,
    node: usize,
    topic: TokenStream,
    (key, value): (&SerdeTy, &SerdeTy),
    partitioner: Option<&syn::Expr>,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let kind = if matches!(n.kind, NodeKind::Sink { .. }) {
        quote!(Sink)
    } else {
        quote!(Repartition)
    };
    let (kt, vt) = (&key.ty, &value.ty);
    let kr = k.r(key.span);
    let vr = v.r(value.span);
    let ke =
        quote_spanned!(key.span=> #dk::ser_key_at::<#kt>(#topic, #kr, &mut self.__kbuf, #name)?);
    let ve = quote_spanned!(value.span=> #dk::ser_value_at::<#vt>(#topic, #vr, &mut self.__vbuf, #name)?);
    let Some(f) = partitioner else {
        return quote! {
            let __dk_ke = #ke;
            let __dk_ve = #ve;
            #dk::send(
                __dk_sink,
                #topic,
                #dk::TopicKind::#kind,
                #dk::bytes(__dk_ke, &self.__kbuf),
                #dk::bytes(__dk_ve, &self.__vbuf),
                __dk_record.timestamp,
                __dk_record.headers,
            )?;
        };
    };
    // Spanned at the closure, so a return type that is no `PartitionChoice` is reported there.
    let span = syn::spanned::Spanned::span(f);
    let choice = quote_spanned!(span=> __dk_choice);
    let chose = if matches!(f, syn::Expr::Closure(c) if c.inputs.len() == 4) {
        quote!(#dk::partitions_chosen_for(#topic, #kr, #vr, __dk_partitions, #f))
    } else {
        quote!(#dk::partitions_chosen_by(#kr, #vr, __dk_partitions, #f))
    };
    quote! {
        let __dk_partitions = #dk::partition_count(__dk_sink, #topic)?;
        let #choice = #chose;
        let __dk_chosen = #dk::checked_partitions(#choice, __dk_partitions, #topic, #name)?;
        let __dk_ke = #ke;
        let __dk_ve = #ve;
        #dk::send_to_partitions(
            __dk_sink,
            #topic,
            #dk::TopicKind::#kind,
            &__dk_chosen,
            #dk::bytes(__dk_ke, &self.__kbuf),
            #dk::bytes(__dk_ve, &self.__vbuf),
            __dk_record.timestamp,
            __dk_record.headers,
        )?;
    }
}

/// `partitioner(|key: &K, value: &V, partitions: u32| ..)`, the last argument of `to` and
/// `repartition`: its closure (one of three parameters, when it is a closure).
pub(crate) fn partitioner_arg(e: &syn::Expr, usage: &str) -> syn::Result<syn::Expr> {
    let syn::Expr::Call(c) = e else {
        return Err(err_at(e, format!("expected partitioner(..) here: {usage}")));
    };
    if !matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("partitioner")) {
        return Err(err_at(e, format!("expected partitioner(..) here: {usage}")));
    }
    let [f] = c.args.iter().collect::<Vec<_>>()[..] else {
        return Err(err_at(
            e,
            "partitioner takes one closure: partitioner(|key: &K, value: &V, partitions: u32| partition), returning a u32, an Option<u32> (None: by key), or a Vec<u32> (multicast; empty: dropped)",
        ));
    };
    if let syn::Expr::Closure(closure) = f
        && !(3..=4).contains(&closure.inputs.len())
    {
        return Err(err_at(
            &closure.inputs,
            format!(
                "a partitioner takes the key, the value and the topic's partition count (and the topic first, if wanted), this closure takes {}: |key: &K, value: &V, partitions: u32| or |topic: &str, key: &K, value: &V, partitions: u32| -> u32, Option<u32> or Vec<u32>",
                closure.inputs.len()
            ),
        ));
    }
    Ok(f.clone())
}

/// `Topology::CHOSEN_TOPICS`: every topic a sink may choose per record.
pub(crate) fn chosen_topics(m: &crate::ir::Model) -> TokenStream {
    let topics = m.nodes.iter().filter_map(|n| match &n.kind {
        NodeKind::Sink {
            topic,
            chosen: Some(c),
            ..
        } => Some(std::iter::once(topic).chain(&c.also)),
        _ => None,
    });
    let topics = topics.flatten();
    quote!(&[#(#topics),*])
}
