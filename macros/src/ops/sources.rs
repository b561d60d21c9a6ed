//! The statements that start a chain: `stream(..)` and `table(..)` read a topic, `on_error(..)`
//! sets the error handler (the stores of `process(..)` are declared in [`super::store_decl`]).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};

use super::aggregate::raw_key;
use super::{Emit, Lower, Operator};
use crate::args::{arity, err, err_at, err_call, name_arg, serde_arg, topic_list};
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{
    AggOp, Extractor, NodeKind, ResetSpec, SerdeTy, Store, StoreOwner, TopicRole, TopicUse,
    WindowKind,
};
use crate::parse::Call;

pub(crate) const STREAM: Operator = Operator {
    name: "stream",
    usage: "stream(\"topic\", KeySerde, ValueSerde) or stream([\"topic-a\", \"topic-b\"], KeySerde, ValueSerde), with options after the serdes: stream(\"topic\", KeySerde, ValueSerde, timestamp(..), offset_reset(..))",
    lower: &[Lower::Root(stream)],
    on_stream: None,
    emit: &[EMIT],
};

pub(crate) const TABLE: Operator = Operator {
    name: "table",
    usage: "table(\"topic\", KeySerde, ValueSerde) or table(\"topic\", KeySerde, ValueSerde, \"store\"), then maybe offset_reset(..)",
    lower: &[Lower::Root(table)],
    on_stream: None,
    emit: &[super::table::SOURCE_EMIT],
};

pub(crate) const ON_ERROR: Operator = Operator {
    name: "on_error",
    usage: "on_error(|error| ErrorResponse::..)",
    lower: &[Lower::Root(on_error)],
    on_stream: None,
    emit: &[],
};

fn stream(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    let usage = STREAM.usage;
    let topics = source_topics(call, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    let StreamOptions { timestamp, reset } = source_options(call, 3, true)?;
    for (topic, span) in &topics {
        b.topics.push(TopicUse {
            name: topic.clone(),
            span: *span,
            role: TopicRole::Source,
            key: Some(key.clone()),
            value: Some(value.clone()),
        });
    }
    let mut topics = topics.into_iter().map(|(t, _)| t);
    let topic = topics.next().unwrap_or_default();
    let node = b.node(
        NodeKind::Source {
            topic,
            also: topics.collect(),
            key: key.clone(),
            value: value.clone(),
            timestamp,
            reset: reset.map(|(r, _)| r),
        },
        "KSTREAM-SOURCE",
        call.span,
        &[],
    );
    Ok(Flow::Stream(Stream {
        node,
        key: Some(key),
        value: Some(value),
        key_changed: false,
        window: None,
    }))
}

/// The topics of `stream(..)`: one literal, or several in brackets (`stream(["a", "b"], ..)`,
/// Kafka Streams' `builder.stream(List.of("a", "b"))`: one source node reading all of them,
/// each record keeping its own topic), each once.
fn source_topics(call: &Call, usage: &str) -> syn::Result<Vec<(String, Span)>> {
    match call.arg(0) {
        Some(syn::Expr::Array(array)) => topic_list(array, usage),
        Some(e @ syn::Expr::Call(c)) if is_pattern(&c.func) => Err(err_at(e, PATTERN_REFUSED)),
        _ => Ok(vec![name_arg(call, 0, usage)?]),
    }
}

/// Whether `f` names a topic pattern: `pattern(..)`, `regex(..)`, `Regex::new(..)`,
/// `Pattern::compile(..)`.
fn is_pattern(f: &syn::Expr) -> bool {
    let syn::Expr::Path(p) = f else {
        return false;
    };
    let names: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    matches!(
        names.iter().map(String::as_str).collect::<Vec<_>>()[..],
        ["pattern"] | ["regex"] | [.., "Regex", "new"] | [.., "Pattern", "compile"]
    )
}

/// Why a topic pattern source is refused, and what to write instead.
const PATTERN_REFUSED: &str = "a source of a topic pattern (Kafka Streams' builder.stream(Pattern)) cannot run as a member of a streams group on Kafka 4.4: the group coordinator refuses a topology with a source topic regex (\"Regular expressions for source topics are not supported yet.\"), and Kafka Streams 4.4 refuses Pattern subscriptions with the streams protocol too. Name the topics instead: stream([\"orders-eu\", \"orders-us\"], KeySerde, ValueSerde); they are known while compiling, so a topic added later takes a new version of the application (the coordinator does not accept topology updates yet either)";

/// What `timestamp(..)` takes, for the errors.
const TIMESTAMP_USAGE: &str = "timestamp(|key: &K, value: &V, record_ts: i64, partition_time: i64| -> i64), or a built-in extractor: timestamp(WallClock), timestamp(FailOnInvalid), timestamp(LogAndSkipOnInvalid) or timestamp(UsePartitionTimeOnInvalid)";

/// What `offset_reset(..)` takes, for the errors.
const RESET_USAGE: &str = "offset_reset(earliest), offset_reset(latest), offset_reset(none) or offset_reset(by_duration(Duration::from_secs(..))) (Kafka Streams' AutoOffsetReset: where the source starts when the group has no committed offset for a partition)";

/// The options of a source after its serdes (and a table's store name).
struct StreamOptions {
    timestamp: Option<Extractor>,
    /// The policy, and the whole option (for errors).
    reset: Option<(ResetSpec, syn::Expr)>,
}

/// The options of a source from argument `from` on: `timestamp(..)` (a stream's only) and
/// `offset_reset(..)`, each at most once. With the option's tokens, for the errors of the
/// callers.
fn source_options(call: &Call, from: usize, stream: bool) -> syn::Result<StreamOptions> {
    let mut timestamp = None;
    let mut reset = None;
    for arg in call.args.iter().skip(from) {
        let syn::Expr::Call(option) = arg else {
            return Err(err_at(
                arg,
                if stream {
                    format!(
                        "stream(..) takes a topic, two serdes and then options: {TIMESTAMP_USAGE}; {RESET_USAGE}"
                    )
                } else {
                    format!("too many arguments: {}", TABLE.usage)
                },
            ));
        };
        let is = |name: &str| matches!(&*option.func, syn::Expr::Path(p) if p.path.is_ident(name));
        if is("offset_reset") {
            let policy = single_option(
                arg,
                option,
                reset.is_some(),
                "offset_reset",
                "offset reset",
                "policy",
                RESET_USAGE,
            )?;
            reset = Some((reset_spec(policy)?, arg.clone()));
        } else if is("timestamp") && stream {
            let e = single_option(
                arg,
                option,
                timestamp.is_some(),
                "timestamp",
                "timestamp extractor",
                "extractor",
                TIMESTAMP_USAGE,
            )?;
            timestamp = Some(extractor(e)?);
        } else if stream {
            return Err(err_at(
                &option.func,
                format!(
                    "unknown option of stream(..): the options are {TIMESTAMP_USAGE}; and {RESET_USAGE}"
                ),
            ));
        } else {
            return Err(err_at(
                &option.func,
                format!(
                    "unknown option of a table: the option is {RESET_USAGE} (a table's records keep the timestamps they were written with)"
                ),
            ));
        }
    }
    Ok(StreamOptions { timestamp, reset })
}

/// The one argument of option `name(..)` of `stream(..)` (`arg` is the whole option), refused
/// when the option was `given` before or has another number of arguments.
fn single_option<'a>(
    arg: &syn::Expr,
    option: &'a syn::ExprCall,
    given: bool,
    name: &str,
    what: &str,
    takes: &str,
    usage: &str,
) -> syn::Result<&'a syn::Expr> {
    if given {
        return Err(err_at(
            arg,
            format!("{name}(..) is given twice: a source has one {what}, keep one"),
        ));
    }
    match option.args.first() {
        Some(first) if option.args.len() == 1 => Ok(first),
        _ => Err(err_at(
            arg,
            format!("{name}(..) takes one {takes}: {usage}"),
        )),
    }
}

/// The policy of `offset_reset(..)`.
fn reset_spec(arg: &syn::Expr) -> syn::Result<ResetSpec> {
    match arg {
        syn::Expr::Path(p) if p.path.is_ident("earliest") => Ok(ResetSpec::Earliest),
        syn::Expr::Path(p) if p.path.is_ident("latest") => Ok(ResetSpec::Latest),
        syn::Expr::Path(p) if p.path.is_ident("none") => Ok(ResetSpec::None),
        syn::Expr::Call(c) if matches!(&*c.func, syn::Expr::Path(p) if p.path.is_ident("by_duration")) => {
            match c.args.first() {
                Some(d) if c.args.len() == 1 => Ok(ResetSpec::ByDuration(Box::new(d.clone()))),
                _ => Err(err_at(
                    arg,
                    "by_duration(..) takes one std::time::Duration (a const expression, such as Duration::from_secs(3600)): the source starts at the first record at most that old",
                )),
            }
        }
        other => Err(err_at(
            other,
            format!("unknown offset reset: {RESET_USAGE}"),
        )),
    }
}

/// `Topology::OFFSET_RESETS`: every source with its own offset reset.
pub(crate) fn offset_resets(m: &crate::ir::Model) -> TokenStream {
    let dk = dk();
    let items = m.nodes.iter().filter_map(|n| {
        let (topic, also, reset) = match &n.kind {
            NodeKind::Source {
                topic,
                also,
                reset: Some(reset),
                ..
            } => (topic, also.as_slice(), reset),
            NodeKind::TableSource {
                topic,
                reset: Some(reset),
                ..
            } => (topic, &[][..], reset),
            _ => return None,
        };
        let reset = match reset {
            ResetSpec::Earliest => quote!(#dk::OffsetReset::Earliest),
            ResetSpec::Latest => quote!(#dk::OffsetReset::Latest),
            ResetSpec::None => quote!(#dk::OffsetReset::None),
            ResetSpec::ByDuration(d) => {
                quote_spanned!(syn::spanned::Spanned::span(&**d)=> #dk::OffsetReset::ByDuration(#d))
            }
        };
        let items: Vec<TokenStream> = std::iter::once(topic)
            .chain(also)
            .map(|topic| quote!(#dk::SourceOffsetReset { topic: #topic, reset: #reset },))
            .collect();
        Some(items)
    });
    let items = items.flatten();
    quote!(&[#(#items)*])
}

/// The extractor of `timestamp(..)`: a built-in's name, or a closure of four parameters.
fn extractor(arg: &syn::Expr) -> syn::Result<Extractor> {
    match arg {
        syn::Expr::Path(p) if p.path.get_ident().is_some() => {
            let name = p
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            match name.as_str() {
                "WallClock" => Ok(Extractor::WallClock),
                "FailOnInvalid" => Ok(Extractor::FailOnInvalid),
                "LogAndSkipOnInvalid" => Ok(Extractor::LogAndSkipOnInvalid),
                "UsePartitionTimeOnInvalid" => Ok(Extractor::UsePartitionTimeOnInvalid),
                _ => Err(err_at(
                    arg,
                    format!(
                        "`{name}` is not a built-in timestamp extractor: write WallClock, FailOnInvalid, LogAndSkipOnInvalid or UsePartitionTimeOnInvalid, or call a function of yours from a closure: timestamp(|key, value, record_ts, partition_time| {name}(key, value, record_ts, partition_time))"
                    ),
                )),
            }
        }
        syn::Expr::Closure(c) if c.inputs.len() != 4 => Err(err_at(
            &c.inputs,
            format!(
                "a timestamp extractor takes four parameters, this closure takes {}: |key: &K, value: &V, record_ts: i64, partition_time: i64| -> i64 (record_ts is Kafka's timestamp of the record, partition_time the largest timestamp extracted so far, -1 before the first)",
                c.inputs.len()
            ),
        )),
        other => Ok(Extractor::Closure(Box::new(other.clone()))),
    }
}

/// The arguments of `table(..)` and `global_table(..)`: `("topic", KeySerde, ValueSerde)` and
/// maybe `"store"`. The topic is recorded as a table's input.
pub(crate) struct TableArgs {
    pub topic: String,
    pub topic_span: Span,
    pub key: SerdeTy,
    pub value: SerdeTy,
    /// The store's name and span, when given.
    pub store: Option<(String, Span)>,
    /// `offset_reset(..)` after them, and the option's tokens (for errors).
    pub reset: Option<(ResetSpec, syn::Expr)>,
}

/// Reads [`TableArgs`] from `call`.
pub(crate) fn table_args(b: &mut Builder, call: &Call, usage: &str) -> syn::Result<TableArgs> {
    let (topic, topic_span) = name_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    let store = match call.arg(3) {
        Some(syn::Expr::Call(_)) | None => None,
        Some(_) => Some(name_arg(call, 3, usage)?),
    };
    let reset = source_options(call, 3 + usize::from(store.is_some()), false)?.reset;
    b.topics.push(TopicUse {
        name: topic.clone(),
        span: topic_span,
        role: TopicRole::Table,
        key: Some(key.clone()),
        value: Some(value.clone()),
    });
    Ok(TableArgs {
        topic,
        topic_span,
        key,
        value,
        store,
        reset,
    })
}

fn table(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    let TableArgs {
        topic,
        topic_span,
        key,
        value,
        store,
        reset,
    } = table_args(b, call, TABLE.usage)?;
    let (store_name, sspan) = store.unwrap_or_else(|| (topic.clone(), topic_span));
    let store = b.stores.len();
    b.stores.push(Store {
        logged: false,
        ..Store::new(
            store_name,
            sspan,
            key.clone(),
            value.clone(),
            topic.clone(),
            StoreOwner::Table,
        )
    });
    // Kafka Streams' `InternalStreamsBuilder#table` names the topic's source node first
    // (`KSTREAM-SOURCE-n`), then the table's processor (`KTABLE-SOURCE-n+1`); a store named
    // with `Materialized.as` takes no index (this table's store is named: the topic's name, or
    // the one given).
    let source = crate::names::node_name("KSTREAM-SOURCE", b.reserve_index());
    let node = b.node(
        NodeKind::TableSource {
            topic,
            key,
            value,
            store,
            source,
            reset: reset.map(|(r, _)| r),
        },
        "KTABLE-SOURCE",
        call.span,
        &[],
    );
    b.stores[store].users.push(node);
    Ok(Flow::Table(Table { node, store }))
}

fn on_error(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    arity(call, 1, ON_ERROR.usage)?;
    if let Some(prev) = &b.on_error_call {
        let mut e = err_call(call, "on_error is set twice: keep one handler");
        e.combine(err_at(prev, "first set here"));
        return Err(e);
    }
    let f = call.args[0].clone();
    dead_letters(b, f.to_token_stream());
    b.on_error = Some(f);
    b.on_error_call = Some(call.tokens.clone());
    Ok(Flow::Decl)
}

/// Finds `DeadLetter("topic")` in the handler: the topology writes those topics.
fn dead_letters(b: &mut Builder, tokens: TokenStream) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, tt) in tokens.iter().enumerate() {
        match tt {
            TokenTree::Ident(id) if id == "DeadLetter" => {
                let Some(TokenTree::Group(g)) = tokens.get(i + 1) else {
                    b.diagnostics.error(err(
                        id.span(),
                        "write DeadLetter(\"topic\") with a string literal topic",
                    ));
                    continue;
                };
                match syn::parse2::<syn::LitStr>(g.stream()) {
                    Ok(lit) => b.topics.push(TopicUse {
                        name: lit.value(),
                        span: lit.span(),
                        role: TopicRole::DeadLetter,
                        key: None,
                        value: None,
                    }),
                    Err(_) => b.diagnostics.error(err(
                        g.span(),
                        "the dead-letter topic must be a string literal (`DeadLetter(\"orders-dead-letter\")`), so the topology knows its output topics while compiling",
                    )),
                }
            }
            TokenTree::Group(g) => dead_letters(b, g.stream()),
            _ => {}
        }
    }
}

/// The code of the sources of topics: a user topic (`stream(..)`) or a repartition topic.
pub(crate) const EMIT: Emit = Emit {
    source,
    null,
    ..Emit::NONE
};

/// A source's children get the record's key and value decoded; a null key or value the serde
/// cannot hold takes the null path ([`Emitter::null_guard`]).
fn source(em: &Emitter<'_>, node: usize, topic: &str) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let k = format_ident!("__k{}", node);
    let v = format_ident!("__v{}", node);
    let (NodeKind::Source { key, value, .. } | NodeKind::RepartitionSource { key, value, .. }) =
        &n.kind
    else {
        return None;
    };
    let extractor = match &n.kind {
        NodeKind::Source { timestamp, .. } => timestamp.as_ref(),
        _ => None,
    };
    let (kt, vt) = (&key.ty, &value.ty);
    if let Some(Extractor::Closure(f)) = extractor {
        return Some(closure_source(em, node, topic, kt, vt, f));
    }
    // A built-in extractor stamps every record before anything else reads it.
    let stamped = extractor.map(|e| {
        let ts = builtin_timestamp(e, name);
        stamp(topic, &ts)
    });
    // A value only counted is checked (the same errors), not built.
    let value = if value_unread(em, node) {
        quote!(let #v = #dk::check_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
    } else {
        quote!(let #v = #dk::de_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
    };
    // A key going straight into a count or reduce is checked, not decoded, when the
    // aggregation can store its bytes ([`raw_key::KeyIn::Raw`]).
    // (Not for a source of several topics: the key's errors would name one of them.)
    let one_topic = !matches!(&n.kind, NodeKind::Source { also, .. } if !also.is_empty());
    if let [child] = n.children.as_slice()
        && one_topic
        && raw_key::takes_raw_key(em, *child)
        && let NodeKind::Aggregate { store, op, .. } = &em.m.nodes[*child].kind
    {
        let key = raw_key::KeyIn::Raw {
            source: node,
            serde: kt,
        };
        let key_statement = raw_key::raw_key_source(em, node, kt, *child);
        let child =
            super::aggregate::emit::emit_keyed(em, *child, *store, op, key, &Acc::owned(v.clone()));
        let guarded = em.null_guard(
            node,
            topic,
            kt,
            vt,
            quote! {
                #key_statement
                #value
                #child
            },
        );
        return Some(quote!(#stamped #guarded));
    }
    let children = em.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
    let guarded = em.null_guard(
        node,
        topic,
        kt,
        vt,
        quote! {
            let #k = #dk::de_key_at::<#kt>(#topic, __dk_record.key, #name)?;
            #value
            #children
        },
    );
    Some(quote!(#stamped #guarded))
}

/// The timestamp a built-in extractor gives the record (`__dk_ts`).
fn builtin_timestamp(e: &Extractor, node: &str) -> TokenStream {
    let dk = dk();
    let ev = quote!(#dk::event_time);
    match e {
        Extractor::WallClock => quote!(#ev::wall_clock()),
        Extractor::FailOnInvalid => quote!(#ev::fail_on_invalid(__dk_record.timestamp, #node)?),
        Extractor::LogAndSkipOnInvalid => quote!(__dk_record.timestamp),
        Extractor::UsePartitionTimeOnInvalid => quote! {
            #ev::use_partition_time_on_invalid(
                __dk_record.timestamp,
                #ev::partition_time(self.__stream_time),
                #node,
            )?
        },
        Extractor::Closure(_) => quote!(__dk_record.timestamp),
    }
}

/// Gives the record the extracted timestamp `ts`: a negative one skips the record (counted,
/// as Kafka Streams' `RecordQueue`), any other moves stream time and becomes the timestamp
/// every operator after the source sees (`__dk_record` is shadowed).
fn stamp(topic: &str, ts: &TokenStream) -> TokenStream {
    let dk = dk();
    quote! {
        let __dk_ts: i64 = #ts;
        if __dk_ts < 0 {
            self.__invalid_ts += 1;
            #dk::event_time::skipped(#topic, __dk_record.partition, __dk_record.offset, __dk_ts);
            return Ok(());
        }
        if __dk_ts > self.__stream_time {
            self.__stream_time = __dk_ts;
        }
        let __dk_stamped = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
        let __dk_record = &__dk_stamped;
    }
}

/// A source with a closure extractor: the closure gets the decoded key and value, so both are
/// always decoded; a record whose key or value is null and whose serde has no value for null
/// keeps Kafka's timestamp.
fn closure_source(
    em: &Emitter<'_>,
    node: usize,
    topic: &str,
    kt: &syn::Type,
    vt: &syn::Type,
    f: &syn::Expr,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let k = format_ident!("__k{}", node);
    let v = format_ident!("__v{}", node);
    let own = stamp(topic, &quote!(__dk_record.timestamp));
    let extracted = stamp(
        topic,
        &quote! {
            #dk::event_time::extract(
                &#k,
                &#v,
                __dk_record.timestamp,
                #dk::event_time::partition_time(self.__stream_time),
                #f,
            )
        },
    );
    let children = em.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
    let guarded = em.null_guard(
        node,
        topic,
        kt,
        vt,
        quote! {
            let #k = #dk::de_key_at::<#kt>(#topic, __dk_record.key, #name)?;
            let #v = #dk::de_value_at::<#vt>(#topic, __dk_record.value, #name)?;
            #extracted
            #children
        },
    );
    quote! {
        if #dk::is_absent::<#kt>(__dk_record.key) || #dk::is_absent::<#vt>(__dk_record.value) {
            #own
        }
        #guarded
    }
}

/// Sources are where the null path starts (their `null_guard`), not a step of it.
fn null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    matches!(
        em.m.nodes[node].kind,
        NodeKind::Source { .. } | NodeKind::RepartitionSource { .. }
    )
    .then(TokenStream::new)
}

/// Whether no child of `node` reads its value: each counts its records (`count()`, plain or
/// over time windows), and a count's downstream gets the count, not the value.
fn value_unread(em: &Emitter<'_>, node: usize) -> bool {
    let children = &em.m.nodes[node].children;
    !children.is_empty()
        && children.iter().all(|&c| match &em.m.nodes[c].kind {
            NodeKind::Aggregate {
                store,
                op: AggOp::Count,
                ..
            } => em.m.stores[*store]
                .window
                .is_none_or(|w| w.kind == WindowKind::Time),
            _ => false,
        })
}
