//! Global tables: `global_table("topic", K, V)` (or with a store name as fourth argument) and a
//! stream's `join(global, |key, value| global_key, |value, global_value| joined)` /
//! `left_join(..)` with it, as Kafka Streams' `StreamsBuilder#globalTable` and
//! `KStream#join(GlobalKTable, KeyValueMapper, ValueJoiner)` build them.
//!
//! A global table is no node of any subtopology: every instance reads its topic in full into
//! one store its tasks share (`dekaf_streams::task::GlobalStores`), so the joining stream needs
//! no co-partitioning and may have changed its key. Names follow
//! `InternalStreamsBuilder#globalTable`: the store takes the builder's next index
//! (`<topic>-STATE-STORE-0000000000`, the prefix `StreamsBuilder` gives it), then the source
//! (`KSTREAM-SOURCE-..`) and the table's processor (`KTABLE-SOURCE-..`) the two after it; the
//! join, inner or left, is `KSTREAM-LEFTJOIN-..`
//! (`KStreamImpl#doGlobalTableJoinWithStreamAndMappedKey` names both so) and lists no store, as
//! Kafka Streams does not connect global stores to processors.
//!
//! A lookup follows `KStreamKTableJoinProcessor`: a mapped key that serializes to null finds
//! nothing (an inner join drops the record, a left join joins it with `None`); an inner join
//! forwards only when the table has the key, a left join always.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::{Emit, Lower, Operator};
use crate::args::{arity, err_at, joiner_with_key, takes_key};
use crate::build::{Builder, Flow, Stream};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::codegen::parts::TaskParts;
pub(crate) use crate::ir::joins::{GlobalJoin, GlobalTable};
use crate::ir::{Model, NodeKind, Sub};
use crate::names;
use crate::parse::Call;

pub(crate) const GLOBAL_TABLE: Operator = Operator {
    name: "global_table",
    usage: "global_table(\"topic\", KeySerde, ValueSerde) or global_table(\"topic\", KeySerde, ValueSerde, \"store\")",
    lower: &[Lower::Root(global_table)],
    on_stream: None,
    emit: &[EMIT],
};

fn global_table(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    let super::sources::TableArgs {
        topic,
        key,
        value,
        store,
        reset,
        ..
    } = super::sources::table_args(b, call, GLOBAL_TABLE.usage)?;
    if let Some((_, option)) = reset {
        return Err(crate::args::err_at(
            option,
            "a global table reads its topic from the beginning at every start, whatever the offset reset (Kafka Streams ignores a Consumed offset reset on a global table): remove offset_reset(..)",
        ));
    }
    // An unnamed store takes an index first (`MaterializedInternal` generates its name), then
    // the source and the processor take one each; a named store
    // (`Materialized.as("store")`) takes none.
    let store = match store {
        Some((name, _)) => name,
        None => format!(
            "{topic}-{}",
            names::node_name("STATE-STORE", b.reserve_index())
        ),
    };
    let (source_index, processor_index) = (b.reserve_index(), b.reserve_index());
    let after_nodes = b.nodes.len();
    b.globals.push(GlobalTable {
        topic,
        key,
        value,
        store,
        source: names::node_name("KSTREAM-SOURCE", source_index),
        processor: names::node_name("KTABLE-SOURCE", processor_index),
        users: Vec::new(),
        after_nodes,
        protocol_id: 0,
    });
    Ok(Flow::Global(b.globals.len() - 1))
}

/// The error for a global table used as a stream or a table (`g.map(..)`).
pub(crate) fn not_a_stream(b: &Builder, g: usize, call: &Call) -> syn::Error {
    let t = &b.globals[g];
    err_at(
        &call.name,
        format!(
            "a global table is not a stream: it has no `{}`. Join a stream with it (`s.join(global, |key, value| global_key, |value, global_value| ..)` or `left_join`), or read topic \"{}\" with stream(..) or table(..) to process it",
            call.name, t.topic
        ),
    )
}

/// `s.join(global, |k, v| global_key, |v, g| joined)` and `left_join`.
pub(crate) fn lower_join(
    b: &mut Builder,
    s: Stream,
    g: usize,
    name: &syn::Ident,
    call: &Call,
    left: bool,
) -> syn::Result<Flow> {
    let op = if left { "left_join" } else { "join" };
    let usage = format!(
        "{op}({name}, |key, value| global_key, |value, global_value{}| joined)",
        if left { ": Option<_>" } else { "" }
    );
    if call.args.len() == 2 {
        return Err(err_at(
            &call.name,
            format!(
                "`{name}` is a global table: a stream joins it by the key a key mapper picks from each record; write `s.{op}({name}, |key, value| global_key, |value, global_value| ..)`"
            ),
        ));
    }
    arity(call, 3, &usage)?;
    joiner_with_key(
        &call.args[2],
        &format!(
            "{op}({name}, |key, value| global_key, |value, global_value| joined) or |key, value, global_value| joined"
        ),
    )?;
    if s.window.is_some() {
        return Err(err_at(
            &call.name,
            "a stream with windowed keys cannot join a global table: join before windowing, or map the windowed key to the table's key",
        ));
    }
    // Kafka Streams names both joins with a global table `KSTREAM-LEFTJOIN-`
    // (`KStreamImpl#doGlobalTableJoinWithStreamAndMappedKey`).
    let node = b.node(
        NodeKind::GlobalJoin(Box::new(GlobalJoin {
            global: g,
            key_mapper: call.args[1].clone(),
            f: call.args[2].clone(),
            left,
        })),
        "KSTREAM-LEFTJOIN",
        call.span,
        &[s.node],
    );
    b.globals[g].users.push(node);
    Ok(Flow::Stream(Stream {
        node,
        value: None,
        ..s
    }))
}

/// The task's field holding global table `g`'s store.
pub(crate) fn field(g: usize) -> syn::Ident {
    format_ident!("__global_{}", g)
}

/// The global tables a subtopology's joins read.
pub(crate) fn used_by(m: &Model, sub: &Sub) -> Vec<usize> {
    let mut out: Vec<usize> = m
        .globals
        .iter()
        .enumerate()
        .filter(|(_, t)| t.users.iter().any(|&u| m.nodes[u].sub == sub.id))
        .map(|(i, _)| i)
        .collect();
    out.dedup();
    out
}

/// A subtopology's global store fields, their initial values, and its `attach_global_stores`.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let dk = dk();
    let m = em.m;
    let used = used_by(m, sub);
    if used.is_empty() {
        return TaskParts::default();
    }
    let fields: Vec<_> = used.iter().map(|&g| field(g)).collect();
    let stores: Vec<&str> = used.iter().map(|&g| m.globals[g].store.as_str()).collect();
    TaskParts {
        fields: quote!(#(#fields: #dk::GlobalStore,)*),
        inits: quote!(#(#fields: #dk::GlobalStore::new(),)*),
        trait_items: quote! {
            fn attach_global_stores(&mut self, __dk_globals: &#dk::GlobalStores) {
                #(
                    if let Some(__dk_s) = __dk_globals.store(#stores) {
                        self.#fields = __dk_s.clone();
                    }
                )*
            }
        },
        ..TaskParts::default()
    }
}

/// `const GLOBAL_TABLES`, for the `Topology` impl.
pub(crate) fn infos(m: &Model) -> TokenStream {
    let dk = dk();
    if m.globals.is_empty() {
        return quote!();
    }
    let tables = m.globals.iter().map(|t| {
        let (topic, store) = (&t.topic, &t.store);
        quote!(#dk::GlobalTableInfo { topic: #topic, store: #store })
    });
    quote!(const GLOBAL_TABLES: &'static [#dk::GlobalTableInfo] = &[#(#tables),*];)
}

/// The code of the joins with global tables.
const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::GlobalJoin(j) = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, j, k, v))
}

/// A null key would go to the key mapper: the record fails. A null value is dropped
/// (`KStreamKTableJoinProcessor`).
fn null(em: &Emitter<'_>, node: usize, k: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::GlobalJoin(_) = &em.m.nodes[node].kind else {
        return None;
    };
    Some(if k.is_null() {
        em.null_fails(node, "the key mapper of a global-table join", k)
    } else {
        quote!(self.__dropped += 1;)
    })
}

/// The join: the key mapper, the lookup in the shared store, the joiner and the children.
fn emit(em: &Emitter<'_>, node: usize, j: &GlobalJoin, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let t = &em.m.globals[j.global];
    let (kt, vt) = (&t.key.ty, &t.value.ty);
    let field = field(j.global);
    let nv = format_ident!("__v{}", node);
    let (kr, vr) = (k.r(sp), v.r(sp));
    let km = &j.key_mapper;
    let f = &j.f;
    let mapped = quote_spanned!(sp=> #dk::global_key(#kr, #vr, #km));
    let ke = quote_spanned!(t.key.span=> #dk::ser::<#kt>(&__dk_gk, &mut self.__kbuf, #name)?);
    let lookup = quote! {
        let __dk_gk = #mapped;
        let __dk_tv = match #ke {
            #dk::Encoded::Present => #dk::global_get::<#vt>(&self.#field, &self.__kbuf, #name)?,
            #dk::Encoded::Null => None,
        };
    };
    let vo = v.o(sp);
    let children = em.children(node, k, &Acc::owned(nv.clone()));
    let with_key = takes_key(f);
    if j.left {
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

/// The `describe()` lines of the global tables whose ids are in `ids`, as Kafka Streams prints
/// a global store's subtopology.
pub(crate) fn describe(m: &Model, ids: std::ops::Range<usize>, out: &mut String) {
    for t in m.globals.iter().filter(|t| ids.contains(&t.protocol_id)) {
        let id = t.protocol_id;
        out.push_str(&format!(
            "   Sub-topology: {id} for global store (will not generate tasks)\n    Source: {src} (topics: [{topic}])\n      --> {proc}\n    Processor: {proc} (stores: [{store}])\n      --> none\n      <-- {src}\n\n",
            src = t.source,
            proc = t.processor,
            topic = t.topic,
            store = t.store,
        ));
    }
}
