//! `suppress_until_time_limit(..)` of a table that forwards changes (a table read from a topic,
//! `to_table(..)`, their filters, mappers and joins, a re-grouped table's aggregation): Kafka
//! Streams' `KTable#suppress(Suppressed.untilTimeLimit(..))` on a table that is not an
//! aggregation's.
//!
//! As there, each key's latest change is held until the suppression's stream time (the
//! largest timestamp that reached it) passes the time the key was first buffered plus the
//! limit, then forwarded once, with the latest change's timestamp: its new value and the old
//! value of that latest change (what `KTableSuppressProcessor` evicts), so a table operator
//! after it (`filter`, `group_by`) sees the change it would have seen. Deletes are held and
//! forwarded too, also of a key whose value was never forwarded (`untilTimeLimit` does not
//! drop tombstones). The buffer is the aggregations' time-limit buffer
//! (`dekaf_streams::window::limit_put`); each entry holds both values of the change
//! (`push_change_part`).
//!
//! A suppressed table is not joined: Kafka Streams' joins would read a buffered key's value
//! from before its buffered changes, which this buffer does not keep; the macro says so.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::Emit;
use crate::args::err_call;
use crate::build::{Builder, Flow, Table};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{BufferSpec, NodeKind, TableNode};
use crate::parse::Call;

/// Lowers the suppression of changing table `t`: its node (`KTABLE-SUPPRESS-n`, or
/// `<name>-suppress`) and its buffer store.
pub(crate) fn lower(
    b: &mut Builder,
    t: Table,
    call: &Call,
    named: Option<(String, proc_macro2::Span)>,
    limit: i64,
    limits: BufferSpec,
) -> syn::Result<Flow> {
    super::changes::changing(b, t, call)?;
    if super::changes::is_result(&b.nodes[t.node].kind) {
        return Err(err_call(
            call,
            "a foreign-key join's result continues with to_stream() only: write .to_stream().to_table(\"store\", KeySerde, ValueSerde) first, then suppress_until_time_limit(..)",
        ));
    }
    let key = b.stores[t.store].key.clone();
    let Some(value) = super::changes::value_serde(b, t.node) else {
        return Err(err_call(
            call,
            "the suppression buffers the table's values, but their serde is not known here (map_values or a join made them): suppress before map_values, or write .to_stream().to_table(\"store\", KeySerde, ValueSerde) first",
        ));
    };
    let buffer = b.stores.len();
    let kind = NodeKind::Table(TableNode::Suppress {
        buffer,
        limit,
        limits,
    });
    let node = super::suppress::push_suppression(b, kind, t.node, call, named, (key, value));
    Ok(Flow::Table(Table {
        node,
        store: t.store,
    }))
}

/// Whether table `node` reads through a suppression: it is one, or a filter or mapper of one.
pub(crate) fn reads_suppression(b: &Builder, node: usize) -> bool {
    match &b.nodes[node].kind {
        NodeKind::Table(TableNode::Suppress { .. }) => true,
        NodeKind::Table(TableNode::Filter { .. } | TableNode::MapValues { .. }) => b.nodes[node]
            .parents
            .first()
            .is_some_and(|&p| reads_suppression(b, p)),
        _ => false,
    }
}

/// Why a suppressed table is not joined, and the way around.
pub(crate) const NOT_JOINED: &str = "a suppressed table is not joined here: Kafka Streams' join would read a buffered key's value from before its buffered changes, which the buffer does not keep; join before suppressing, or write .to_stream().to_table(\"store\", KeySerde, ValueSerde) after the suppression and join that";

pub(crate) const EMIT: Emit = Emit {
    record,
    ..Emit::NONE
};

/// The task field holding the bytes of the change being buffered.
pub(crate) fn change_field(node: usize) -> proc_macro2::Ident {
    format_ident!("__supbuf_{}", node)
}

/// Buffers the change (key `k`, `Change` `v`), then forwards every change that is due (and,
/// over the buffer's limits, the earliest ones, or fails the task).
fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Table(TableNode::Suppress {
        buffer,
        limit,
        limits,
    }) = &em.m.nodes[node].kind
    else {
        return None;
    };
    let dk = dk();
    let n = &em.m.nodes[node];
    let (name, sp) = (&n.name, n.span);
    let st = &em.m.stores[*buffer];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let field = Emitter::store_field(*buffer);
    let state = super::suppress::state_field(node);
    let bytes = change_field(node);
    let lim = super::suppress::limits_expr(limits);
    let changelog = &st.changelog;
    let (kr, vr) = (k.r(sp), v.r(sp));
    let (nk, nv) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    let part = |side: TokenStream| {
        quote! {
            let __dk_enc = match &__dk_change.#side {
                Some(__dk_x) => #dk::bytes(#dk::ser::<#vt>(__dk_x, &mut self.__vbuf, #name)?, &self.__vbuf),
                None => None,
            };
            #dk::push_change_part(&mut self.#bytes, __dk_enc);
        }
    };
    let (new_part, old_part) = (part(quote!(new)), part(quote!(old)));
    let decode = |part: TokenStream| {
        quote! {
            match #part {
                Some(__dk_b) => Some(#dk::de_value::<#vt>(Some(__dk_b), #name)?),
                None => None,
            }
        }
    };
    let (new, old) = (decode(quote!(__dk_nb)), decode(quote!(__dk_ob)));
    Some(quote! {
        let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
        if matches!(__dk_ke, #dk::Encoded::Present) {
            self.#bytes.clear();
            let __dk_change = #vr;
            #new_part
            #old_part
            #dk::limit_put(
                &mut self.#field, &self.__kbuf, Some(&self.#bytes), __dk_record.timestamp,
                &mut self.#state, &mut self.__win, __dk_sink, #changelog, self.__partition, #name,
            )?;
        }
        let __dk_limit = self.#state.time.saturating_sub(#limit);
        while let Some(__dk_ts) = #dk::limit_evict_next(
            &mut self.#field, __dk_limit, &#lim, &mut self.#state, &mut self.__win, __dk_sink,
            #changelog, self.__partition, #name,
        )? {
            let #nk = #dk::de_key::<#kt>(Some(&self.__win.hi[9..]), #name)?;
            let (__dk_nb, __dk_ob) = match #dk::split_change(&self.__win.value[9..]) {
                Some(parts) => parts,
                None => return Err(#dk::cache_key_error(#name)),
            };
            let #nv = #dk::Change { new: #new, old: #old };
            let __dk_out = #dk::InputRecord { timestamp: __dk_ts, ..*__dk_record };
            let __dk_record = &__dk_out;
            #children
        }
    })
}
