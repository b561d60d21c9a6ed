//! Keys an aggregation takes as the record's bytes. A count or reduce reached straight from a
//! source (no operator touched the key) stores the key's record bytes when its serde
//! round-trips them (`Serde::BYTES_ROUND_TRIP`, the same serde for the
//! source and the store): the source checks the bytes as decoding would (the same errors),
//! and the key is decoded only where typed code downstream needs it. Other serdes (JSON) decode
//! at the source and encode the store key, as before.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Type;

use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::{AggOp, NodeKind, WindowKind};

/// Where an aggregation's key comes from.
pub(crate) enum KeyIn<'a> {
    /// A local holding the typed key.
    Typed(&'a Acc),
    /// The record's key bytes, unchanged since source node `source` read them with `serde`
    /// ([`raw_key_source`]): stored as they are when the serdes allow it (`keeps_key_bytes`),
    /// then decoded only where typed code needs the key.
    Raw { source: usize, serde: &'a Type },
}

/// The key statement of source node `source` (key serde `serde`) whose one child is the
/// aggregation `node` taking a [`KeyIn::Raw`] key: `__k<source>` is `None` when the key's bytes
/// are kept (checked with the serde, as decoding would), else the decoded key.
pub(crate) fn raw_key_source(
    em: &Emitter<'_>,
    source: usize,
    serde: &Type,
    node: usize,
) -> TokenStream {
    let dk = dk();
    let NodeKind::Aggregate { store, .. } = &em.m.nodes[node].kind else {
        return quote!();
    };
    let kt = &em.m.stores[*store].key.ty;
    let kid = format_ident!("__k{}", source);
    let name = &em.m.nodes[source].name;
    let topic = source_topic(em, source);
    quote! {
        let #kid: ::core::option::Option<<#serde as #dk::Serde>::Value> =
            if #dk::keeps_key_bytes::<#serde, #kt>() {
                #dk::check_key_at::<#serde>(#topic, __dk_record.key, #name)?;
                None
            } else {
                Some(#dk::de_key_at::<#serde>(#topic, __dk_record.key, #name)?)
            };
    }
}

/// The topic source node `source` reads (a user or repartition topic).
fn source_topic(em: &Emitter<'_>, source: usize) -> String {
    match &em.m.nodes[source].kind {
        NodeKind::Source { topic, .. } | NodeKind::RepartitionSource { topic, .. } => topic.clone(),
        _ => String::new(),
    }
}

/// Whether the aggregation `node` can take its key as the record's bytes ([`KeyIn::Raw`]): a
/// count or reduce (no closure sees the key), unwindowed or over time windows.
pub(crate) fn takes_raw_key(em: &Emitter<'_>, node: usize) -> bool {
    match &em.m.nodes[node].kind {
        NodeKind::Aggregate {
            store,
            op: AggOp::Count | AggOp::Reduce(_),
            ..
        } => em.m.stores[*store]
            .window
            .is_none_or(|w| w.kind == WindowKind::Time),
        _ => false,
    }
}

/// The key parts of an aggregation taking a [`KeyIn::Raw`] key from source node `source`:
/// the expression writing the store key bytes (serde `kt`, errors spanned at `span`) into
/// `__kbuf` (`ke`), the statement typed code runs first to have the decoded key (`bind`), and the local holding it then. `value_once`:
/// the key is used once (else once per window of a hopping record, cloned each time).
pub(crate) fn key_parts(
    em: &Emitter<'_>,
    source: usize,
    serde: &Type,
    kt: &Type,
    span: Span,
    name: &str,
    value_once: bool,
) -> (TokenStream, TokenStream, Acc) {
    let dk = dk();
    let kid = format_ident!("__k{}", source);
    let sname = &em.m.nodes[source].name;
    let stopic = source_topic(em, source);
    let ke = quote_spanned!(span=>
        match &#kid {
            None => #dk::key_bytes(__dk_record.key, &mut self.__kbuf),
            Some(__dk_k) => #dk::ser::<#kt>(__dk_k, &mut self.__kbuf, #name)?,
        }
    );
    // Typed code takes the decoded key (moved; cloned per window of a hopping record, as
    // a typed key is), or the key decoded now from the checked bytes.
    let decoded = if value_once {
        quote!(#kid)
    } else {
        quote!(&#kid)
    };
    let take = if value_once {
        quote!(__dk_k)
    } else {
        quote!(::core::clone::Clone::clone(__dk_k))
    };
    let bind = quote! {
        let #kid: <#serde as #dk::Serde>::Value = match #decoded {
            Some(__dk_k) => #take,
            None => #dk::de_key_at::<#serde>(#stopic, __dk_record.key, #sname)?,
        };
    };
    (ke, bind, Acc::owned(kid))
}

/// The store key of an unwindowed aggregation taking a [`KeyIn::Raw`] key from source node
/// `source`: an expression of `(Encoded, &[u8])`, the record's own key bytes when they are kept
/// (no copy), else the key encoded with serde `kt` (errors spanned at `span`) into `__kbuf`.
pub(crate) fn key_slice(source: usize, kt: &Type, span: Span, name: &str) -> TokenStream {
    let dk = dk();
    let kid = format_ident!("__k{}", source);
    quote_spanned!(span=>
        match &#kid {
            None => #dk::key_slice(__dk_record.key),
            Some(__dk_k) => {
                let __dk_e = #dk::ser::<#kt>(__dk_k, &mut self.__kbuf, #name)?;
                (__dk_e, self.__kbuf.as_slice())
            }
        }
    )
}
