//! The shortcut of an aggregation followed directly by `to_stream().to(..)`: when the sink's
//! serdes are the store's, the store's bytes are the sink's, so they are sent as they are
//! (no decoding into the typed key and value, no encoding again). The check compares types, a
//! constant after monomorphization, so a sink with any other serde takes the general path at
//! no cost. Used by every kind of aggregation (unwindowed, time, session and sliding windows),
//! on the record path and in the record cache's flush.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::NodeKind;

/// The sink right after aggregation `node`'s `to_stream()`, when that is all that follows it:
/// its topic and its key and value serde types.
pub(crate) fn direct_sink<'m>(
    em: &Emitter<'m>,
    node: usize,
) -> Option<(&'m String, &'m syn::Type, &'m syn::Type)> {
    let [to_stream] = em.m.nodes[node].children.as_slice() else {
        return None;
    };
    let to_stream = &em.m.nodes[*to_stream];
    if !matches!(to_stream.kind, NodeKind::ToStream) {
        return None;
    }
    let [sink] = to_stream.children.as_slice() else {
        return None;
    };
    match &em.m.nodes[*sink].kind {
        NodeKind::Sink {
            topic,
            key,
            value,
            chosen: None,
            partitioner: None,
        } => Some((topic, &key.ty, &value.ty)),
        _ => None,
    }
}

/// `general`, or, where aggregation `node` has a [`direct_sink`] whose key serde is
/// `expected_key` (the store key's serde: the key's, or its windowed form) and whose value
/// serde is the store's `value_serde`, the store's bytes sent to it as they are: `key` is an
/// expression of the key bytes (`&[u8]`), `value` of the value bytes (`Option<&[u8]>`, `None`
/// for a deletion). The generated code sends with the current `__dk_record`'s timestamp and
/// headers.
pub(crate) fn store_bytes_or(
    em: &Emitter<'_>,
    node: usize,
    expected_key: &TokenStream,
    value_serde: &syn::Type,
    key: TokenStream,
    value: TokenStream,
    general: TokenStream,
) -> TokenStream {
    let dk = dk();
    let Some((topic, sk, sv)) = direct_sink(em, node) else {
        return general;
    };
    quote! {
        if ::core::any::TypeId::of::<#sk>() == ::core::any::TypeId::of::<#expected_key>()
            && ::core::any::TypeId::of::<#sv>() == ::core::any::TypeId::of::<#value_serde>()
        {
            #dk::send(
                __dk_sink,
                #topic,
                #dk::TopicKind::Sink,
                Some(#key),
                #value,
                __dk_record.timestamp,
                __dk_record.headers,
            )?;
        } else {
            #general
        }
    }
}

/// The general path of a windowed aggregation's flush: the window's typed key (decoded from
/// its key bytes `__dk_kb`, with `__dk_start` and `__dk_end`) and value (decoded from the
/// flushed record's value), then `node`'s downstream operators on them.
pub(crate) fn flushed_window_children(
    em: &Emitter<'_>,
    node: usize,
    key_serde: &syn::Type,
    value_serde: &syn::Type,
) -> TokenStream {
    let dk = dk();
    let name = &em.m.nodes[node].name;
    let nv = format_ident!("__v{}", node);
    let nk = format_ident!("__k{}", node);
    let children = em.children(node, &Acc::owned(nk.clone()), &Acc::owned(nv.clone()));
    quote! {
        let #nk = #dk::Windowed::new(#dk::de_key::<#key_serde>(Some(__dk_kb), #name)?, __dk_start, __dk_end);
        let #nv = #dk::de_value::<#value_serde>(__dk_record.value, #name)?;
        #children
    }
}
