//! The value an aggregation stores: the initializer's, and the new aggregate of a record.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::Type;

use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::ir::AggOp;

/// The aggregate's initial value: `init()`, typed by the aggregate serde `vt` and spanned at the
/// initializer, so a type mismatch is reported there, naming the bound of `aggregate(..)`'s
/// initializer.
pub(crate) fn initializer(init: &syn::Expr, vt: &Type) -> TokenStream {
    let isp = syn::spanned::Spanned::span(init);
    // The closure is bound first so rustc infers its own return type and then reports the bound
    // it fails, rather than a bare "mismatched types" inside it.
    quote_spanned!(isp=> {
        let __dk_init = #init;
        ::dekaf_streams::__private::aggregate_initializer_returns_the_aggregate_serde_type::<#vt, _>(__dk_init)
    })
}

/// The new aggregate of aggregation `node`, an expression of `__dk_old` (the current aggregate,
/// `None` for none) and the record: count adds one, reduce applies the reducer (or takes the
/// value), aggregate applies the aggregator (to the initializer for none). `value_once`: the
/// record's value is moved (else cloned, for a record that updates several windows).
pub(crate) fn new_value(
    em: &Emitter<'_>,
    node: usize,
    store: usize,
    op: &AggOp,
    k: &Acc,
    v: &Acc,
    value_once: bool,
) -> TokenStream {
    let dk = dk();
    let sp = em.m.nodes[node].span;
    let vt = &em.m.stores[store].value.ty;
    let vo = if value_once {
        v.o(sp)
    } else {
        let r = v.r(sp);
        quote_spanned!(sp=> ::core::clone::Clone::clone(#r))
    };
    let krr = k.r(sp);
    match op {
        AggOp::Count => quote! {
            match __dk_old { Some(c) => i64::saturating_add(c, 1), None => 1i64 }
        },
        AggOp::Reduce(f) => {
            let call = quote_spanned!(sp=> #dk::reduce(__dk_a, #vo, #f));
            quote! { match __dk_old { Some(__dk_a) => #call, None => #vo } }
        }
        AggOp::Aggregate { init, f, .. } => {
            let init = initializer(init, vt);
            let call = quote_spanned!(sp=> #dk::aggregator(#krr, #vo, __dk_a, #f));
            quote! {
                {
                    let __dk_a = match __dk_old { Some(a) => a, None => #init };
                    #call
                }
            }
        }
    }
}
