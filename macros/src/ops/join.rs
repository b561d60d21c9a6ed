//! Stream-table joins: `join(table, f)` emits when the table has the record's key,
//! `left_join(table, f)` for every record (`f` gets an `Option`). The stream must be
//! partitioned like the table (same key, no key change since its source), so the two are
//! copartitioned and run in one task. With a stream as first argument, `join` and `left_join`
//! are windowed stream-stream joins ([`super::stream_join`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;

use super::{Emit, Lower, Operator};
use crate::args::{arity, bound_name_arg, err, err_at, joiner_with_key, takes_key};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{JoinKind, NodeKind};
use crate::parse::Call;

pub(crate) const JOIN: Operator = Operator {
    name: "join",
    usage: "join(table, |value, table_value| joined) (with grace(Duration::..) as a third argument for a versioned table) or join(stream, |value, other_value| joined, join_window(..)), the joiner optionally taking the key first: |key, value, other_value| joined",
    lower: &[Lower::Stream(join), Lower::Table(super::table_join::join)],
    on_stream: None,
    emit: &[
        EMIT,
        super::stream_join::emit::EMIT,
        super::table_join::EMIT,
    ],
};

pub(crate) const LEFT_JOIN: Operator = Operator {
    name: "left_join",
    usage: "left_join(table, |value, table_value| joined) (with grace(Duration::..) as a third argument for a versioned table) or left_join(stream, |value, other_value| joined, join_window(..)), the joiner optionally taking the key first: |key, value, other_value| joined",
    lower: &[
        Lower::Stream(left_join),
        Lower::Table(super::table_join::left_join),
    ],
    on_stream: None,
    emit: &[
        EMIT,
        super::stream_join::emit::EMIT,
        super::table_join::EMIT,
    ],
};

fn join(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, false)
}

fn left_join(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    lower(b, s, call, true)
}

fn lower(b: &mut Builder, s: Stream, call: &Call, left: bool) -> syn::Result<Flow> {
    let op = if left { LEFT_JOIN.name } else { JOIN.name };
    let name = bound_name_arg(
        call,
        0,
        &format!(
            "{op}(..) takes a table or a stream bound by `let`: `let t = table(..);` then `s.{op}(t, ..)`"
        ),
    )?;
    // A stream joins a global table by a mapped key.
    if let Some(Flow::Global(g)) = b.lookup(name) {
        return super::global_table::lower_join(b, s, g, name, call, left);
    }
    // A stream joins a stream over a join window; a table by key.
    if let Some(Flow::Stream(other)) = b.lookup(name) {
        let kind = if left {
            JoinKind::Left
        } else {
            JoinKind::Inner
        };
        return super::stream_join::lower(b, s, other, name, call, kind);
    }
    let grace = match call.args.get(2).map(|a| (a, super::join_grace::parse(a))) {
        Some((_, Some(grace))) if call.args.len() == 3 => Some(grace?),
        Some((arg, _)) if call.args.len() == 3 => {
            return Err(err_at(
                arg,
                format!(
                    "a stream-table join has no join window (the table holds the latest value per key): write `s.{op}({name}, |value, table_value| ..)`, with grace(Duration::..) as a third argument for a versioned table, or read `{name}` with stream(..) for a windowed stream-stream join"
                ),
            ));
        }
        _ => {
            arity(call, 2, if left { LEFT_JOIN.usage } else { JOIN.usage })?;
            None
        }
    };
    let Some(crate::build::Table { node: tnode, store }) =
        b.bound_table(name, "a stream joins a table, a stream or a global table")?
    else {
        return Ok(Flow::Broken);
    };
    if crate::ops::fk_join::is_result(&b.nodes[tnode].kind)
        || matches!(
            b.nodes[tnode].kind,
            NodeKind::Table(
                crate::ops::table::TableNode::Filter { .. }
                    | crate::ops::table::TableNode::MapValues { .. }
                    | crate::ops::table::TableNode::JoinMerge
                    | crate::ops::table::TableNode::Suppress { .. }
            )
        )
    {
        return Err(err_at(
            name,
            format!(
                "`{name}` is a filtered, mapped, joined or suppressed table without a store of its own: a stream joins a table's store; materialize it first (`{name}.to_stream().to_table(\"store\")`)"
            ),
        ));
    }
    let tstore = b.stores[store].clone();
    if tstore.window.is_some() {
        return Err(err_at(
            name,
            format!("`{name}` is a windowed table: a stream can only join a table with plain keys"),
        ));
    }
    if let Some(k) = &s.key
        && let (Some(a), Some(bk)) = (k.builtin_value(), tstore.key.builtin_value())
        && a != bk
    {
        let mut e = err_at(
            &call.name,
            format!(
                "the stream's keys are {a} (serde `{}`) but the table `{name}` has {bk} keys (serde `{}`): join needs equal key types; re-key the stream with select_key(..) and repartition it, or read the table with the stream's key serde",
                k.text(),
                tstore.key.text()
            ),
        );
        e.combine(err(tstore.key.span, "the table's key serde"));
        return Err(e);
    }
    if s.key_changed {
        return Err(err_at(
            &call.name,
            format!(
                "the key changed upstream (map, select_key, flat_map), so the stream is not partitioned like table `{name}`: repartition it first with .repartition(\"name\", KeySerde, ValueSerde), or join before changing the key"
            ),
        ));
    }
    if s.window.is_some() {
        return Err(err_at(
            &call.name,
            "a stream with windowed keys cannot join a table",
        ));
    }
    let f = call.args[1].clone();
    joiner_with_key(&f, if left { LEFT_JOIN.usage } else { JOIN.usage })?;
    let grace = match grace {
        Some(g) => Some(Box::new(super::join_grace::add(
            b,
            &s,
            store,
            name,
            &call.args[2],
            g,
        )?)),
        None => None,
    };
    let kind_name = if left {
        "KSTREAM-LEFTJOIN"
    } else {
        "KSTREAM-JOIN"
    };
    let node = b.node(
        NodeKind::Join {
            store,
            f,
            left,
            grace,
        },
        kind_name,
        call.span,
        &[s.node],
    );
    super::join_grace::add_buffer(b, node);
    b.stores[store].users.push(node);
    b.joins.push((node, tnode));
    Ok(Flow::Stream(Stream {
        node,
        value: None,
        ..s
    }))
}

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::Join {
        store,
        f,
        left,
        grace,
    } = &em.m.nodes[node].kind
    else {
        return None;
    };
    Some(match grace {
        Some(g) => super::join_grace::record(em, node, g, k, v),
        None => emit(em, node, *store, f, *left, k, v),
    })
}

/// KIP-962: a left join forwards a record with a null key, joined with no table value; the
/// other records with a null part are dropped.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let NodeKind::Join { f, left, store, .. } = &n.kind else {
        return None;
    };
    Some(match (k, v, left) {
        // A joiner that takes the key cannot take a missing one.
        (Part::Null, Part::Val(_), true) if takes_key(f) => em.null_fails(node, "left_join", k),
        (Part::Null, Part::Val(va), true) => {
            let sp = n.span;
            let nv = format_ident!("__v{}", node);
            let vo = va.o(sp);
            // Typed: the closure's parameter types are inferred from it.
            let tt = &em.m.stores[*store].value.ty;
            let call = quote_spanned!(sp=> #dk::left_join(#vo, ::core::option::Option::None::<<#tt as #dk::Serde>::Value>, #f));
            let children = em.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
            quote! { let #nv = #call; #children }
        }
        _ => quote!(self.__dropped += 1;),
    })
}

/// The table lookup by the serialized key, then `join`/`left_join` and the children.
pub(crate) fn emit(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    f: &Expr,
    left: bool,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let nv = format_ident!("__v{}", node);
    let st = &em.m.stores[store];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let field = Emitter::store_field(store);
    let kr = k.r(sp);
    let vo = v.o(sp);
    let ke = quote_spanned!(sp=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?);
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    // The result carries the stream record's timestamp (`KStreamKTableJoinProcessor`), so a
    // table's stored timestamp is not needed.
    let get = if st.versioned.is_some() {
        // A versioned table is read as of the stream record's timestamp (KIP-914).
        let history = Emitter::history_field(store);
        quote!(#dk::get_as_of::<#vt, _>(&self.#field, &self.#history, &self.__kbuf, __dk_record.timestamp, #name)?.map(|(__dk_x, _)| __dk_x))
    } else if em.m.timestamped(store) {
        quote!(#dk::get_timestamped::<#vt, _>(&self.#field, &self.__kbuf, #name)?.map(|(__dk_x, _)| __dk_x))
    } else {
        quote!(#dk::store_get::<#vt, _>(&self.#field, &self.__kbuf, #name)?)
    };
    let lookup = quote! {
        let __dk_ke = #ke;
        let __dk_tv = if matches!(__dk_ke, #dk::Encoded::Present) {
            #get
        } else {
            None
        };
    };
    let with_key = takes_key(f);
    if left {
        let call = if with_key {
            quote_spanned!(sp=> #dk::left_join_with_key(#kr, #vo, __dk_tv, #f))
        } else {
            quote_spanned!(sp=> #dk::left_join(#vo, __dk_tv, #f))
        };
        quote! { #lookup let #nv = #call; #children }
    } else {
        let call = if with_key {
            quote_spanned!(sp=> #dk::join_with_key(#kr, #vo, __dk_tv, #f))
        } else {
            quote_spanned!(sp=> #dk::join(#vo, __dk_tv, #f))
        };
        quote! { #lookup if let Some(__dk_tv) = __dk_tv { let #nv = #call; #children } }
    }
}
