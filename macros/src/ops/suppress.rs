//! `suppress_until_window_closes(..)`: one final result per window and key, forwarded when
//! stream time passes the window's end plus its grace (plus the gap, for sessions), as Kafka
//! Streams' `suppress(Suppressed.untilWindowCloses(unbounded()))`. `suppress_until_time_limit(..)`:
//! a key's latest result, forwarded once the suppression's stream time passes the time the key
//! was first buffered plus the limit, as `suppress(Suppressed.untilTimeLimit(..))`. Both take a
//! buffer config (Kafka Streams' `BufferConfig`: `unbounded()`, `max_records(n)`,
//! `max_bytes(n)`, `.emit_early_when_full()`, `.shut_down_when_full()`). The buffer is a store
//! changelogged to `<app>-KTABLE-SUPPRESS-STATE-STORE-<n>-changelog` (or
//! `<app>-<name>-store-changelog` with a name, as `Suppressed.withName`), so results survive
//! restarts and stay exactly-once.
//!
//! The code: buffer the latest result (its bytes), then forward and delete every buffered
//! result that is due, or, over the buffer's limits, the earliest ones (emit early) or fail the
//! task (shut down). The buffers are in the runtime (`dekaf_streams::window`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{duration, err_at, err_call, name_arg};
use crate::build::{Builder, Flow, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::codegen::parts::TaskParts;
use crate::ir::{BufferSpec, NodeKind, SerdeTy, Store, StoreOwner, Sub, TableNode, WindowKind};
use crate::names;
use crate::parse::Call;

pub(crate) const SUPPRESS_UNTIL_WINDOW_CLOSES: Operator = Operator {
    name: "suppress_until_window_closes",
    usage: "suppress_until_window_closes(), suppress_until_window_closes(\"name\"), suppress_until_window_closes(max_records(1000).shut_down_when_full()) or suppress_until_window_closes(unbounded(), \"name\")",
    lower: &[Lower::Table(until_window_closes)],
    on_stream: Some(
        "suppress_until_window_closes() applies to the table of a windowed aggregation: call it right after count(..), reduce(..) or aggregate(..) of windowed_by(..)",
    ),
    emit: &[EMIT],
};

pub(crate) const SUPPRESS_UNTIL_TIME_LIMIT: Operator = Operator {
    name: "suppress_until_time_limit",
    usage: "suppress_until_time_limit(Duration::from_secs(10)), suppress_until_time_limit(Duration::from_secs(10), max_records(1000)) or suppress_until_time_limit(Duration::from_secs(10), max_bytes(1_000_000).shut_down_when_full(), \"name\")",
    lower: &[Lower::Table(until_time_limit)],
    on_stream: Some(
        "suppress_until_time_limit(..) applies to a table (an aggregation's, one read from a topic, to_table(..)): a stream has no updates to hold back; make it a table first",
    ),
    emit: &[EMIT, super::suppress_changes::EMIT],
};

const BUFFER_USAGE: &str = "a buffer config is unbounded(), max_records(n) or max_bytes(n), optionally followed by .with_max_records(n), .with_max_bytes(n), .with_no_bound(), .emit_early_when_full() or .shut_down_when_full()";

/// Whether `e` is a string literal (a suppression's name rather than a buffer config).
fn is_name(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(_),
            ..
        })
    )
}

fn count_arg(e: &Expr, what: &str) -> syn::Result<u64> {
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>(),
        _ => Err(err_at(
            e,
            format!("{what}(..) takes an integer literal: {BUFFER_USAGE}"),
        )),
    }
}

/// A buffer config, as Kafka Streams' `Suppressed.BufferConfig`: `max_records(n)` and
/// `max_bytes(n)` emit early when full unless told `.shut_down_when_full()`; `unbounded()` and
/// `.with_no_bound()` never fill.
pub(crate) fn buffer_spec(e: &Expr) -> syn::Result<BufferSpec> {
    let text = quote!(#e)
        .to_string()
        .replace(" (", "(")
        .replace(" . ", ".")
        .replace("( ", "(")
        .replace(" )", ")");
    let spec = match e {
        Expr::MethodCall(m) => {
            let mut spec = buffer_spec(&m.receiver)?;
            let arg = |n: usize| -> syn::Result<()> {
                if m.args.len() == n {
                    Ok(())
                } else {
                    Err(err_at(
                        m,
                        format!("wrong number of arguments: {BUFFER_USAGE}"),
                    ))
                }
            };
            match m.method.to_string().as_str() {
                "with_max_records" => {
                    arg(1)?;
                    spec.max_records = Some(count_arg(&m.args[0], "with_max_records")?);
                }
                "with_max_bytes" => {
                    arg(1)?;
                    spec.max_bytes = Some(count_arg(&m.args[0], "with_max_bytes")?);
                }
                "with_no_bound" => {
                    arg(0)?;
                    spec = BufferSpec::unbounded();
                }
                "emit_early_when_full" => {
                    arg(0)?;
                    spec.emit_early = true;
                }
                "shut_down_when_full" => {
                    arg(0)?;
                    spec.emit_early = false;
                }
                _ => {
                    return Err(err_at(
                        &m.method,
                        format!("unknown buffer config `{}`: {BUFFER_USAGE}", m.method),
                    ));
                }
            }
            spec
        }
        Expr::Call(c) => {
            let name = match &*c.func {
                Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let args: Vec<&Expr> = c.args.iter().collect();
            match (name.as_deref(), args.as_slice()) {
                (Some("unbounded"), []) => BufferSpec::unbounded(),
                (Some("max_records"), [n]) => BufferSpec {
                    max_records: Some(count_arg(n, "max_records")?),
                    max_bytes: None,
                    emit_early: true,
                    text: String::new(),
                },
                (Some("max_bytes"), [n]) => BufferSpec {
                    max_records: None,
                    max_bytes: Some(count_arg(n, "max_bytes")?),
                    emit_early: true,
                    text: String::new(),
                },
                _ => {
                    return Err(err_at(
                        e,
                        format!("expected a buffer config: {BUFFER_USAGE}"),
                    ));
                }
            }
        }
        _ => {
            return Err(err_at(
                e,
                format!("expected a buffer config: {BUFFER_USAGE}"),
            ));
        }
    };
    Ok(BufferSpec { text, ..spec })
}

/// A suppression's optional buffer config (as written, and parsed) and optional name.
type BufferAndName = (
    Option<(Expr, BufferSpec)>,
    Option<(String, proc_macro2::Span)>,
);

/// `(buffer)`, `("name")`, `(buffer, "name")` from argument `from` on.
fn buffer_and_name(call: &Call, from: usize, usage: &str) -> syn::Result<BufferAndName> {
    let rest = &call.args[from.min(call.args.len())..];
    match rest {
        [] => Ok((None, None)),
        [n] if is_name(n) => Ok((None, Some(name_arg(call, from, usage)?))),
        [b] => Ok((Some((b.clone(), buffer_spec(b)?)), None)),
        [b, n] if is_name(n) => Ok((
            Some((b.clone(), buffer_spec(b)?)),
            Some(name_arg(call, from + 1, usage)?),
        )),
        _ => Err(err_call(
            call,
            format!("wrong number of arguments: {usage}"),
        )),
    }
}

fn until_window_closes(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = SUPPRESS_UNTIL_WINDOW_CLOSES.usage;
    let (buffer, named) = buffer_and_name(call, 0, usage)?;
    let windows = &b.stores[t.store];
    let is_aggregate = matches!(b.nodes[t.node].kind, NodeKind::Aggregate { .. });
    if windows.window.is_none() || !is_aggregate {
        return Err(err_call(
            call,
            "suppress_until_window_closes() emits one final result per window, but this table is not the result of a windowed aggregation, so its windows never close: window the aggregation (group_by_key().windowed_by(tumbling(..)).count(..)), hold each key's updates for a time with suppress_until_time_limit(..), or remove suppress_until_window_closes()",
        ));
    }
    let limits = match buffer {
        None => BufferSpec::unbounded(),
        Some((e, spec)) if spec.emit_early => {
            return Err(err_at(
                &e,
                format!(
                    "suppress_until_window_closes(..) takes a strict buffer config (Kafka Streams' StrictBufferConfig): `{}` emits results early when the buffer is full, before their windows close, so they would not be final; add .shut_down_when_full() (the task stops when the buffer is full), use unbounded(), or use suppress_until_time_limit(..) to emit early",
                    spec.text
                ),
            ));
        }
        Some((_, spec)) => spec,
    };
    Ok(add(b, t, call, named, None, limits))
}

fn until_time_limit(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = SUPPRESS_UNTIL_TIME_LIMIT.usage;
    let Some(limit) = call.args.first() else {
        return Err(err_call(
            call,
            format!(
                "suppress_until_time_limit(..) needs the time to wait for more updates of a key: {usage}"
            ),
        ));
    };
    if is_name(limit) {
        return Err(err_at(
            limit,
            format!(
                "the first argument of suppress_until_time_limit(..) is the time limit, not the name: {usage}"
            ),
        ));
    }
    // Kafka Streams accepts a zero limit ("disables" the suppression: every update is emitted
    // at once); a Duration cannot be negative.
    let limit = duration(limit)?;
    if limit < 0 {
        return Err(err_at(&call.args[0], "the time limit cannot be negative"));
    }
    let (buffer, named) = buffer_and_name(call, 1, usage)?;
    let NodeKind::Aggregate { .. } = b.nodes[t.node].kind else {
        let limits = buffer.map_or_else(BufferSpec::unbounded, |(_, s)| s);
        return super::suppress_changes::lower(b, t, call, named, limit, limits);
    };
    let limits = buffer.map_or_else(BufferSpec::unbounded, |(_, s)| s);
    Ok(add(b, t, call, named, Some(limit), limits))
}

/// The suppression's node and its buffer store.
fn add(
    b: &mut Builder,
    t: Table,
    call: &Call,
    named: Option<(String, proc_macro2::Span)>,
    limit: Option<i64>,
    limits: BufferSpec,
) -> Flow {
    let windows = &b.stores[t.store];
    let (key, value) = (windows.key.clone(), windows.value.clone());
    let kind = NodeKind::Suppress {
        buffer: b.stores.len(),
        windows: t.store,
        limit,
        limits,
    };
    let node = push_suppression(b, kind, t.node, call, named, (key, value));
    Flow::Table(Table {
        node,
        store: t.store,
    })
}

/// Pushes suppression node `kind` after `upstream` and its buffer store, whose index `kind`
/// names (the next store's): Kafka Streams names them `<name>-suppress` and `<name>-store`
/// with a name, else `KTABLE-SUPPRESS-<n>` and `KTABLE-SUPPRESS-STATE-STORE-<n + 1>`.
pub(crate) fn push_suppression(
    b: &mut Builder,
    kind: NodeKind,
    upstream: usize,
    call: &Call,
    named: Option<(String, proc_macro2::Span)>,
    (key, value): (SerdeTy, SerdeTy),
) -> usize {
    let node = match &named {
        Some((n, _)) => b.push_node(kind, format!("{n}-suppress"), call.span, &[upstream]),
        None => b.node(kind, "KTABLE-SUPPRESS", call.span, &[upstream]),
    };
    let (name, span) = match named {
        Some((n, span)) => (format!("{n}-store"), span),
        None => (
            names::node_name("KTABLE-SUPPRESS-STATE-STORE", b.next_index()),
            call.span,
        ),
    };
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store {
        users: vec![node],
        ..Store::new(name, span, key, value, changelog, StoreOwner::Suppress)
    });
    node
}

/// The task state of each suppression: its observed stream time and buffer size, reset when
/// the task's stores are cleared or rolled back (Kafka Streams makes a new processor then).
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let dk = dk();
    let fields: Vec<_> = sub
        .nodes
        .iter()
        .filter(|&&n| {
            matches!(
                em.m.nodes[n].kind,
                NodeKind::Suppress { .. } | NodeKind::Table(TableNode::Suppress { .. })
            )
        })
        .map(|&n| state_field(n))
        .collect();
    if fields.is_empty() {
        return TaskParts::default();
    }
    // A table's suppression also keeps the bytes of the change it buffers.
    let change_fields: Vec<_> = sub
        .nodes
        .iter()
        .filter(|&&n| {
            matches!(
                em.m.nodes[n].kind,
                NodeKind::Table(TableNode::Suppress { .. })
            )
        })
        .map(|&n| super::suppress_changes::change_field(n))
        .collect();
    let reset = quote!(#(self.#fields = #dk::SuppressState::new();)*);
    TaskParts {
        fields: quote!(#(#fields: #dk::SuppressState,)* #(#change_fields: ::std::vec::Vec<u8>,)*),
        inits: quote!(#(#fields: #dk::SuppressState::new(),)* #(#change_fields: ::std::vec::Vec::new(),)*),
        clear: reset.clone(),
        discard: reset,
        ..TaskParts::default()
    }
}

pub(crate) fn state_field(node: usize) -> proc_macro2::Ident {
    format_ident!("__sup_{}", node)
}

/// The runtime's `BufferLimits` of a buffer config.
pub(crate) fn limits_expr(spec: &BufferSpec) -> TokenStream {
    let dk = dk();
    let records = spec.max_records.unwrap_or(u64::MAX);
    let bytes = spec.max_bytes.unwrap_or(u64::MAX);
    let early = spec.emit_early;
    let text = &spec.text;
    quote!(#dk::BufferLimits { max_records: #records, max_bytes: #bytes, emit_early: #early, config: #text })
}

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Suppress {
        buffer,
        windows,
        limit,
        limits,
    } = &em.m.nodes[node].kind
    else {
        return None;
    };
    Some(match limit {
        None => emit(em, node, *buffer, *windows, limits, k, v),
        Some(limit) => emit_time_limit(em, node, *buffer, *windows, *limit, limits, k, v),
    })
}

/// An aggregation's results have keys and values: no null path.
fn null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::Suppress { .. }).then(TokenStream::new)
}

/// The window-closes suppressions that follow aggregation `node`: (their buffer's store, their
/// node).
pub(crate) fn suppressions(em: &Emitter<'_>, node: usize) -> Vec<(usize, usize)> {
    em.m.nodes[node]
        .children
        .iter()
        .filter_map(|&c| match em.m.nodes[c].kind {
            NodeKind::Suppress {
                buffer,
                limit: None,
                ..
            } => Some((buffer, c)),
            _ => None,
        })
        .collect()
}

/// Drops the buffered result of the session `[__dk_s, __dk_e]` of the key whose bytes are in
/// `self.__kbuf` (a merged-away session, whose tombstone Kafka Streams' suppression takes).
pub(crate) fn drop_session(em: &Emitter<'_>, buffer: usize, suppress: usize) -> TokenStream {
    let dk = dk();
    let field = Emitter::store_field(buffer);
    let state = state_field(suppress);
    let changelog = &em.m.stores[buffer].changelog;
    let name = &em.m.nodes[suppress].name;
    quote! {
        #dk::session_key(&mut self.__kbuf, __dk_s, __dk_e);
        let __dk_dropped = #dk::buffer_put(
            &mut self.#field, &self.__kbuf, __dk_e, None, __dk_record.timestamp, &mut self.#state,
            &mut self.__win, __dk_sink, #changelog, self.__partition, #name,
        );
        self.__kbuf.truncate(__dk_klen);
        __dk_dropped?;
    }
}

/// The code that appends the window of windowed key `kr` to its key's bytes in `self.__kbuf`
/// (the window store's key layout), and the expression that splits such bytes (`__dk_sk`) into
/// (key bytes, start, end).
fn window_layout(
    em: &Emitter<'_>,
    node: usize,
    windows: usize,
    kr: &TokenStream,
) -> Option<(TokenStream, TokenStream)> {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let w = em.m.stores[windows].window?;
    let size = w.size;
    Some(match w.kind {
        WindowKind::Session => (
            quote!(#dk::session_key(&mut self.__kbuf, (#kr).window.start, (#kr).window.end);),
            quote! {
                match #dk::split_session_key(__dk_sk) {
                    Some(split) => split,
                    None => return Err(#dk::cache_key_error(#name)),
                }
            },
        ),
        _ => (
            quote!(::dekaf_streams::store::window_key(&mut self.__kbuf, (#kr).window.start);),
            quote! {
                match ::dekaf_streams::store::split_window_key(__dk_sk) {
                    Some((kb, start)) => (kb, start, start.saturating_add(#size)),
                    None => return Err(#dk::cache_key_error(#name)),
                }
            },
        ),
    })
}

/// The suppression's code for one update (windowed key `k`, aggregate `v`).
fn emit(
    em: &Emitter<'_>,
    node: usize,
    buffer: usize,
    windows: usize,
    limits: &BufferSpec,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let sp = n.span;
    let ws = &em.m.stores[windows];
    let Some(w) = ws.window else {
        return quote!();
    };
    let (kt, vt) = (&ws.key.ty, &ws.value.ty);
    let field = Emitter::store_field(buffer);
    let state = state_field(node);
    let lim = limits_expr(limits);
    let changelog = &em.m.stores[buffer].changelog;
    let close_after = w.close_after();
    let kr = k.r(sp);
    let vr = v.r(sp);
    let nk = format_ident!("__k{}", node);
    let nv = format_ident!("__v{}", node);
    let Some((layout, split)) = window_layout(em, node, windows, &kr) else {
        return quote!();
    };
    let ke = quote_spanned!(sp=> #dk::ser::<#kt>(&(#kr).key, &mut self.__kbuf, #name)?);
    let ve = quote_spanned!(sp=> #dk::ser::<#vt>(#vr, &mut self.__vbuf, #name)?);
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! {
        let __dk_ke = #ke;
        if matches!(__dk_ke, #dk::Encoded::Present) {
            #layout
            let __dk_ve = #ve;
            #dk::buffer_put(
                &mut self.#field, &self.__kbuf, (#kr).window.end, #dk::bytes(__dk_ve, &self.__vbuf),
                __dk_record.timestamp, &mut self.#state, &mut self.__win, __dk_sink, #changelog,
                self.__partition, #name,
            )?;
        }
        // Every window that ended at least its grace ago is final: forward it once (and, over
        // the buffer's limits, fail the task: its buffer config is strict).
        let __dk_limit = self.__stream_time.saturating_sub(#close_after);
        while let Some(__dk_ts) = #dk::buffer_evict_next(
            &mut self.#field, __dk_limit, &#lim, &mut self.#state, &mut self.__win, __dk_sink,
            #changelog, self.__partition, #name,
        )? {
            let #nk = {
                let __dk_sk: &[u8] = &self.__win.hi[8..];
                let (__dk_kb, __dk_start, __dk_end) = #split;
                #dk::Windowed::new(#dk::de_key::<#kt>(Some(__dk_kb), #name)?, __dk_start, __dk_end)
            };
            let #nv = #dk::de_value::<#vt>(Some(&self.__win.value[8..]), #name)?;
            let __dk_out = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
            let __dk_record = &__dk_out;
            #children
        }
    }
}

/// `suppress_until_time_limit(..)`'s code for one update (key `k`, windowed or not, aggregate
/// `v`): buffer it, then forward every key first buffered at least `limit` before the
/// suppression's stream time, and the earliest ones while the buffer is over its limits (or
/// fail the task, for `shut_down_when_full()`).
#[allow(clippy::too_many_arguments)]
fn emit_time_limit(
    em: &Emitter<'_>,
    node: usize,
    buffer: usize,
    windows: usize,
    limit: i64,
    limits: &BufferSpec,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let sp = n.span;
    let ws = &em.m.stores[windows];
    let (kt, vt) = (&ws.key.ty, &ws.value.ty);
    let field = Emitter::store_field(buffer);
    let state = state_field(node);
    let changelog = &em.m.stores[buffer].changelog;
    let kr = k.r(sp);
    let vr = v.r(sp);
    let (ke, layout, key) = match window_layout(em, node, windows, &kr) {
        Some((layout, split)) => (
            quote_spanned!(sp=> #dk::ser::<#kt>(&(#kr).key, &mut self.__kbuf, #name)?),
            layout,
            quote! {{
                let __dk_sk: &[u8] = &self.__win.hi[9..];
                let (__dk_kb, __dk_start, __dk_end) = #split;
                #dk::Windowed::new(#dk::de_key::<#kt>(Some(__dk_kb), #name)?, __dk_start, __dk_end)
            }},
        ),
        None => (
            quote_spanned!(sp=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?),
            quote!(),
            quote!(#dk::de_key::<#kt>(Some(&self.__win.hi[9..]), #name)?),
        ),
    };
    let ve = quote_spanned!(sp=> #dk::ser::<#vt>(#vr, &mut self.__vbuf, #name)?);
    let evict = evict_time_limit(em, node, buffer, windows, limit, limits, key);
    quote! {
        let __dk_ke = #ke;
        if matches!(__dk_ke, #dk::Encoded::Present) {
            #layout
            let __dk_ve = #ve;
            #dk::limit_put(
                &mut self.#field, &self.__kbuf, #dk::bytes(__dk_ve, &self.__vbuf),
                __dk_record.timestamp, &mut self.#state, &mut self.__win, __dk_sink, #changelog,
                self.__partition, #name,
            )?;
        }
        #evict
    }
}

/// Forwards every update of time-limit suppression `node` that is due (and, over the
/// buffer's limits, the earliest ones, or fails the task); `key` decodes an evicted key from
/// `self.__win.hi[9..]`. A session-windowed aggregation's buffer also holds the deletes of
/// merged-away sessions: those go as tombstones to the sinks right after `to_stream()`.
fn evict_time_limit(
    em: &Emitter<'_>,
    node: usize,
    buffer: usize,
    windows: usize,
    limit: i64,
    limits: &BufferSpec,
    key: TokenStream,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let ws = &em.m.stores[windows];
    let (kt, vt) = (&ws.key.ty, &ws.value.ty);
    let field = Emitter::store_field(buffer);
    let state = state_field(node);
    let lim = limits_expr(limits);
    let changelog = &em.m.stores[buffer].changelog;
    let nk = format_ident!("__k{}", node);
    let nv = format_ident!("__v{}", node);
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    let deletes = ws.window.is_some_and(|w| w.kind == WindowKind::Session).then(|| {
        let session = quote!(::dekaf_streams::serdes::SessionWindowed<#kt>);
        let sends = crate::ops::aggregate::session::tombstone_sinks(em, node)
            .into_iter()
            .map(|(topic, sk, _)| {
                quote! {
                    if ::core::any::TypeId::of::<#sk>() == ::core::any::TypeId::of::<#session>() {
                        // The buffer key is SessionWindowedSerializer's layout: sent as it is.
                        #dk::send(__dk_sink, #topic, #dk::TopicKind::Sink, Some(&self.__win.hi[9..]), None, __dk_ts, __dk_record.headers)?;
                    } else {
                        let __dk_wk = #key;
                        let __dk_enc = #dk::ser::<#sk>(&__dk_wk, &mut self.__vbuf, #name)?;
                        #dk::send(__dk_sink, #topic, #dk::TopicKind::Sink, #dk::bytes(__dk_enc, &self.__vbuf), None, __dk_ts, __dk_record.headers)?;
                    }
                }
            });
        quote! {
            if self.__win.value.get(8) == Some(&0) {
                #(#sends)*
                continue;
            }
        }
    });
    quote! {
        let __dk_limit = self.#state.time.saturating_sub(#limit);
        while let Some(__dk_ts) = #dk::limit_evict_next(
            &mut self.#field, __dk_limit, &#lim, &mut self.#state, &mut self.__win, __dk_sink,
            #changelog, self.__partition, #name,
        )? {
            #deletes
            let #nk = #key;
            let #nv = #dk::de_value::<#vt>(Some(&self.__win.value[9..]), #name)?;
            let __dk_out = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
            let __dk_record = &__dk_out;
            #children
        }
    }
}

/// The time-limit suppressions that follow aggregation `node`: (their buffer's store, their
/// node).
pub(crate) fn time_limit_suppressions(em: &Emitter<'_>, node: usize) -> Vec<(usize, usize)> {
    em.m.nodes[node]
        .children
        .iter()
        .filter_map(|&c| match em.m.nodes[c].kind {
            NodeKind::Suppress {
                buffer,
                limit: Some(_),
                ..
            } => Some((buffer, c)),
            _ => None,
        })
        .collect()
}

/// Buffers the delete of the merged-away session `[__dk_s, __dk_e]` of the key whose bytes are
/// in `self.__kbuf` in time-limit suppression `suppress` (stamped with the session's end, as
/// Kafka Streams forwards the session's tombstone), then forwards what is due.
pub(crate) fn buffer_session_delete(em: &Emitter<'_>, suppress: usize) -> TokenStream {
    let dk = dk();
    let NodeKind::Suppress {
        buffer,
        windows,
        limit: Some(limit),
        limits,
    } = &em.m.nodes[suppress].kind
    else {
        return quote!();
    };
    let field = Emitter::store_field(*buffer);
    let state = state_field(suppress);
    let changelog = &em.m.stores[*buffer].changelog;
    let name = &em.m.nodes[suppress].name;
    let kt = &em.m.stores[*windows].key.ty;
    let key = quote! {{
        let (__dk_kb, __dk_start, __dk_end) = match #dk::split_session_key(&self.__win.hi[9..]) {
            Some(split) => split,
            None => return Err(#dk::cache_key_error(#name)),
        };
        #dk::Windowed::new(#dk::de_key::<#kt>(Some(__dk_kb), #name)?, __dk_start, __dk_end)
    }};
    let evict = evict_time_limit(em, suppress, *buffer, *windows, *limit, limits, key);
    quote! {
        #dk::session_key(&mut self.__kbuf, __dk_s, __dk_e);
        let __dk_put = #dk::limit_put(
            &mut self.#field, &self.__kbuf, None, __dk_e, &mut self.#state, &mut self.__win,
            __dk_sink, #changelog, self.__partition, #name,
        );
        self.__kbuf.truncate(__dk_klen);
        __dk_put?;
        #evict
    }
}
