//! The code of a foreign-key join's nodes ([`crate::ops::fk_join`]): the left task subscribes
//! on every change and resolves responses; the right task registers and answers subscriptions
//! and answers the subscribers of a changed right row. The runtime's `fk_*` functions do the
//! byte work in the task's `FkScratch` buffers; the code here serializes the user's keys and
//! values into them and calls the user's closures.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};

use crate::codegen::emitter::{Acc, Emit, Emitter, Part, dk};
use crate::codegen::parts::TaskParts;
use crate::ir::{FkJoin, FkRole, NodeKind, Sub};

/// The task's buffers of the join whose result is node `output`.
fn scratch(output: usize) -> syn::Ident {
    format_ident!("__fk_{}", output)
}

/// The code of the join's nodes.
pub(crate) const EMIT: Emit = Emit {
    record,
    source,
    null,
    ..Emit::NONE
};

fn record(em: &Emitter<'_>, node: usize, k: &Acc, v: &Acc) -> Option<TokenStream> {
    let NodeKind::FkJoin(f) = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit(em, node, f, k, v))
}

fn source(em: &Emitter<'_>, node: usize, _: &str) -> Option<TokenStream> {
    let NodeKind::FkJoin(f) = &em.m.nodes[node].kind else {
        return None;
    };
    Some(emit_source(em, node, f))
}

/// The join's nodes get no record with a null part (its sources read internal topics).
fn null(em: &Emitter<'_>, node: usize, _: &Part, _: &Part) -> Option<TokenStream> {
    let NodeKind::FkJoin(_) = &em.m.nodes[node].kind else {
        return None;
    };
    Some(quote!())
}

/// The buffer fields (and their initial values) of the foreign-key joins with nodes in `sub`.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let dk = dk();
    let m = em.m;
    let mut outputs: Vec<usize> = sub
        .nodes
        .iter()
        .filter_map(|&n| match &m.nodes[n].kind {
            NodeKind::FkJoin(f) => Some(f.output),
            _ => None,
        })
        .collect();
    outputs.sort_unstable();
    outputs.dedup();
    let fields: Vec<_> = outputs.iter().map(|&o| scratch(o)).collect();
    TaskParts {
        fields: quote!(#(#fields: #dk::FkScratch,)*),
        inits: quote!(#(#fields: #dk::FkScratch::new(),)*),
        ..TaskParts::default()
    }
}

/// A non-source node of the join: the left side's subscription, the right side's answers to a
/// changed right row; the others run in their source's code.
fn emit(em: &Emitter<'_>, node: usize, f: &FkJoin, k: &Acc, v: &Acc) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let (sp, name) = (n.span, &n.name);
    let s = scratch(f.output);
    let (left, right) = (&em.m.stores[f.left_store], &em.m.stores[f.right_store]);
    let kr = k.r(sp);
    match f.role {
        FkRole::Send => {
            let (lk, lv, fk) = (&left.key.ty, &left.value.ty, &right.key.ty);
            let vo = v.o(sp);
            let extractor = &f.extractor;
            let extract = if crate::args::closure_arity(extractor) == Some(2) {
                quote_spanned!(sp=> #dk::fk_extract_with_key(#kr, __dk_x, #extractor))
            } else {
                quote_spanned!(sp=> #dk::fk_extract(__dk_x, #extractor))
            };
            let topic = &f.subscription_topic;
            let left_join = f.left;
            quote! {
                let __dk_ch = #vo;
                #dk::ser::<#lk>(#kr, &mut self.#s.pk, #name)?;
                let __dk_hash = match &__dk_ch.new {
                    Some(__dk_x) => match #dk::ser::<#lv>(__dk_x, &mut self.#s.value, #name)? {
                        #dk::Encoded::Present => Some(#dk::fk_hash(&self.#s.value)),
                        #dk::Encoded::Null => None,
                    },
                    None => None,
                };
                let __dk_old_fk = match &__dk_ch.old {
                    Some(__dk_x) => {
                        let __dk_fk = #extract;
                        matches!(#dk::ser::<#fk>(&__dk_fk, &mut self.#s.old_fk, #name)?, #dk::Encoded::Present)
                    }
                    None => false,
                };
                let __dk_new_fk = match &__dk_ch.new {
                    Some(__dk_x) => {
                        let __dk_fk = #extract;
                        matches!(#dk::ser::<#fk>(&__dk_fk, &mut self.#s.new_fk, #name)?, #dk::Encoded::Present)
                    }
                    None => false,
                };
                #dk::fk_subscribe(
                    __dk_sink,
                    #topic,
                    #left_join,
                    __dk_ch.old.is_some(),
                    __dk_ch.new.is_some(),
                    __dk_old_fk,
                    __dk_new_fk,
                    __dk_hash,
                    self.__partition,
                    __dk_record.timestamp,
                    __dk_record.headers,
                    &mut self.#s,
                )?;
            }
        }
        FkRole::ForeignChange => {
            let fk = &right.key.ty;
            let (subs, rs) = (
                Emitter::store_field(f.subscriptions),
                Emitter::store_field(f.right_store),
            );
            let topic = &f.response_topic;
            quote! {
                // A right row without a key has no subscribers (Kafka Streams skips it).
                if let #dk::Encoded::Present = #dk::ser::<#fk>(#kr, &mut self.#s.new_fk, #name)? {
                    #dk::fk_foreign_change(
                        &self.#subs,
                        &self.#rs,
                        #topic,
                        __dk_record.timestamp,
                        __dk_record.headers,
                        &mut self.#s,
                        __dk_sink,
                        #name,
                    )?;
                }
            }
        }
        _ => quote!(),
    }
}

/// A source node of the join: the right task's subscriptions, or the left task's responses
/// (resolved, joined and forwarded as the result's changes).
fn emit_source(em: &Emitter<'_>, node: usize, f: &FkJoin) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let s = scratch(f.output);
    match f.role {
        FkRole::SubscriptionSource => {
            let (subs, rs) = (
                Emitter::store_field(f.subscriptions),
                Emitter::store_field(f.right_store),
            );
            let changelog = &em.m.stores[f.subscriptions].changelog;
            let topic = &f.response_topic;
            quote! {
                #dk::fk_receive(
                    &mut self.#subs,
                    &self.#rs,
                    __dk_record,
                    #changelog,
                    #topic,
                    self.__partition,
                    &mut self.#s,
                    __dk_sink,
                    #name,
                )?;
            }
        }
        FkRole::ResponseSource => {
            let out = &em.m.nodes[f.output];
            let sp = out.span;
            let (left, right) = (&em.m.stores[f.left_store], &em.m.stores[f.right_store]);
            let (lk, lv, rv) = (&left.key.ty, &left.value.ty, &right.value.ty);
            let ls = Emitter::store_field(f.left_store);
            let joiner = &f.joiner;
            let (join, left_join, ka) = if crate::args::takes_key(joiner) {
                (
                    quote!(fk_join_with_key),
                    quote!(fk_left_join_with_key),
                    quote!(&__dk_k,),
                )
            } else {
                (quote!(fk_join), quote!(fk_left_join), quote!())
            };
            let joined = if f.left {
                quote_spanned!(sp=> Some(#dk::#left_join(#ka &__dk_l, __dk_f.as_ref(), #joiner)))
            } else {
                quote_spanned!(sp=> match &__dk_f {
                    Some(__dk_f) => Some(#dk::#join(#ka &__dk_l, __dk_f, #joiner)),
                    None => None,
                })
            };
            let k = format_ident!("__k{}", f.output);
            let v = format_ident!("__v{}", f.output);
            let children = em.children(f.output, &Acc::owned(k.clone()), &Acc::owned(v.clone()));
            quote! {
                // Resolved in a block: the left store is borrowed only while the response is
                // read and joined.
                let (#k, #v) = {
                    let Some(__dk_r) = #dk::fk_resolve(&self.#ls, __dk_record, #name)? else {
                        // Stale: the left row changed since it subscribed.
                        return Ok(());
                    };
                    let __dk_k = #dk::de_key::<#lk>(Some(__dk_r.pk), #name)?;
                    let __dk_f = match __dk_r.foreign {
                        Some(__dk_b) => Some(#dk::de_value::<#rv>(Some(__dk_b), #name)?),
                        None => None,
                    };
                    // No left row: a tombstone (it was deleted, or its key became null).
                    let __dk_new = match __dk_r.left {
                        Some(__dk_b) => {
                            let __dk_l = #dk::de_value::<#lv>(Some(__dk_b), #name)?;
                            #joined
                        }
                        None => None,
                    };
                    (__dk_k, #dk::Change { new: __dk_new, old: None })
                };
                #children
            }
        }
        _ => quote!(),
    }
}
