//! Records with a null key or value whose serde has no null (`Utf8`, `I64`, `Json<T>`: not
//! `Nullable<S>`): Kafka Streams 4.4 passes them on operator by operator, and so does a task
//! here, on a path of its own where the missing part is no Rust value.
//!
//! Per operator (what Kafka Streams does, checked against its `TopologyTestDriver` by the
//! differential suite, `examples/parity`):
//!
//! - `to`, `repartition`, `merge`, branch arms: forwarded, the missing part written as null;
//! - `map_values`, `flat_map_values` without the key: a null key passes, the value is mapped;
//! - `count`/`reduce`/`aggregate` without windows, sliding windows, stream-table and inner
//!   stream-stream joins, `to_table` with a null key: dropped and counted
//!   (`Task::null_records_dropped`, Kafka Streams' `dropped-records`);
//! - time and session windows: a null key is dropped and counted, a null value is counted
//!   by `count()` (Kafka Streams counts it);
//! - `to_table` with a null value: the key is deleted;
//! - `left_join` of a table and the outer sides of stream-stream joins: a null key is joined
//!   with no partner and forwarded;
//! - every other operator would call the user's closure with the missing part, which its type
//!   cannot hold: the record fails (`on_error`, kind `KeyDeserialization` or
//!   `ValueDeserialization`), as a Java closure that dereferences it would throw. Read the topic
//!   with `Nullable::<S>` to see the nulls in closures.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use super::emitter::{Acc, Emitter, dk};
use crate::ir::{AggOp, NodeKind, WindowKind};
use crate::ops::table::TableNode;

/// A key or value on the null path: missing, or a local holding it.
#[derive(Clone)]
pub enum Part {
    Null,
    Val(Acc),
}

impl Part {
    fn is_null(&self) -> bool {
        matches!(self, Part::Null)
    }
}

impl Emitter<'_> {
    /// The null path of `node`'s children (each gets references where several share a part).
    pub fn null_children(&self, node: usize, k: &Part, v: &Part) -> TokenStream {
        let children = &self.m.nodes[node].children;
        if children.len() <= 1 {
            return children.iter().map(|&c| self.emit_null(c, k, v)).collect();
        }
        let share = |p: &Part, prefix: &str| -> (TokenStream, Part) {
            match p {
                Part::Null => (quote!(), Part::Null),
                Part::Val(a) => {
                    let id = format_ident!("__{}n{}", prefix, node);
                    let src = &a.ident;
                    let def = if a.is_ref {
                        quote!(let #id = #src;)
                    } else {
                        quote!(let #id = &#src;)
                    };
                    (
                        def,
                        Part::Val(Acc {
                            ident: id,
                            is_ref: true,
                        }),
                    )
                }
            }
        };
        let (kdef, kp) = share(k, "k");
        let (vdef, vp) = share(v, "v");
        let bodies = children.iter().map(|&c| self.emit_null(c, &kp, &vp));
        quote! { #kdef #vdef #( { #bodies } )* }
    }

    /// The code of `node` for a record whose key or value (or both) is null.
    pub fn emit_null(&self, node: usize, k: &Part, v: &Part) -> TokenStream {
        let dk = dk();
        let n = &self.m.nodes[node];
        let (sp, name) = (n.span, &n.name);
        let drop = quote!(self.__dropped += 1;);
        // The closure of this operator would need the missing part.
        let fail = |what: &str| {
            let (kind, part) = if k.is_null() {
                (quote!(KeyDeserialization), "key")
            } else {
                (quote!(ValueDeserialization), "value")
            };
            let message = format!(
                "a record with a null {part} reached {what} ({name}), whose closure takes the {part}; its serde has no null: read the topic with Nullable::<S> to handle null {part}s"
            );
            quote!(return Err(#dk::RecordError::new(#dk::ErrorKind::#kind, #name, ::std::string::String::from(#message)));)
        };
        match &n.kind {
            NodeKind::Source { .. }
            | NodeKind::TableSource { .. }
            | NodeKind::RepartitionSource { .. }
            | NodeKind::ToStream
            | NodeKind::Suppress { .. }
            | NodeKind::FkJoin(_) => quote!(),
            NodeKind::Merge { .. } | NodeKind::BranchArm | NodeKind::JoinWindowed { .. } => {
                self.null_children(node, k, v)
            }
            NodeKind::Sink { topic, key, value }
            | NodeKind::RepartitionSink { topic, key, value } => {
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
                quote! {
                    #kdef
                    #vdef
                    #dk::send(
                        __dk_sink, #topic, #dk::TopicKind::#kind, #kbytes, #vbytes,
                        __dk_record.timestamp, __dk_record.headers,
                    )?;
                }
            }
            NodeKind::MapValues {
                f,
                with_key: false,
                fallible,
            } if !v.is_null() => {
                let Part::Val(va) = v else { return quote!() };
                let nv = format_ident!("__v{}", node);
                let vo = va.o(sp);
                let call = if *fallible {
                    quote_spanned!(sp=> #dk::try_map_values(#vo, #name, #f)?)
                } else {
                    quote_spanned!(sp=> #dk::map_values(#vo, #f))
                };
                let children = self.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
                quote! { let #nv = #call; #children }
            }
            NodeKind::FlatMapValues { f, with_key: false } if !v.is_null() => {
                let Part::Val(va) = v else { return quote!() };
                let nv = format_ident!("__v{}", node);
                let vr = va.r(sp);
                let call = quote_spanned!(sp=> #dk::flat_map_values(#vr, #f));
                let children = self.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
                quote! { for #nv in #call { #children } }
            }
            NodeKind::MapValues { .. } => fail("map_values"),
            NodeKind::FlatMapValues { .. } => fail("flat_map_values"),
            NodeKind::Filter { negate, .. } => fail(if *negate { "filter_not" } else { "filter" }),
            NodeKind::Map { .. } => fail("map"),
            NodeKind::FlatMap { .. } => fail("flat_map"),
            NodeKind::SelectKey { .. } => fail("select_key"),
            NodeKind::Peek { .. } => fail("peek"),
            NodeKind::Branch { .. } => fail("branch"),
            NodeKind::Process { .. } => fail("process"),
            NodeKind::GlobalJoin(_) if k.is_null() => fail("the key mapper of a global-table join"),
            // `KStreamKTableJoinProcessor`: a null value is dropped.
            NodeKind::GlobalJoin(_) => drop,
            NodeKind::Aggregate { store, op } => {
                let window = self.m.stores[*store].window.map(|w| w.kind);
                match (window, k, v, op) {
                    // Time and session windows count a record with a null value
                    // (`KStreamWindowAggregate`, `KStreamSessionWindowAggregate` drop only a
                    // null key).
                    (
                        Some(WindowKind::Time | WindowKind::Session),
                        Part::Val(ka),
                        Part::Null,
                        AggOp::Count,
                    ) => {
                        let unit = format_ident!("__dk_null_value{}", node);
                        let body = self.emit(node, ka, &Acc::owned(unit.clone()));
                        quote! { let #unit = (); #body }
                    }
                    (
                        Some(WindowKind::Time | WindowKind::Session),
                        Part::Val(_),
                        Part::Null,
                        AggOp::Reduce(_),
                    ) => fail("reduce"),
                    (
                        Some(WindowKind::Time | WindowKind::Session),
                        Part::Val(_),
                        Part::Null,
                        AggOp::Aggregate { .. },
                    ) => fail("aggregate"),
                    // Without windows and with sliding windows a null key or value is dropped.
                    _ => drop,
                }
            }
            NodeKind::Join { f, left, store, .. } => match (k, v, left) {
                // KIP-962: a left join forwards a null-key record, joined with no table value.
                (Part::Null, Part::Val(va), true) => {
                    let nv = format_ident!("__v{}", node);
                    let vo = va.o(sp);
                    // Typed: the closure's parameter types are inferred from it.
                    let tt = &self.m.stores[*store].value.ty;
                    let call = quote_spanned!(sp=> #dk::left_join(#vo, ::core::option::Option::None::<<#tt as #dk::Serde>::Value>, #f));
                    let children = self.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
                    quote! { let #nv = #call; #children }
                }
                _ => drop,
            },
            NodeKind::StreamJoin(j) => match (k, v) {
                (Part::Null, Part::Val(va)) if super::stream_join::emits_unmatched(j) => {
                    let nv = format_ident!("__v{}", node);
                    let call = super::stream_join::null_key_result(j, va.r(sp));
                    let children = self.null_children(node, k, &Part::Val(Acc::owned(nv.clone())));
                    quote! {
                        if __dk_record.timestamp < 0 {
                            return Err(#dk::stream_join::invalid_timestamp(#name, __dk_record.timestamp));
                        }
                        let #nv = #call;
                        #children
                    }
                }
                _ => drop,
            },
            NodeKind::Table(TableNode::ToTable { store }) => match (k, v) {
                // `KStreamToTable` (a `KTableSource`): a null value deletes the key.
                (Part::Val(ka), Part::Null) => {
                    let st = &self.m.stores[*store];
                    let (kt, vt) = (&st.key.ty, &st.value.ty);
                    let changelog = &st.changelog;
                    let field = Emitter::store_field(*store);
                    let kr = ka.r(st.key.span);
                    let want_old = crate::ops::table::needs_old(self, node);
                    let nv = format_ident!("__v{}", node);
                    let children = self.children(node, ka, &Acc::owned(nv.clone()));
                    quote! {
                        let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?;
                        if matches!(__dk_ke, #dk::Encoded::Present) {
                            let #nv = #dk::table_delete::<#vt, _, _>(
                                &mut self.#field, &self.__kbuf, #want_old, __dk_sink,
                                #changelog, self.__partition, __dk_record.timestamp, #name,
                            )?;
                            #children
                        } else {
                            self.__dropped += 1;
                        }
                    }
                }
                _ => drop,
            },
            NodeKind::Table(_) => quote!(),
        }
    }

    /// The start of a source's code: the record's key and value decoded into `k` and `v`,
    /// with the null path of the source's children for a null key or value that the serde
    /// cannot hold, followed by `rest` (the ordinary code).
    pub fn null_guard(
        &self,
        node: usize,
        topic: &str,
        kt: &syn::Type,
        vt: &syn::Type,
        rest: TokenStream,
    ) -> TokenStream {
        let dk = dk();
        let name = &self.m.nodes[node].name;
        let k = format_ident!("__kn{}", node);
        let v = format_ident!("__vn{}", node);
        let key_null = self.null_children(node, &Part::Null, &Part::Val(Acc::owned(v.clone())));
        let both_null = self.null_children(node, &Part::Null, &Part::Null);
        let value_null = self.null_children(node, &Part::Val(Acc::owned(k.clone())), &Part::Null);
        quote! {
            if #dk::is_absent::<#kt>(__dk_record.key) {
                if #dk::is_absent::<#vt>(__dk_record.value) {
                    #both_null
                } else {
                    let #v = #dk::de_value_at::<#vt>(#topic, __dk_record.value, #name)?;
                    #key_null
                }
            } else if #dk::is_absent::<#vt>(__dk_record.value) {
                let #k = #dk::de_key_at::<#kt>(#topic, __dk_record.key, #name)?;
                #value_null
            } else {
                #rest
            }
        }
    }
}
