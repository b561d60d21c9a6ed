//! The emitter: walks the operator graph from a source and writes each node's inline code,
//! given the locals that hold its input key and value. Each operator's code lives in its file
//! under `crate::ops`, reached through the [`Emit`] its registry entry carries: the emitter asks
//! each operator's `Emit` in turn, and the one whose node it is answers.
//!
//! # The null path
//!
//! Records with a null key or value whose serde has no null (`Utf8`, `I64`, `Json<T>`: not
//! `Nullable<S>`): Kafka Streams 4.4 passes them on operator by operator, and so does a task
//! here, on a path of its own where the missing part is no Rust value ([`Part::Null`]). Each
//! operator's [`Emit::null`] says what it does with such a record (what Kafka Streams does,
//! checked against its `TopologyTestDriver` by the differential suite, `examples/parity`):
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
//!   cannot hold: the record fails ([`Emitter::null_fails`]: `on_error`, kind
//!   `KeyDeserialization` or `ValueDeserialization`), as a Java closure that dereferences it
//!   would throw. Read the topic with `Nullable::<S>` to see the nulls in closures.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::ir::Model;

/// The code of one node on the record path, or `None` if the node is not the operator's.
pub(crate) type RecordFn = fn(&Emitter<'_>, usize, &Acc, &Acc) -> Option<TokenStream>;
/// The code of one node on the null path, or `None` if the node is not the operator's.
pub(crate) type NullFn = fn(&Emitter<'_>, usize, &Part, &Part) -> Option<TokenStream>;
/// The start of a source node's code, or `None` if the node is not the operator's.
/// A source node's code for its records of `topic` (a source may read several topics).
pub(crate) type SourceFn = fn(&Emitter<'_>, usize, &str) -> Option<TokenStream>;
/// A table node's value getter for the key in an [`Acc`] (an `Option<(V, i64)>` expression), or
/// `None` if the node is not the operator's.
pub(crate) type GetterFn = fn(&Emitter<'_>, usize, &Acc) -> Option<TokenStream>;

/// An operator's code generation, carried by its registry entry. Each function answers only for
/// the node kinds its operator makes (and `None` for the others), so the emitter needs no list
/// of node kinds: it asks every operator.
#[derive(Clone, Copy)]
pub(crate) struct Emit {
    /// The record path: the node's code, given its input key and value.
    pub record: RecordFn,
    /// The null path (see the module docs). An operator that does not answer forwards nothing.
    pub null: NullFn,
    /// A source node's code (the body of a `__source_N` method).
    pub source: SourceFn,
    /// A table node's value getter, read by table-table joins.
    pub getter: GetterFn,
}

fn no_record(_: &Emitter<'_>, _: usize, _: &Acc, _: &Acc) -> Option<TokenStream> {
    None
}

fn no_null(_: &Emitter<'_>, _: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    None
}

fn no_source(_: &Emitter<'_>, _: usize, _: &str) -> Option<TokenStream> {
    None
}

fn no_getter(_: &Emitter<'_>, _: usize, _: &Acc) -> Option<TokenStream> {
    None
}

impl Emit {
    /// An operator that makes no code of its own (`group_by_key`, `windowed_by`, `store`): the
    /// base of every entry's `Emit` (`Emit { record, ..Emit::NONE }`).
    pub(crate) const NONE: Emit = Emit {
        record: no_record,
        null: no_null,
        source: no_source,
        getter: no_getter,
    };
}

/// A key or value on the null path: missing, or a local holding it.
#[derive(Clone)]
pub(crate) enum Part {
    Null,
    Val(Acc),
}

impl Part {
    /// Whether the part is missing.
    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Part::Null)
    }
}

/// A local holding a key or value: owned, or a reference to one.
#[derive(Clone)]
pub(crate) struct Acc {
    pub ident: Ident,
    pub is_ref: bool,
}

impl Acc {
    pub(crate) fn owned(ident: Ident) -> Self {
        Acc {
            ident,
            is_ref: false,
        }
    }

    /// `&x` (or `x` if it holds a reference), spanned at `span` so type errors land there.
    pub(crate) fn r(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> #id)
        } else {
            quote_spanned!(span=> &#id)
        }
    }

    /// `x` moved, or cloned if it holds a reference.
    pub(crate) fn o(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> ::core::clone::Clone::clone(#id))
        } else {
            quote_spanned!(span=> #id)
        }
    }
}

/// Writes the code of one topology's nodes.
pub(crate) struct Emitter<'m> {
    pub m: &'m Model,
    pub topo: Ident,
    /// The code generation of every operator (the registry's, in its order).
    pub ops: Vec<Emit>,
}

/// The path of the runtime's support module for generated code.
pub(crate) fn dk() -> TokenStream {
    quote!(::dekaf_streams::__private)
}

/// A generated method `name` that runs `body` (code of one node's chain) for the record in
/// `__dk_record`, writing to `__dk_sink`: the form every entry point into a chain takes (a
/// source, a cache flush's forward, a punctuation).
pub(crate) fn record_method(name: &proc_macro2::Ident, body: &TokenStream) -> TokenStream {
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
    pub(crate) fn store_field(i: usize) -> Ident {
        format_ident!("__store_{}", i)
    }

    /// The past versions of versioned table store `i` (`dekaf_streams::table::versioned`).
    pub(crate) fn history_field(i: usize) -> Ident {
        format_ident!("__history_{}", i)
    }

    /// The stream time at which a window store next drops expired windows.
    pub(crate) fn purge_field(i: usize) -> Ident {
        format_ident!("__purge_{}", i)
    }

    /// The time index (retention) of window store `i`.
    pub(crate) fn index_field(i: usize) -> Ident {
        format_ident!("__index_{}", i)
    }

    /// The largest time stored in session or sliding-window store `i`.
    pub(crate) fn max_field(i: usize) -> Ident {
        format_ident!("__max_{}", i)
    }

    /// The dirty keys (record cache) of aggregation node `node`.
    pub(crate) fn cache_field(node: usize) -> Ident {
        format_ident!("__cache_{}", node)
    }

    pub(crate) fn ctx_type(&self, node: usize) -> Ident {
        format_ident!("__{}Context{}", self.topo, node)
    }

    /// The code of `node`'s children.
    pub(crate) fn children(&self, node: usize, k: &Acc, v: &Acc) -> TokenStream {
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

    /// The code of a source node for its records of `topic` (the start of a `__source_N`
    /// function).
    pub(crate) fn source(&self, node: usize, topic: &str) -> TokenStream {
        self.ops
            .iter()
            .find_map(|e| (e.source)(self, node, topic))
            .unwrap_or_default()
    }

    /// The code of a non-source node (and, through it, of its children).
    pub(crate) fn emit(&self, node: usize, k: &Acc, v: &Acc) -> TokenStream {
        let code = self
            .ops
            .iter()
            .find_map(|e| (e.record)(self, node, k, v))
            .unwrap_or_default();
        match crate::ops::versioned::out_of_order_gate(self.m, node) {
            None => code,
            // A change of a versioned table that is not the key's latest (`__latest`, set by the
            // table's source or `to_table`) goes no further here.
            Some(counted) => {
                let drop = counted.then(|| quote!(self.__dropped += 1;));
                quote! {
                    if self.__latest {
                        #code
                    } else {
                        #drop
                    }
                }
            }
        }
    }

    /// The code of `node` for a record whose key or value (or both) is null.
    pub(crate) fn emit_null(&self, node: usize, k: &Part, v: &Part) -> TokenStream {
        self.ops
            .iter()
            .find_map(|e| (e.null)(self, node, k, v))
            .unwrap_or_default()
    }

    /// The current value of table `node` for the key in `k`, with its timestamp: an
    /// `Option<(V, i64)>` expression (Kafka Streams' `ValueAndTimestamp`).
    pub(crate) fn getter(&self, node: usize, k: &Acc) -> TokenStream {
        self.ops
            .iter()
            .find_map(|e| (e.getter)(self, node, k))
            .unwrap_or_else(|| quote!(None))
    }

    /// The null path of an operator whose closure (`what`, as the user wrote it) would need the
    /// missing part: the record fails.
    pub(crate) fn null_fails(&self, node: usize, what: &str, k: &Part) -> TokenStream {
        let dk = dk();
        let name = &self.m.nodes[node].name;
        let (kind, part) = if k.is_null() {
            (quote!(KeyDeserialization), "key")
        } else {
            (quote!(ValueDeserialization), "value")
        };
        let message = format!(
            "a record with a null {part} reached {what} ({name}), whose closure takes the {part}; its serde has no null: read the topic with Nullable::<S> to handle null {part}s"
        );
        quote!(return Err(#dk::RecordError::new(#dk::ErrorKind::#kind, #name, ::std::string::String::from(#message)));)
    }

    /// The null path of `node`'s children (each gets references where several share a part).
    pub(crate) fn null_children(&self, node: usize, k: &Part, v: &Part) -> TokenStream {
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

    /// The start of a source's code: the record's key and value decoded into `k` and `v`,
    /// with the null path of the source's children for a null key or value that the serde
    /// cannot hold, followed by `rest` (the ordinary code).
    pub(crate) fn null_guard(
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
