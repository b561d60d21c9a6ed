//! What the session and sliding aggregations' code shares: the names of the store's fields in
//! the task, the typed key and value, and the start of the per-record code (refuse a negative
//! timestamp, expire what the retention passed, encode the key).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{Ident, Type};

use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::WindowSpec;

/// The pieces of a windowed (session or sliding) aggregation's code.
pub(crate) struct WindowAgg<'m> {
    /// The node's name, for errors.
    pub name: &'m String,
    /// The node's span (the user's call).
    pub span: Span,
    /// The key and aggregate serde types.
    pub kt: &'m Type,
    pub vt: &'m Type,
    /// The aggregate's Rust type, `<vt as Serde>::Value`.
    pub vv: TokenStream,
    pub window: WindowSpec,
    /// The task's fields of the store: the store, its next purge time, its largest window end
    /// (session) or start (sliding), its index of keys by window, the node's record cache.
    pub field: Ident,
    pub purge: Ident,
    pub max: Ident,
    pub index: Ident,
    pub cache: Ident,
    /// The store's changelog topic.
    pub changelog: &'m String,
    /// The typed key and aggregate the downstream operators get (`__k<node>`, `__v<node>`).
    pub nk: Ident,
    pub nv: Ident,
    /// The record's typed key, by reference, spanned at the node.
    pub key_ref: TokenStream,
    /// Encodes the record's key into `self.__kbuf` (an `Encoded`).
    pub key_encode: TokenStream,
}

impl<'m> WindowAgg<'m> {
    /// The pieces of aggregation `node` on `store` for a record with key `k`; `None` for an
    /// unwindowed store.
    pub(crate) fn new(em: &Emitter<'m>, node: usize, store: usize, k: &Acc) -> Option<Self> {
        let dk = dk();
        let n = &em.m.nodes[node];
        let st = &em.m.stores[store];
        let window = st.window?;
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let name = &n.name;
        let kr = k.r(st.key.span);
        Some(WindowAgg {
            name,
            span: n.span,
            kt,
            vt,
            vv: quote!(<#vt as #dk::Serde>::Value),
            window,
            field: Emitter::store_field(store),
            purge: Emitter::purge_field(store),
            max: Emitter::max_field(store),
            index: Emitter::index_field(store),
            cache: crate::ops::cogroup::cache_field(em, node),
            changelog: &st.changelog,
            nk: format_ident!("__k{}", node),
            nv: format_ident!("__v{}", node),
            key_ref: k.r(n.span),
            key_encode: quote_spanned!(st.key.span=> #dk::ser::<#kt>(#kr, &mut self.__kbuf, #name)?),
        })
    }

    /// The start of the per-record code: a negative timestamp is an error; every half
    /// retention of stream time the windows that can take no record any more are deleted
    /// (sessions that ended more than gap + grace ago; sliding windows that started more than
    /// 2 × difference + grace ago: [`WindowSpec::retention`]); the key is encoded into `__dk_ke`.
    pub(crate) fn prelude(&self) -> TokenStream {
        let dk = dk();
        let Self {
            name,
            field,
            purge,
            index,
            cache,
            changelog,
            key_encode,
            ..
        } = self;
        let retention = self.window.retention();
        let purge_every = (retention / 2).max(1);
        quote! {
            if __dk_record.timestamp < 0 {
                return Err(#dk::timestamp_error(#name, __dk_record.timestamp));
            }
            if self.__stream_time >= self.#purge {
                self.#index.expire(&mut self.#field, self.__stream_time.saturating_sub(#retention), Some(&self.#cache), __dk_sink, #changelog, self.__partition, __dk_record.timestamp, #name)?;
                self.#purge = self.__stream_time.saturating_add(#purge_every);
            }
            let __dk_ke = #key_encode;
        }
    }
}
