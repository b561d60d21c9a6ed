//! Table operations, with Kafka Streams' `KTable` semantics: `filter`/`filter_not`
//! (`KTABLE-FILTER-n`), `map_values` (`KTABLE-MAPVALUES-n`), `to_stream()` forwarding deletes as
//! tombstones, and `to_table("store")` on a stream (`KSTREAM-TOTABLE-n`).
//!
//! Between table operators a record is a change ([`dekaf_streams::__private::Change`]): the
//! key's new value and its old one. Tables are materialized where they start (`table(..)` and
//! `to_table(..)` keep a store), so, as Kafka Streams does for a materialized parent
//! (`KTableFilter`'s constructor asks `parent.enableSendingOldValues(false)`), old values are
//! sent: a filter maps both values and drops the change when both come out absent, so a
//! filtered-out key forwards a tombstone only if it had been forwarded. `filter` and
//! `map_values` are not materialized (as in Kafka Streams without `Materialized`): a join
//! reads them through their parent's store ([`super::table_join`]'s value getters).
//!
//! A table source's store is named, as with Kafka Streams' `Materialized.as`, and so cached as
//! Kafka Streams caches it (so are `to_table(..)` and a re-grouped table's aggregation,
//! [`super::table_group`]): with the record cache on, a record updates the store (and its
//! changelog) and marks its key dirty, and the cache's flush ([`super::aggregate::cache`])
//! forwards one change per key, from its value at the previous flush (which the cache keeps) to
//! its latest. The downstream code is one method, `__changed_N`, for both paths.
//!
//! The tables of aggregations (`count`, `reduce`, `aggregate`) forward plain results (with the
//! record cache), not changes: table operations on them are refused with the way around.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Type;

use crate::args::{err_at, name_arg, serde_arg};
use crate::build::{Builder, Flow, Stream, Table};
use crate::codegen::emitter::{Acc, Emitter, Part, dk};
use crate::ir::{NodeKind, Store, StoreOwner};
use crate::parse::Call;

use super::changes::needs_old;
use super::{Emit, Lower, Operator};
pub(crate) use crate::ir::table::TableNode;

pub(crate) const TO_TABLE: Operator = Operator {
    name: "to_table",
    usage: "to_table(\"store\") or to_table(\"store\", KeySerde, ValueSerde)",
    lower: &[Lower::Stream(to_table)],
    on_stream: None,
    emit: &[EMIT],
};

fn to_table(b: &mut Builder, s: Stream, call: &Call) -> syn::Result<Flow> {
    let usage = TO_TABLE.usage;
    let (name, span) = name_arg(call, 0, usage)?;
    let (key, value) = match call.args.len() {
        1 => {
            let (Some(k), Some(v)) = (s.key.clone(), s.value.clone()) else {
                return Err(err_at(
                    &call.name,
                    format!(
                        "the stream's key or value serde is not known here (an operator changed them), and the table's store needs both: write to_table(\"{name}\", KeySerde, ValueSerde)"
                    ),
                ));
            };
            (k, v)
        }
        3 => {
            let (k, v) = (serde_arg(call, 1, usage)?, serde_arg(call, 2, usage)?);
            b.check_key_serde(&s, &k);
            b.check_value_serde(&s, &v);
            (k, v)
        }
        _ => {
            return Err(err_at(
                &call.name,
                format!("wrong number of arguments: {usage}"),
            ));
        }
    };
    if s.window.is_some() {
        return Err(err_at(
            &call.name,
            "to_table(..) keeps one value per key, but this stream's keys are windowed: map them to plain keys first",
        ));
    }
    if s.key_changed {
        // Kafka Streams' toTable repartitions by itself here; the topology asks for it, so the
        // repartition topic has a name of the user's choosing.
        return Err(err_at(
            &call.name,
            format!(
                "the key changed upstream (map, select_key, flat_map), so the stream is not partitioned by its key: repartition it first with .repartition(\"name\", KeySerde, ValueSerde), then to_table(\"{name}\")"
            ),
        ));
    }
    let store = b.stores.len();
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store::new(
        name,
        span,
        key,
        value,
        changelog,
        StoreOwner::Aggregate,
    ));
    let node = b.node(
        NodeKind::Table(TableNode::ToTable { store }),
        "KSTREAM-TOTABLE",
        call.span,
        &[s.node],
    );
    b.stores[store].users.push(node);
    Ok(Flow::Table(Table { node, store }))
}

/// The value type of the store behind a table source or `to_table`.
fn store_types(em: &Emitter<'_>, store: usize) -> (Type, Type) {
    let st = &em.m.stores[store];
    (st.key.ty.clone(), st.value.ty.clone())
}

/// Whether table source `node` is cached (when the record cache is on): whenever something
/// reads its changes. Its store is named (the topic's name or the one given), as a Kafka Streams
/// table with `Materialized.as(..)`, which Kafka Streams materializes with a caching store.
pub(crate) fn cached(em: &Emitter<'_>, node: usize) -> bool {
    let n = &em.m.nodes[node];
    changes_store(&n.kind).is_some() && !n.children.is_empty()
}

/// The store of a node that keeps a table's timestamped values and forwards its changes, and so
/// may be cached: a table source, `to_table(..)`, a re-grouped table's aggregation.
pub(crate) fn changes_store(kind: &NodeKind) -> Option<usize> {
    match kind {
        NodeKind::TableSource { store, .. }
        | NodeKind::Table(TableNode::ToTable { store } | TableNode::Aggregate { store, .. }) => {
            Some(*store)
        }
        _ => None,
    }
}

/// A table source: the record is applied to the store (a null value deletes the key) and
/// forwarded as a change, its old value read first where downstream needs it. As Kafka
/// Streams' `KTableSource`, a delete of an absent key is forwarded too. With the record cache
/// on, the record only updates the store and marks its key dirty; the flush forwards the
/// key's change (`__forward_N`, [`forward_methods`]).
fn emit_source(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::TableSource {
        store,
        key,
        value,
        topic,
        ..
    } = &n.kind
    else {
        return quote!();
    };
    let (kt, vt) = (&key.ty, &value.ty);
    let field = Emitter::store_field(*store);
    let key_bytes = quote! {
        // A table record without a key cannot be stored: Kafka Streams drops it too.
        let __dk_kb = match __dk_record.key {
            Some(b) => b,
            None => {
                self.__dropped += 1;
                return Ok(());
            }
        };
    };
    // Decoded where nothing else decodes the record, so a record that does not deserialize fails
    // at its source, as in Kafka Streams (with a cache: not at the flush).
    let check = quote! {
        let _ = #dk::de_key_at::<#kt>(#topic, Some(__dk_kb), #name)?;
        if let Some(__dk_vb) = __dk_record.value {
            let _ = #dk::de_value_at::<#vt>(#topic, Some(__dk_vb), #name)?;
        }
    };
    // A versioned table forwards every put but an expired one (dropped, counted), marked latest
    // or not (Kafka Streams' `KTableSource` on a versioned store).
    let put = match em.m.stores[*store].versioned {
        Some(_) => {
            let history = Emitter::history_field(*store);
            quote! {
                let __dk_put = #dk::versioned_put(&mut self.#field, &mut self.#history, __dk_kb, __dk_record.value, __dk_record.timestamp, &mut self.__vbuf, #name)?;
                if __dk_put == #dk::PutOutcome::Expired {
                    self.__dropped += 1;
                    return Ok(());
                }
                self.__latest = __dk_put == #dk::PutOutcome::Latest;
            }
        }
        None => quote! {
            #dk::source_put(&mut self.#field, __dk_kb, __dk_record.value, __dk_record.timestamp, &mut self.__vbuf, #name)?;
        },
    };
    if n.children.is_empty() {
        return quote! {
            #key_bytes
            #check
            #put
        };
    }
    let want_old = needs_old(em, node);
    let old = if want_old {
        quote!(#dk::get_timestamped::<#vt, _>(&self.#field, __dk_kb, #name)?.map(|(__dk_x, _)| __dk_x))
    } else {
        quote!(None)
    };
    let cache = Emitter::cache_field(node);
    let cache_on = cached_on(em, node, *store);
    let changed = format_ident!("__changed_{}", node);
    quote! {
        #key_bytes
        if #cache_on {
            #check
            return #dk::cached_source_put(
                &mut self.#field, &mut self.#cache, __dk_record, __dk_kb, #want_old,
                &mut self.__vbuf, &mut self.__obuf, #name,
            );
        }
        let __dk_k = #dk::de_key_at::<#kt>(#topic, Some(__dk_kb), #name)?;
        let __dk_old: Option<<#vt as #dk::Serde>::Value> = #old;
        let __dk_new = match __dk_record.value {
            None => None,
            Some(__dk_vb) => Some(#dk::de_value_at::<#vt>(#topic, Some(__dk_vb), #name)?),
        };
        // Stored with the record's timestamp, as Kafka Streams' timestamped store keeps it.
        #put
        self.#changed(__dk_record, __dk_k, #dk::Change { new: __dk_new, old: __dk_old }, __dk_sink)?;
    }
}

/// The condition under which cached table node `node` (of `store`) sends its updates to the
/// record cache; `false` for a node without children (nothing to forward, no cache field).
pub(crate) fn cached_on(em: &Emitter<'_>, node: usize, store: usize) -> TokenStream {
    if cached(em, node) {
        super::aggregate::cache::enabled(em, store)
    } else {
        quote!(false)
    }
}

/// The cached path of table node `node` (of `store`): what the store holds under the key in
/// `__kbuf` before `update` is read for the cache (its bytes kept when downstream needs old
/// values), `update` writes the store and changelog, then the key is marked dirty with
/// `value_len` bytes and `timestamp`. The change is forwarded by the cache's flush.
pub(crate) fn cached_update(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    update: TokenStream,
    value_len: TokenStream,
    timestamp: TokenStream,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let field = Emitter::store_field(store);
    let cache = Emitter::cache_field(node);
    let want_old = needs_old(em, node);
    quote! {
        let __dk_prior = #dk::cache_prior(&self.#field, &self.#cache, &self.__kbuf, #want_old, &mut self.__obuf, #name)?;
        #update
        #dk::cache_mark(&mut self.#cache, &self.__kbuf, __dk_prior, &self.__obuf, #value_len, __dk_record, #timestamp);
    }
}

/// The call of `__changed_N` ([`forward_methods`]) on key `k` and change `v` with record
/// `record`: the downstream code of a cached table node, once in the task.
pub(crate) fn changed_call(
    em: &Emitter<'_>,
    node: usize,
    k: &Acc,
    v: &Acc,
    record: TokenStream,
) -> TokenStream {
    let n = &em.m.nodes[node];
    if n.children.is_empty() {
        return quote!();
    }
    let changed = format_ident!("__changed_{}", node);
    let (ko, vo) = (k.o(n.span), v.o(n.span));
    quote!(self.#changed(#record, #ko, #vo, __dk_sink)?;)
}

/// The methods of a cached table node ([`cached`]): `__changed_N` (its downstream code on one
/// change, for the record without a cache and for the flush) and `__forward_N` (the flush's:
/// the change of one dirty key, from its stored value and the old value the cache kept).
pub(crate) fn forward_methods(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let Some(store) = changes_store(&n.kind) else {
        return quote!();
    };
    let (kt, vt) = store_types(em, store);
    let (k, v) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let children = em.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
    let changed = format_ident!("__changed_{}", node);
    let forward = format_ident!("__forward_{}", node);
    quote! {
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn #changed<S: #dk::RecordSink>(
            &mut self,
            __dk_record: &#dk::InputRecord<'_>,
            #k: <#kt as #dk::Serde>::Value,
            #v: #dk::Change<<#vt as #dk::Serde>::Value>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::RecordError> {
            #children
            Ok(())
        }

        #[allow(clippy::all)]
        #[inline]
        fn #forward<S: #dk::RecordSink>(
            &mut self,
            __dk_record: &#dk::InputRecord<'_>,
            __dk_old: Option<&[u8]>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::RecordError> {
            let __dk_k = #dk::de_key::<#kt>(__dk_record.key, #name)?;
            let __dk_new = match __dk_record.value {
                None => None,
                Some(__dk_vb) => Some(#dk::de_value::<#vt>(Some(__dk_vb), #name)?),
            };
            let __dk_old = match __dk_old {
                None => None,
                Some(__dk_ob) => Some(#dk::de_value::<#vt>(Some(__dk_ob), #name)?),
            };
            self.#changed(__dk_record, __dk_k, #dk::Change { new: __dk_new, old: __dk_old }, __dk_sink)
        }
    }
}

const EMIT: Emit = Emit {
    record,
    null,
    ..Emit::NONE
};

/// The code of a table read from its topic (the `table(..)` source).
pub(crate) const SOURCE_EMIT: Emit = Emit {
    source,
    null: no_source_null,
    ..Emit::NONE
};

fn source(em: &Emitter<'_>, node: usize, _: &str) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::TableSource { .. }).then(|| emit_source(em, node))
}

fn no_source_null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    matches!(em.m.nodes[node].kind, NodeKind::TableSource { .. }).then(TokenStream::new)
}

/// `to_table(..)`: the record is written to the store and forwarded as a change.
fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::Table(TableNode::ToTable { store }) = &n.kind else {
        return None;
    };
    let nv = format_ident!("__v{}", node);
    let out = Acc::owned(nv.clone());
    Some({
        let (kt, vt) = store_types(em, *store);
        let st = &em.m.stores[*store];
        let changelog = &st.changelog;
        let field = Emitter::store_field(*store);
        let kr = k.r(st.key.span);
        let vo = v.o(st.value.span);
        if st.versioned.is_some() {
            return Some(versioned_to_table(em, node, *store, k, quote!(Some(#vo))));
        }
        let want_old = needs_old(em, node);
        let changed = changed_call(em, node, k, &out, quote!(__dk_record));
        let cache_on = cached_on(em, node, *store);
        let cached = cached_update(
            em,
            node,
            *store,
            quote! {
                let _ = #dk::table_put::<#vt, _, _>(
                    &mut self.#field, &self.__kbuf, #vo, false, &mut self.__vbuf, __dk_sink,
                    #changelog, self.__partition, __dk_record.timestamp, #name,
                )?;
            },
            quote!(self.__vbuf.len()),
            quote!(__dk_record.timestamp),
        );
        quote! {
            // Records whose key serializes to null are dropped, as Kafka Streams does.
            let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
            if matches!(__dk_ke, #dk::Encoded::Present) {
                if #cache_on {
                    #cached
                } else {
                    let #nv = #dk::table_put::<#vt, _, _>(
                        &mut self.#field, &self.__kbuf, #vo, #want_old, &mut self.__vbuf, __dk_sink,
                        #changelog, self.__partition, __dk_record.timestamp, #name,
                    )?;
                    #changed
                }
            } else {
                self.__dropped += 1;
            }
        }
    })
}

/// `to_table(..)` into a versioned table: key `k` and `value` (an
/// `Option` of the owned value) put at the record's timestamp, the change forwarded unless the
/// put expired (`versioned_table_put`), marked latest or not.
fn versioned_to_table(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    k: &Acc,
    value: TokenStream,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let st = &em.m.stores[store];
    let (kt, vt) = (&st.key.ty, &st.value.ty);
    let changelog = &st.changelog;
    let field = Emitter::store_field(store);
    let history = Emitter::history_field(store);
    let want_old = needs_old(em, node);
    let kr = k.r(st.key.span);
    let nv = format_ident!("__v{}", node);
    let changed = changed_call(em, node, k, &Acc::owned(nv.clone()), quote!(__dk_record));
    quote! {
        let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
        if matches!(__dk_ke, #dk::Encoded::Present) {
            let (#nv, __dk_put) = #dk::versioned_table_put::<#vt, _, _>(
                &mut self.#field, &mut self.#history, &self.__kbuf, #value, #want_old,
                &mut self.__vbuf, &mut self.__hbuf, __dk_sink,
                #changelog, self.__partition, __dk_record.timestamp, #name,
            )?;
            if __dk_put == #dk::PutOutcome::Expired {
                self.__dropped += 1;
            } else {
                self.__latest = __dk_put == #dk::PutOutcome::Latest;
                #changed
            }
        } else {
            self.__dropped += 1;
        }
    }
}

/// `KStreamToTable` (a `KTableSource`): a null value deletes the key; a null key is dropped.
fn null(em: &Emitter<'_>, node: usize, k: &Part, v: &Part) -> Option<TokenStream> {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::Table(TableNode::ToTable { store }) = &n.kind else {
        return None;
    };
    Some(match (k, v) {
        (Part::Val(ka), Part::Null) => {
            let st = &em.m.stores[*store];
            if st.versioned.is_some() {
                return Some(versioned_to_table(em, node, *store, ka, quote!(None)));
            }
            let (kt, vt) = (&st.key.ty, &st.value.ty);
            let changelog = &st.changelog;
            let field = Emitter::store_field(*store);
            let kr = ka.r(st.key.span);
            let want_old = needs_old(em, node);
            let nv = format_ident!("__v{}", node);
            let changed = changed_call(em, node, ka, &Acc::owned(nv.clone()), quote!(__dk_record));
            let cache_on = cached_on(em, node, *store);
            let cached = cached_update(
                em,
                node,
                *store,
                quote! {
                    let _ = #dk::table_delete::<#vt, _, _>(
                        &mut self.#field, &self.__kbuf, false, __dk_sink,
                        #changelog, self.__partition, __dk_record.timestamp, #name,
                    )?;
                },
                quote!(0),
                quote!(__dk_record.timestamp),
            );
            quote! {
                let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
                if matches!(__dk_ke, #dk::Encoded::Present) {
                    if #cache_on {
                        #cached
                    } else {
                        let #nv = #dk::table_delete::<#vt, _, _>(
                            &mut self.#field, &self.__kbuf, #want_old, __dk_sink,
                            #changelog, self.__partition, __dk_record.timestamp, #name,
                        )?;
                        #changed
                    }
                } else {
                    self.__dropped += 1;
                }
            }
        }
        _ => quote!(self.__dropped += 1;),
    })
}
