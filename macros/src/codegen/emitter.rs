//! The emitter: walks the operator graph from a source and writes each node's inline code,
//! given the locals that hold its input key and value. Each operator's code lives in its file
//! under [`crate::ops`]; [`Emitter::emit`] dispatches to it by node kind.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::ir::{Model, NodeKind};
use crate::ops;

/// A local holding a key or value: owned, or a reference to one.
#[derive(Clone)]
pub struct Acc {
    pub ident: Ident,
    pub is_ref: bool,
}

impl Acc {
    pub fn owned(ident: Ident) -> Self {
        Acc {
            ident,
            is_ref: false,
        }
    }

    /// `&x` (or `x` if it holds a reference), spanned at `span` so type errors land there.
    pub fn r(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> #id)
        } else {
            quote_spanned!(span=> &#id)
        }
    }

    /// `x` moved, or cloned if it holds a reference.
    pub fn o(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> ::core::clone::Clone::clone(#id))
        } else {
            quote_spanned!(span=> #id)
        }
    }
}

/// Writes the code of one topology's nodes.
pub struct Emitter<'m> {
    pub m: &'m Model,
    pub topo: Ident,
}

/// The path of the runtime's support module for generated code.
pub fn dk() -> TokenStream {
    quote!(::dekaf_streams::__private)
}

/// A generated method `name` that runs `body` (code of one node's chain) for the record in
/// `__dk_record`, writing to `__dk_sink`: the form every entry point into a chain takes (a
/// source, a cache flush's forward, a punctuation).
pub fn record_method(name: &proc_macro2::Ident, body: &TokenStream) -> TokenStream {
    let dk = dk();
    quote! {
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn #name<S: #dk::RecordSink>(
            &mut self,
            __dk_record: &#dk::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::RecordError> {
            #body
            Ok(())
        }
    }
}

impl Emitter<'_> {
    pub fn store_field(i: usize) -> Ident {
        format_ident!("__store_{}", i)
    }

    /// The stream time at which a window store next drops expired windows.
    pub fn purge_field(i: usize) -> Ident {
        format_ident!("__purge_{}", i)
    }

    /// The time index (retention) of window store `i`.
    pub fn index_field(i: usize) -> Ident {
        format_ident!("__index_{}", i)
    }

    /// The largest time stored in session or sliding-window store `i`.
    pub fn max_field(i: usize) -> Ident {
        format_ident!("__max_{}", i)
    }

    /// The dirty keys (record cache) of aggregation node `node`.
    pub fn cache_field(node: usize) -> Ident {
        format_ident!("__cache_{}", node)
    }

    pub fn ctx_type(&self, node: usize) -> Ident {
        format_ident!("__{}Context{}", self.topo, node)
    }

    /// The code of `node`'s children.
    pub fn children(&self, node: usize, k: &Acc, v: &Acc) -> TokenStream {
        let children = &self.m.nodes[node].children;
        match children.len() {
            0 => quote!(),
            1 => self.emit(children[0], k, v),
            _ => {
                // Fan-out: every child but the last gets references (those that need ownership
                // clone); the last one takes the key and value as they are, so an owned record
                // is moved into it, not cloned.
                let kr = format_ident!("__kr{}", node);
                let vr = format_ident!("__vr{}", node);
                let (kid, vid) = (&k.ident, &v.ident);
                let kdef = if k.is_ref {
                    quote!(let #kr = #kid;)
                } else {
                    quote!(let #kr = &#kid;)
                };
                let vdef = if v.is_ref {
                    quote!(let #vr = #vid;)
                } else {
                    quote!(let #vr = &#vid;)
                };
                let ka = Acc {
                    ident: kr,
                    is_ref: true,
                };
                let va = Acc {
                    ident: vr,
                    is_ref: true,
                };
                let Some((&last, first)) = children.split_last() else {
                    return quote!();
                };
                let bodies = first.iter().map(|&c| self.emit(c, &ka, &va));
                let last = self.emit(last, k, v);
                quote! { #kdef #vdef #( { #bodies } )* { #last } }
            }
        }
    }

    /// The code of a source node (the start of a `__source_N` function).
    pub fn source(&self, node: usize) -> TokenStream {
        let dk = dk();
        let n = &self.m.nodes[node];
        let name = &n.name;
        let k = format_ident!("__k{}", node);
        let v = format_ident!("__v{}", node);
        match &n.kind {
            NodeKind::Source { key, value, topic }
            | NodeKind::RepartitionSource { key, value, topic } => {
                let (kt, vt) = (&key.ty, &value.ty);
                // A key going straight into a count or reduce is checked, not decoded, when the
                // aggregation can store its bytes ([`super::raw_key::KeyIn::Raw`]).
                if let [child] = n.children.as_slice()
                    && super::raw_key::takes_raw_key(self, *child)
                    && let NodeKind::Aggregate { store, op } = &self.m.nodes[*child].kind
                {
                    let key = super::raw_key::KeyIn::Raw {
                        source: node,
                        serde: kt,
                    };
                    let value = if self.value_unread(node) {
                        quote!(let #v = #dk::check_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
                    } else {
                        quote!(let #v = #dk::de_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
                    };
                    let key_statement = super::raw_key::raw_key_source(self, node, kt, *child);
                    let child = ops::aggregate::emit_keyed(
                        self,
                        *child,
                        *store,
                        op,
                        key,
                        &Acc::owned(v.clone()),
                    );
                    return self.null_guard(
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
                }
                let children = self.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
                // A value only counted is checked (the same errors), not built.
                let value = if self.value_unread(node) {
                    quote!(let #v = #dk::check_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
                } else {
                    quote!(let #v = #dk::de_value_at::<#vt>(#topic, __dk_record.value, #name)?;)
                };
                self.null_guard(
                    node,
                    topic,
                    kt,
                    vt,
                    quote! {
                        let #k = #dk::de_key_at::<#kt>(#topic, __dk_record.key, #name)?;
                        #value
                        #children
                    },
                )
            }
            NodeKind::TableSource { .. } => ops::table::emit_source(self, node),
            NodeKind::FkJoin(f) => super::fk_join::emit_source(self, node, f),
            _ => quote!(),
        }
    }

    /// Whether no child of `node` reads its value: each counts its records (`count()`, plain or
    /// over time windows), and a count's downstream gets the count, not the value.
    fn value_unread(&self, node: usize) -> bool {
        let children = &self.m.nodes[node].children;
        !children.is_empty()
            && children.iter().all(|&c| match &self.m.nodes[c].kind {
                NodeKind::Aggregate {
                    store,
                    op: crate::ir::AggOp::Count,
                } => self.m.stores[*store]
                    .window
                    .is_none_or(|w| w.kind == crate::ir::WindowKind::Time),
                _ => false,
            })
    }

    /// The code of a non-source node (and, through it, of its children).
    pub fn emit(&self, node: usize, k: &Acc, v: &Acc) -> TokenStream {
        match &self.m.nodes[node].kind {
            NodeKind::Source { .. }
            | NodeKind::TableSource { .. }
            | NodeKind::RepartitionSource { .. } => quote!(),
            NodeKind::Filter { f, negate } => ops::filter::emit(self, node, f, *negate, k, v),
            NodeKind::Peek { f } => ops::peek::emit(self, node, f, k, v),
            NodeKind::Map { f, fallible } => ops::map::emit_map(self, node, f, *fallible, k, v),
            NodeKind::MapValues {
                f,
                with_key,
                fallible,
            } => ops::map::emit_map_values(self, node, f, *with_key, *fallible, k, v),
            NodeKind::FlatMap { f } => ops::flat_map::emit_flat_map(self, node, f, k, v),
            NodeKind::FlatMapValues { f, with_key } => {
                ops::flat_map::emit_flat_map_values(self, node, f, *with_key, k, v)
            }
            NodeKind::SelectKey { f } => ops::select_key::emit(self, node, f, k, v),
            NodeKind::Branch { preds } => ops::branch::emit(self, node, preds, k, v),
            NodeKind::Merge { keys } => ops::merge::emit(self, node, keys.as_ref(), k, v),
            NodeKind::BranchArm => self.children(node, k, v),
            NodeKind::ToStream => ops::table::emit_to_stream(self, node, k, v),
            NodeKind::Table(t) => ops::table::emit(self, node, t, k, v),
            NodeKind::Sink { topic, key, value }
            | NodeKind::RepartitionSink { topic, key, value } => {
                ops::to::emit_send(self, node, topic, key, value, k, v)
            }
            NodeKind::Aggregate { store, op } => ops::aggregate::emit(self, node, *store, op, k, v),
            NodeKind::Suppress { buffer, windows } => {
                super::suppress::emit(self, node, *buffer, *windows, k, v)
            }
            NodeKind::Join { store, f, left } => {
                ops::join::emit(self, node, *store, f, *left, k, v)
            }
            NodeKind::Process { f, .. } => ops::process::emit(self, node, f, k, v),
            NodeKind::JoinWindowed { .. } => self.children(node, k, v),
            NodeKind::StreamJoin(j) => super::stream_join::emit(self, node, j, k, v),
            NodeKind::GlobalJoin(j) => ops::global_table::emit(self, node, j, k, v),
            NodeKind::FkJoin(f) => super::fk_join::emit(self, node, f, k, v),
        }
    }
}
