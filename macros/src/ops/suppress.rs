//! `suppress_until_window_closes()`: one final result per window and key, forwarded when stream
//! time passes the window's end plus its grace (plus the gap, for sessions), as Kafka Streams'
//! `suppress(Suppressed.untilWindowCloses(unbounded()))`. Its buffer is a store changelogged to
//! `<app>-KTABLE-SUPPRESS-STATE-STORE-<n>-changelog` (or `<app>-<name>-store-changelog` with a
//! name, as `Suppressed.withName`), so results survive restarts and stay exactly-once.
//!
//! The code of `suppress_until_window_closes()`: buffer the window's latest result (its bytes,
//! under window end ‖ window-store key), then forward and delete every buffered result whose
//! window closed. The buffer is in the runtime (`dekaf_streams::window`).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::{Emit, Lower, Operator};
use crate::args::{err_call, name_arg};
use crate::build::{Builder, Flow, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, Store, StoreOwner, WindowKind};
use crate::names;
use crate::parse::Call;

pub(crate) const SUPPRESS_UNTIL_WINDOW_CLOSES: Operator = Operator {
    name: "suppress_until_window_closes",
    usage: "suppress_until_window_closes() or suppress_until_window_closes(\"name\")",
    lower: &[Lower::Table(suppress)],
    on_stream: Some(
        "suppress_until_window_closes() applies to the table of a windowed aggregation: call it right after count(..), reduce(..) or aggregate(..) of windowed_by(..)",
    ),
    emit: &[EMIT],
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

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Suppress { buffer, windows } = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, *buffer, *windows, k, v))
}

/// A windowed table's results have keys and values: no null path.
fn null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::Suppress { .. }).then(TokenStream::new)
}

/// The suppressions that follow aggregation `node`: (their buffer's store, their node).
pub(crate) fn suppressions(em: &Emitter<'_>, node: usize) -> Vec<(usize, usize)> {
    em.m.nodes[node]
        .children
        .iter()
        .filter_map(|&c| match em.m.nodes[c].kind {
            NodeKind::Suppress { buffer, .. } => Some((buffer, c)),
            _ => None,
        })
        .collect()
}

/// Drops the buffered result of the session `[__dk_s, __dk_e]` of the key whose bytes are in
/// `self.__kbuf` (a merged-away session, whose tombstone Kafka Streams' suppression takes).
pub(crate) fn drop_session(em: &Emitter<'_>, buffer: usize, suppress: usize) -> TokenStream {
    let dk = dk();
    let field = Emitter::store_field(buffer);
    let changelog = &em.m.stores[buffer].changelog;
    let name = &em.m.nodes[suppress].name;
    quote! {
        #dk::session_key(&mut self.__kbuf, __dk_s, __dk_e);
        let __dk_dropped = #dk::buffer_put(
            &mut self.#field, &self.__kbuf, __dk_e, None, __dk_record.timestamp, &mut self.__win,
            __dk_sink, #changelog, self.__partition, #name,
        );
        self.__kbuf.truncate(__dk_klen);
        __dk_dropped?;
    }
}

/// The suppression's code for one update (windowed key `k`, aggregate `v`).
fn emit(
    em: &Emitter<'_>,
    node: usize,
    buffer: usize,
    windows: usize,
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
    let changelog = &em.m.stores[buffer].changelog;
    let close_after = w.close_after();
    let size = w.size;
    let kr = k.r(sp);
    let vr = v.r(sp);
    let nk = format_ident!("__k{}", node);
    let nv = format_ident!("__v{}", node);
    let layout = match w.kind {
        WindowKind::Session => {
            quote!(#dk::session_key(&mut self.__kbuf, (#kr).window.start, (#kr).window.end);)
        }
        _ => quote!(::dekaf_streams::store::window_key(&mut self.__kbuf, (#kr).window.start);),
    };
    let split = match w.kind {
        WindowKind::Session => quote! {
            match #dk::split_session_key(__dk_sk) {
                Some(split) => split,
                None => return Err(#dk::cache_key_error(#name)),
            }
        },
        _ => quote! {
            match ::dekaf_streams::store::split_window_key(__dk_sk) {
                Some((kb, start)) => (kb, start, start.saturating_add(#size)),
                None => return Err(#dk::cache_key_error(#name)),
            }
        },
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
                __dk_record.timestamp, &mut self.__win, __dk_sink, #changelog, self.__partition, #name,
            )?;
        }
        // Every window that ended at least its grace ago is final: forward it once.
        let __dk_limit = self.__stream_time.saturating_sub(#close_after);
        while let Some(__dk_ts) = #dk::buffer_evict_next(
            &mut self.#field, __dk_limit, &mut self.__win, __dk_sink, #changelog, self.__partition, #name,
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
