//! The inline code of each operator. `emit` writes a node's code given the local variables
//! that hold its input key and value, then the code of its children.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};

use crate::model::{AggOp, Model, NodeKind};

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
    fn r(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> #id)
        } else {
            quote_spanned!(span=> &#id)
        }
    }

    /// `x` moved, or cloned if it holds a reference.
    fn o(&self, span: Span) -> TokenStream {
        let id = Ident::new(&self.ident.to_string(), span);
        if self.is_ref {
            quote_spanned!(span=> ::core::clone::Clone::clone(#id))
        } else {
            quote_spanned!(span=> #id)
        }
    }
}

pub struct Emitter<'m> {
    pub m: &'m Model,
    pub topo: Ident,
}

fn dk() -> TokenStream {
    quote!(::dekaf_streams::__private)
}

impl Emitter<'_> {
    pub fn store_field(i: usize) -> Ident {
        format_ident!("__store_{}", i)
    }

    /// The sink of `aggregate → to_stream → to(..)`: its topic and serdes.
    fn direct_sink(&self, node: usize) -> Option<(&String, &syn::Type, &syn::Type)> {
        let [to_stream] = self.m.nodes[node].children.as_slice() else {
            return None;
        };
        let to_stream = &self.m.nodes[*to_stream];
        if !matches!(to_stream.kind, NodeKind::ToStream) {
            return None;
        }
        let [sink] = to_stream.children.as_slice() else {
            return None;
        };
        match &self.m.nodes[*sink].kind {
            NodeKind::Sink { topic, key, value } => Some((topic, &key.ty, &value.ty)),
            _ => None,
        }
    }

    /// The stream time at which a window store next drops expired windows.
    pub fn purge_field(i: usize) -> Ident {
        format_ident!("__purge_{}", i)
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
                // Fan-out: every child gets references; those that need ownership clone.
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
                let bodies = children.iter().map(|&c| self.emit(c, &ka, &va));
                quote! { #kdef #vdef #( { #bodies } )* }
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
            NodeKind::Source { key, value, .. }
            | NodeKind::RepartitionSource { key, value, .. } => {
                let (kt, vt) = (&key.ty, &value.ty);
                let children = self.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
                quote! {
                    let #k = #dk::de_key::<#kt>(__dk_record.key, #name)?;
                    let #v = #dk::de_value::<#vt>(__dk_record.value, #name)?;
                    #children
                }
            }
            NodeKind::TableSource {
                key, value, store, ..
            } => {
                let (kt, vt) = (&key.ty, &value.ty);
                let field = Self::store_field(*store);
                let children = self.children(node, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
                quote! {
                    // A table record without a key cannot be stored: Kafka Streams drops it too.
                    let __dk_kb = match __dk_record.key { Some(b) => b, None => return Ok(()) };
                    let #k = #dk::de_key::<#kt>(Some(__dk_kb), #name)?;
                    match __dk_record.value {
                        None => {
                            #dk::StoreBackend::delete(&mut self.#field, __dk_kb).map_err(|e| #dk::store_error(#name, e))?;
                        }
                        Some(__dk_vb) => {
                            let #v = #dk::de_value::<#vt>(Some(__dk_vb), #name)?;
                            #dk::StoreBackend::put(&mut self.#field, __dk_kb, __dk_vb).map_err(|e| #dk::store_error(#name, e))?;
                            #children
                        }
                    }
                }
            }
            _ => quote!(),
        }
    }

    /// The code of a non-source node.
    pub fn emit(&self, node: usize, k: &Acc, v: &Acc) -> TokenStream {
        let dk = dk();
        let n = &self.m.nodes[node];
        let name = &n.name;
        let nk = format_ident!("__k{}", node);
        let nv = format_ident!("__v{}", node);
        let sp = n.span;
        match &n.kind {
            NodeKind::Source { .. }
            | NodeKind::TableSource { .. }
            | NodeKind::RepartitionSource { .. } => quote!(),
            NodeKind::Filter { f, negate } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let call = quote_spanned!(sp=> #dk::filter(#kr, #vr, #f));
                let cond = if *negate { quote!(!#call) } else { call };
                let children = self.children(node, k, v);
                quote! { if #cond { #children } }
            }
            NodeKind::Peek { f } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let children = self.children(node, k, v);
                quote! { #dk::peek(#kr, #vr, #f); #children }
            }
            NodeKind::Map { f, fallible } => {
                let (ko, vo) = (k.o(sp), v.o(sp));
                let call = if *fallible {
                    quote_spanned!(sp=> #dk::try_map(#ko, #vo, #name, #f)?)
                } else {
                    quote_spanned!(sp=> #dk::map(#ko, #vo, #f))
                };
                let children =
                    self.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
                quote! { let (#nk, #nv) = #call; #children }
            }
            NodeKind::MapValues {
                f,
                with_key,
                fallible,
            } => {
                let (kr, vo) = (k.r(sp), v.o(sp));
                let call = match (*with_key, *fallible) {
                    (false, false) => quote_spanned!(sp=> #dk::map_values(#vo, #f)),
                    (true, false) => quote_spanned!(sp=> #dk::map_values_with_key(#kr, #vo, #f)),
                    (false, true) => quote_spanned!(sp=> #dk::try_map_values(#vo, #name, #f)?),
                    (true, true) => {
                        quote_spanned!(sp=> #dk::try_map_values_with_key(#kr, #vo, #name, #f)?)
                    }
                };
                let children = self.children(node, k, &Acc::owned(nv.clone()));
                quote! { let #nv = #call; #children }
            }
            NodeKind::FlatMap { f } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let item = format_ident!("__item{}", node);
                let children =
                    self.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
                quote! {
                    for #item in #dk::flat_map(#kr, #vr, #f) {
                        let (#nk, #nv) = #item;
                        #children
                    }
                }
            }
            NodeKind::FlatMapValues { f, with_key } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let call = if *with_key {
                    quote_spanned!(sp=> #dk::flat_map_values_with_key(#kr, #vr, #f))
                } else {
                    quote_spanned!(sp=> #dk::flat_map_values(#vr, #f))
                };
                // The key is shared by every value: children borrow it.
                let kb = format_ident!("__kb{}", node);
                let kid = &k.ident;
                let kdef = if k.is_ref {
                    quote!(let #kb = #kid;)
                } else {
                    quote!(let #kb = &#kid;)
                };
                let children = self.children(
                    node,
                    &Acc {
                        ident: kb,
                        is_ref: true,
                    },
                    &Acc::owned(nv.clone()),
                );
                quote! { #kdef for #nv in #call { #children } }
            }
            NodeKind::SelectKey { f } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let children = self.children(node, &Acc::owned(nk.clone()), v);
                quote! { let #nk = #dk::select_key(#kr, #vr, #f); #children }
            }
            NodeKind::Branch { preds } => {
                let (kr, vr) = (k.r(sp), v.r(sp));
                let arms = n.children.iter().zip(preds).map(|(&arm, p)| {
                    let body = self.children(arm, k, v);
                    let ps = syn::spanned::Spanned::span(p);
                    let (kr, vr) = (k.r(ps), v.r(ps));
                    (quote_spanned!(ps=> #dk::filter(#kr, #vr, #p)), body)
                });
                let mut out = quote!();
                for (i, (cond, body)) in arms.enumerate() {
                    if i == 0 {
                        out = quote!(if #cond { #body });
                    } else {
                        out = quote!(#out else if #cond { #body });
                    }
                }
                let _ = (kr, vr);
                out
            }
            NodeKind::BranchArm | NodeKind::Merge | NodeKind::ToStream => self.children(node, k, v),
            NodeKind::Sink { topic, key, value }
            | NodeKind::RepartitionSink { topic, key, value } => {
                let kind = if matches!(n.kind, NodeKind::Sink { .. }) {
                    quote!(Sink)
                } else {
                    quote!(Repartition)
                };
                let (kt, vt) = (&key.ty, &value.ty);
                let kr = k.r(key.span);
                let vr = v.r(value.span);
                let ke = quote_spanned!(key.span=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?);
                let ve =
                    quote_spanned!(value.span=> #dk::ser::<#vt>(#vr, &mut self.__vbuf, #name)?);
                quote! {
                    let __dk_ke = #ke;
                    let __dk_ve = #ve;
                    #dk::send(
                        __dk_sink,
                        #topic,
                        #dk::TopicKind::#kind,
                        #dk::bytes(__dk_ke, &self.__kbuf),
                        #dk::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            }
            NodeKind::Aggregate { store, op } => self.aggregate(node, *store, op, k, v),
            NodeKind::Join { store, f, left } => {
                let st = &self.m.stores[*store];
                let (kt, vt) = (&st.key.ty, &st.value.ty);
                let field = Self::store_field(*store);
                let kr = k.r(sp);
                let vo = v.o(sp);
                let ke = quote_spanned!(sp=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?);
                let children = self.children(node, k, &Acc::owned(nv.clone()));
                let lookup = quote! {
                    let __dk_ke = #ke;
                    let __dk_tv = if matches!(__dk_ke, #dk::Encoded::Present) {
                        #dk::store_get::<#vt, _>(&self.#field, &self.__kbuf, #name)?
                    } else {
                        None
                    };
                };
                if *left {
                    let call = quote_spanned!(sp=> #dk::left_join(#vo, __dk_tv, #f));
                    quote! { #lookup let #nv = #call; #children }
                } else {
                    let call = quote_spanned!(sp=> #dk::join(#vo, __dk_tv, #f));
                    quote! { #lookup if let Some(__dk_tv) = __dk_tv { let #nv = #call; #children } }
                }
            }
            NodeKind::Process { f, stores } => {
                let ctx = self.ctx_type(node);
                let fields = stores.iter().map(|&i| {
                    let f = Self::store_field(i);
                    quote!(#f: &mut self.#f)
                });
                let (ko, vo) = (k.o(sp), v.o(sp));
                let out = format_ident!("__out{}", node);
                let call = quote_spanned!(sp=> #dk::process(&mut __dk_ctx, #ko, #vo, #name, #f)?);
                let children =
                    self.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
                quote! {
                    let #out = {
                        let mut __dk_ctx = #ctx {
                            #(#fields,)*
                            __kbuf: &mut self.__kbuf,
                            __vbuf: &mut self.__vbuf,
                            __sink: &mut *__dk_sink,
                            __partition: self.__partition,
                            __timestamp: __dk_record.timestamp,
                            __headers: __dk_record.headers,
                        };
                        #call
                    };
                    for (#nk, #nv) in ::core::iter::IntoIterator::into_iter(#out) { #children }
                }
            }
        }
    }

    fn aggregate(&self, node: usize, store: usize, op: &AggOp, k: &Acc, v: &Acc) -> TokenStream {
        let dk = dk();
        let n = &self.m.nodes[node];
        let name = &n.name;
        let sp = n.span;
        let st = &self.m.stores[store];
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let field = Self::store_field(store);
        let changelog = &st.changelog;
        let nv = format_ident!("__v{}", node);
        let nk = format_ident!("__k{}", node);
        let kr = k.r(st.key.span);
        let ke = quote_spanned!(st.key.span=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?);
        let windowed = st.window;
        let tumbling = windowed.is_some_and(|w| w.size == w.advance);
        // In a hopping window a record updates several windows: the value is cloned per window.
        let value_once = windowed.is_none() || tumbling;
        let vo = if value_once {
            v.o(sp)
        } else {
            let r = v.r(sp);
            quote_spanned!(sp=> ::core::clone::Clone::clone(#r))
        };
        let krr = k.r(sp);
        let new = match op {
            AggOp::Count => quote! {
                match __dk_old { Some(c) => i64::saturating_add(c, 1), None => 1i64 }
            },
            AggOp::Reduce(f) => {
                let call = quote_spanned!(sp=> #dk::reduce(__dk_a, #vo, #f));
                quote! { match __dk_old { Some(__dk_a) => #call, None => #vo } }
            }
            AggOp::Aggregate { init, f } => {
                let init = quote_spanned!(sp=> #dk::initializer(#init));
                let call = quote_spanned!(sp=> #dk::aggregator(#krr, #vo, __dk_a, #f));
                quote! {
                    {
                        let __dk_a = match __dk_old { Some(a) => a, None => #init };
                        #call
                    }
                }
            }
        };
        let update = quote! {
            let (#nv, __dk_present, __dk_existed) = #dk::store_update::<#vt, _, _, _>(
                &mut self.#field, &self.__kbuf, &mut self.__vbuf, __dk_sink, #changelog,
                self.__partition, __dk_record.timestamp, #name,
                |__dk_old| #new,
            )?;
        };
        // With a record cache the update only marks the key dirty; `__flush_N` forwards it.
        let cache = Self::cache_field(node);
        let cached = |children: TokenStream| -> TokenStream {
            quote! {
                if self.__cache_max != 0 {
                    self.#cache.mark(&self.__kbuf, #dk::Update {
                        value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                        source: __dk_record.source,
                        timestamp: __dk_record.timestamp,
                        offset: __dk_record.offset,
                        existed: __dk_existed,
                    });
                } else {
                    #children
                }
            }
        };
        // `count(..).to_stream().to(..)` with the store's own serdes: the sink's bytes are the
        // store's, so they are sent as they are. The check is on types (constant after
        // monomorphization), so any other serde takes the general path.
        let direct = |general: TokenStream| -> TokenStream {
            let Some((topic, sk, sv)) = self.direct_sink(node) else {
                return general;
            };
            let expected_key = match windowed {
                None => quote!(#kt),
                Some(w) => {
                    let size = w.size;
                    quote!(::dekaf_streams::serdes::TimeWindowed<#kt, #size>)
                }
            };
            quote! {
                if ::core::any::TypeId::of::<#sk>() == ::core::any::TypeId::of::<#expected_key>()
                    && ::core::any::TypeId::of::<#sv>() == ::core::any::TypeId::of::<#vt>()
                {
                    #dk::send(
                        __dk_sink,
                        #topic,
                        #dk::TopicKind::Sink,
                        Some(&self.__kbuf),
                        if __dk_present { Some(&self.__vbuf) } else { None },
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                } else {
                    #general
                }
            }
        };
        match windowed {
            None => {
                let children = cached(direct(self.children(node, k, &Acc::owned(nv.clone()))));
                quote! {
                    // Records whose key serializes to null are dropped, as Kafka Streams does.
                    let __dk_ke = #ke;
                    if matches!(__dk_ke, #dk::Encoded::Present) {
                        #update
                        #children
                    }
                }
            }
            Some(w) => {
                let (size, advance, grace) = (w.size, w.advance, w.grace);
                let wkey = if tumbling {
                    k.o(sp)
                } else {
                    let r = k.r(sp);
                    quote!(::core::clone::Clone::clone(#r))
                };
                let general = self.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
                let children = cached(direct(quote! {
                    let #nk = #dk::Windowed::new(#wkey, __dk_start, __dk_end);
                    #general
                }));
                // Retention as Kafka Streams' default: size + grace, counted from the window start.
                let retention = size.saturating_add(grace);
                let purge_every = (retention / 2).max(1);
                let purge = Self::purge_field(store);
                let expire = quote! {
                    if self.__stream_time >= self.#purge {
                        #dk::purge_windows(&mut self.#field, self.__stream_time.saturating_sub(#retention), #name, &self.#cache)?;
                        self.#purge = self.__stream_time.saturating_add(#purge_every);
                    }
                };
                let body = quote! {
                    let __dk_end = __dk_start.saturating_add(#size);
                    if __dk_end <= __dk_close {
                        // The window closed (stream time passed its end plus grace): late.
                        self.__late += 1;
                    } else {
                        let __dk_ke = #ke;
                        if matches!(__dk_ke, #dk::Encoded::Present) {
                            ::dekaf_streams::store::window_key(&mut self.__kbuf, __dk_start);
                            #update
                            #children
                        }
                    }
                };
                let _ = tumbling;
                if tumbling {
                    quote! {
                        #expire
                        let __dk_close = self.__stream_time.saturating_sub(#grace);
                        let mut __dk_starts = #dk::window_starts(__dk_record.timestamp, #size, #advance);
                        if let Some(__dk_start) = ::core::iter::Iterator::next(&mut __dk_starts) { #body }
                    }
                } else {
                    quote! {
                        #expire
                        let __dk_close = self.__stream_time.saturating_sub(#grace);
                        for __dk_start in #dk::window_starts(__dk_record.timestamp, #size, #advance) { #body }
                    }
                }
            }
        }
    }

    /// The body of `__forward_N` of aggregation `node`: runs its downstream operators on the
    /// current result of one dirty key. `__dk_record` is the synthesized record of the flush:
    /// key = the store key bytes, value = the stored value bytes (`None`: deleted), timestamp of
    /// the key's last update, no headers.
    pub fn aggregate_forward(&self, node: usize) -> TokenStream {
        let dk = dk();
        let n = &self.m.nodes[node];
        let name = &n.name;
        let NodeKind::Aggregate { store, .. } = &n.kind else {
            return quote!();
        };
        let st = &self.m.stores[*store];
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let nv = format_ident!("__v{}", node);
        let nk = format_ident!("__k{}", node);
        let general = self.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
        let (general, expected_key) = match st.window {
            None => (
                quote! {
                    let #nk = #dk::de_key::<#kt>(Some(__dk_skey), #name)?;
                    let #nv = #dk::de_value::<#vt>(__dk_record.value, #name)?;
                    #general
                },
                quote!(#kt),
            ),
            Some(w) => {
                let size = w.size;
                (
                    quote! {
                        let (__dk_kb, __dk_start) = match ::dekaf_streams::store::split_window_key(__dk_skey) {
                            Some(split) => split,
                            None => return Err(#dk::cache_key_error(#name)),
                        };
                        let __dk_end = __dk_start.saturating_add(#size);
                        let #nk = #dk::Windowed::new(#dk::de_key::<#kt>(Some(__dk_kb), #name)?, __dk_start, __dk_end);
                        let #nv = #dk::de_value::<#vt>(__dk_record.value, #name)?;
                        #general
                    },
                    quote!(::dekaf_streams::serdes::TimeWindowed<#kt, #size>),
                )
            }
        };
        let body = match self.direct_sink(node) {
            None => general,
            Some((topic, sk, sv)) => quote! {
                if ::core::any::TypeId::of::<#sk>() == ::core::any::TypeId::of::<#expected_key>()
                    && ::core::any::TypeId::of::<#sv>() == ::core::any::TypeId::of::<#vt>()
                {
                    #dk::send(
                        __dk_sink,
                        #topic,
                        #dk::TopicKind::Sink,
                        Some(__dk_skey),
                        __dk_record.value,
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                } else {
                    #general
                }
            },
        };
        quote! {
            let __dk_skey: &[u8] = __dk_record.key.unwrap_or_default();
            #body
        }
    }
}
