//! The topology's typed handles: a `TopicRef` per user topic, a `StoreRef` (or window and
//! session variants) per store with a typed layout, for the test driver and interactive queries.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::ir::{Model, StoreOwner, TopicRole, WindowKind};
use crate::names::screaming;

/// Typed handles: `pub const SENTENCES: TopicRef<String, String>`, `pub const COUNTS: StoreRef<String, i64>`.
pub(super) fn handles(m: &Model) -> TokenStream {
    let dk = quote!(::dekaf_streams::__private);
    let mut out = TokenStream::new();
    let mut taken: Vec<String> = Vec::new();
    for t in &m.topics {
        if t.role == TopicRole::DeadLetter || taken.contains(&screaming(&t.name)) {
            continue;
        }
        let (Some(k), Some(v)) = (&t.key, &t.value) else {
            continue;
        };
        let c = syn::Ident::new(&screaming(&t.name), Span::call_site());
        taken.push(c.to_string());
        let (kt, vt) = (&k.ty, &v.ty);
        let role = match t.role {
            TopicRole::Source => "read as a stream",
            TopicRole::Table => "read as a table",
            _ => "written",
        };
        let doc = format!("Topic `{}` ({role}), with its serdes.", t.name);
        let topic = &t.name;
        out.extend(quote! {
            #[doc = #doc]
            pub const #c: #dk::TopicRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                #dk::TopicRef::new::<#kt, #vt>(#topic);
        });
    }
    for (s, st) in m.stores.iter().enumerate() {
        // A join's stores hold its internal layout: no typed handle.
        if matches!(
            st.owner,
            StoreOwner::JoinWindow(_)
                | StoreOwner::JoinShared
                | StoreOwner::FkSubscription
                | StoreOwner::JoinBuffer
        ) {
            continue;
        }
        let mut name = screaming(&st.name);
        if taken.contains(&name) {
            name.push_str("_STORE");
        }
        taken.push(name.clone());
        let c = syn::Ident::new(&name, Span::call_site());
        let (kt, vt) = (&st.key.ty, &st.value.ty);
        let sname = &st.name;
        let out_tokens = match st.window {
            Some(w) if w.kind == WindowKind::Session => {
                let doc = format!(
                    "Session-window store `{}` (changelog `{}`).",
                    st.name, st.changelog
                );
                quote! {
                    #[doc = #doc]
                    pub const #c: #dk::SessionStoreRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                        #dk::SessionStoreRef::new::<#kt, #vt>(#sname);
                }
            }
            None if st.owner == StoreOwner::Suppress => continue,
            None => {
                let doc = format!(
                    "Key-value store `{}` (changelog `{}`).",
                    st.name, st.changelog
                );
                let make = if m.timestamped(s) {
                    quote!(timestamped)
                } else {
                    quote!(new)
                };
                quote! {
                    #[doc = #doc]
                    pub const #c: #dk::StoreRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                        #dk::StoreRef::#make::<#kt, #vt>(#sname);
                }
            }
            // Sliding windows `[start, start + difference]`: the time-window key layout, with
            // timestamped values.
            Some(w) if w.kind == WindowKind::Sliding => {
                let difference = w.size;
                let doc = format!(
                    "Sliding-window store `{}` (changelog `{}`).",
                    st.name, st.changelog
                );
                quote! {
                    #[doc = #doc]
                    pub const #c: #dk::WindowStoreRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                        #dk::WindowStoreRef::sliding::<#kt, #vt>(#sname, #difference);
                }
            }
            Some(w) => {
                let size = w.size;
                let doc = format!("Window store `{}` (changelog `{}`).", st.name, st.changelog);
                // An aggregation's window store keeps Kafka Streams' timestamped entries.
                let make = if m.timestamped_window(s) {
                    quote!(timestamped)
                } else {
                    quote!(new)
                };
                quote! {
                    #[doc = #doc]
                    pub const #c: #dk::WindowStoreRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                        #dk::WindowStoreRef::#make::<#kt, #vt>(#sname, #size);
                }
            }
        };
        out.extend(out_tokens);
    }
    // A global table's store, for interactive queries (Kafka Streams' `store()` of a global
    // store): every instance answers every key.
    for g in &m.globals {
        let mut name = screaming(&g.store);
        if taken.contains(&name) {
            name.push_str("_STORE");
        }
        taken.push(name.clone());
        let c = syn::Ident::new(&name, Span::call_site());
        let (kt, vt) = (&g.key.ty, &g.value.ty);
        let sname = &g.store;
        let doc = format!(
            "Global table store `{}` (read from topic `{}` in every instance).",
            g.store, g.topic
        );
        out.extend(quote! {
            #[doc = #doc]
            pub const #c: #dk::StoreRef<<#kt as #dk::Serde>::Value, <#vt as #dk::Serde>::Value> =
                #dk::StoreRef::new::<#kt, #vt>(#sname);
        });
    }
    out
}
