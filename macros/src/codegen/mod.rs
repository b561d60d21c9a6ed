//! Phase 4: Rust code. The topology type with its typed handles and `Topology` impl, the
//! static `TopologyInfo`, and per subtopology a task struct whose `process` runs every operator
//! inline ([`emitter`], and each operator's file under [`crate::ops`]).

mod cache;
pub mod direct_sink;
pub mod emitter;
pub mod fk_join;
pub mod info;
pub mod nulls;
pub mod raw_key;
pub mod session;
pub mod sliding;
mod stream_join;
pub mod suppress;
pub mod window_agg;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};

use crate::ir::{Model, StoreOwner, TopicRole};
use crate::names::screaming;
use emitter::Emitter;

/// The whole expansion.
pub fn generate(m: &Model) -> TokenStream {
    let name = &m.name;
    let vis = &m.vis;
    let attrs = &m.attrs;
    let app = &m.app_id;
    let dk = quote!(::dekaf_streams::__private);
    let description = crate::describe::describe(m);
    let info = info::info(m);
    let windowed_sinks = info::windowed_sinks(m);
    let task_enum = format_ident!("__{}Task", name);
    let em = Emitter {
        m,
        topo: name.clone(),
    };

    let handles = handles(m);
    let on_error = match &m.on_error {
        Some(f) => quote!(#dk::on_error(__dk_error, #f)),
        None => quote!(#dk::default_on_error(__dk_error)),
    };

    let mut subs = Vec::new();
    let mut variants = Vec::new();
    let mut creates = Vec::new();
    for sub in &m.subs {
        let sub_ty = format_ident!("__{}Sub{}", name, sub.id);
        let variant = format_ident!("S{}", sub.id);
        let id = sub.protocol_id.to_string();
        let idx = sub.id;
        variants.push(quote!(#variant(#sub_ty<B>)));
        creates
            .push(quote!(#id => Ok(#task_enum::#variant(#sub_ty::__create(partition, stores)?)),));

        let store_fields: Vec<_> = sub
            .stores
            .iter()
            .map(|&s| Emitter::store_field(s))
            .collect();
        let purge_fields: Vec<_> = sub
            .stores
            .iter()
            .filter(|&&s| m.stores[s].window.is_some())
            .map(|&s| Emitter::purge_field(s))
            .collect();
        // The largest time stored in each session or sliding-window store (session end, window
        // start): what is older than it minus retention is expired (Kafka Streams' stores).
        let session_or_sliding: Vec<usize> = sub
            .stores
            .iter()
            .copied()
            .filter(|&s| {
                m.stores[s]
                    .window
                    .is_some_and(|w| w.kind != crate::ir::WindowKind::Time)
            })
            .collect();
        let max_fields: Vec<_> = session_or_sliding
            .iter()
            .map(|&s| Emitter::max_field(s))
            .collect();
        // Per window store its time index (the offset of the time in its keys below).
        let windowed: Vec<usize> = sub
            .stores
            .iter()
            .copied()
            .filter(|&s| m.stores[s].window.is_some())
            .collect();
        let index_fields: Vec<_> = windowed.iter().map(|&s| Emitter::index_field(s)).collect();
        // Where a store key's time is, counted from its end: a session key ends with end ‖ start,
        // a time or sliding window key with start ‖ sequence number (`store::WINDOW_SUFFIX`).
        let index_offsets: Vec<TokenStream> = windowed
            .iter()
            .map(|&s| match m.stores[s].window.map(|w| w.kind) {
                Some(crate::ir::WindowKind::Session) => quote!(16),
                _ => quote!(::dekaf_streams::store::WINDOW_SUFFIX),
            })
            .collect();
        let indexed_stores: Vec<_> = windowed.iter().map(|&s| Emitter::store_field(s)).collect();
        let max_index_fields: Vec<_> = session_or_sliding
            .iter()
            .map(|&s| Emitter::index_field(s))
            .collect();
        let store_infos = sub.stores.iter().map(|&s| info::store_info(m, s));
        let sources: Vec<(String, usize)> = sub
            .source_topics
            .iter()
            .chain(&sub.repartition_sources)
            .cloned()
            .collect();
        let source_names = sources.iter().map(|(t, _)| t);
        let mut source_fns = Vec::new();
        let mut arms = Vec::new();
        for (i, (topic, node)) in sources.iter().enumerate() {
            let f = format_ident!("__source_{}", i);
            let body = em.source(*node);
            source_fns.push(emitter::record_method(&f, &body));
            let node_name = &m.nodes[*node].name;
            arms.push(quote! {
                #i => (
                    ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| self.#f(__dk_record, __dk_sink))),
                    #topic,
                    #node_name,
                ),
            });
        }
        let restores = sub
            .stores
            .iter()
            .filter(|&&s| m.stores[s].logged || m.stores[s].owner == StoreOwner::Table)
            .map(|&s| {
                let topic = &m.stores[s].changelog;
                let f = Emitter::store_field(s);
                stream_join::restore(m, s).unwrap_or_else(|| {
                    if let Some(w) = m.stores[s].window {
                        let index = Emitter::index_field(s);
                        // Session and sliding stores track their newest time, which a restore
                        // rebuilds (as Kafka Streams' stores do from the changelog).
                        let max = (w.kind != crate::ir::WindowKind::Time).then(|| {
                            let max = Emitter::max_field(s);
                            quote! {
                                if value.is_some() {
                                    if let Some(t) = self.#index.time_of(key) {
                                        self.#max = ::core::cmp::max(self.#max, t);
                                    }
                                }
                            }
                        });
                        // A time-window aggregation's store is timestamped (its changelog
                        // record's timestamp goes before the value).
                        let put = if m.timestamped_window(s) {
                            quote!(#dk::restore_table(&mut self.#f, key, value, timestamp, &mut self.__vbuf))
                        } else {
                            quote!(#dk::restore(&mut self.#f, key, value))
                        };
                        quote!(#topic => {
                            #max
                            self.#index.restored(key, value);
                            #put
                        })
                    } else if m.timestamped(s) {
                        // A table's store keeps the changelog record's timestamp with the value.
                        quote!(#topic => #dk::restore_table(&mut self.#f, key, value, timestamp, &mut self.__vbuf),)
                    } else {
                        quote!(#topic => #dk::restore(&mut self.#f, key, value),)
                    }
                })
            });
        let (join_fields, join_inits, join_clear) = stream_join::state(m, sub);
        let (global_fields, global_inits, global_attach) =
            crate::ops::global_table::task_parts(m, sub);
        let (fk_fields, fk_inits) = fk_join::task_parts(m, sub);
        let store_visits = sub.stores.iter().enumerate().map(|(j, &s)| {
            let f = Emitter::store_field(s);
            quote!(__dk_f(&<#name as #dk::Topology>::INFO.subtopologies[#idx].stores[#j], &mut self.#f)?;)
        });
        let cache::CacheParts {
            fields: cache_fields,
            inits: cache_inits,
            methods: cache_methods,
            trait_items: cache_trait_items,
            clear: cache_clear,
            after_record: cache_after_record,
        } = cache::parts(&em, sub);
        let punct = crate::ops::punctuate::parts(&em, sub, &cache_after_record);
        let (punct_fields, punct_inits, punct_clear, punct_methods, punct_items) = (
            &punct.fields,
            &punct.inits,
            &punct.clear,
            &punct.methods,
            &punct.trait_items,
        );
        // A join's window state is rebuilt only by a full restore: a task with one never keeps
        // its stores through an aborted interval.
        let discard_body = if join_clear.is_empty() {
            quote! {
                let mut __dk_kept = true;
                #(__dk_kept &= #dk::StoreBackend::discard_pending(&mut self.#store_fields)?;)*
                if !__dk_kept {
                    return Ok(false);
                }
                #(self.#purge_fields = i64::MIN;)*
                #(self.#index_fields.rebuild(&self.#indexed_stores)?;)*
                #(self.#max_fields = self.#max_index_fields.latest();)*
                #cache_clear
                Ok(true)
            }
        } else {
            quote!(Ok(false))
        };
        let needs_full_restore = !join_clear.is_empty();
        let store_lookups = sub.stores.iter().map(|&s| {
            let n = &m.stores[s].name;
            let f = Emitter::store_field(s);
            quote!(#n => Some(&self.#f),)
        });

        subs.push(quote! {
            pub struct #sub_ty<B> {
                __partition: i32,
                __stream_time: i64,
                __late: u64,
                __skipped: u64,
                __dropped: u64,
                __kbuf: ::std::vec::Vec<u8>,
                __vbuf: ::std::vec::Vec<u8>,
                __win: #dk::WindowScratch,
                #(#store_fields: B,)*
                #(#purge_fields: i64,)*
                #(#max_fields: i64,)*
                #(#index_fields: #dk::TimeIndex,)*
                #join_fields
                #global_fields
                #fk_fields
                #cache_fields
                #punct_fields
                __marker: ::core::marker::PhantomData<fn() -> B>,
            }

            impl<B: #dk::StoreBackend> #sub_ty<B> {
                fn __create<F: #dk::BackendFactory<Backend = B>>(
                    partition: i32,
                    stores: &mut F,
                ) -> ::core::result::Result<Self, #dk::TaskError> {
                    let mut __dk_task = Self {
                        __partition: partition,
                        __stream_time: i64::MIN,
                        __late: 0,
                        __skipped: 0,
                        __dropped: 0,
                        __kbuf: ::std::vec::Vec::with_capacity(64),
                        __vbuf: ::std::vec::Vec::with_capacity(64),
                        __win: #dk::WindowScratch::new(),
                        #(#store_fields: stores.open(#app, #id, partition, &#store_infos)?,)*
                        #(#purge_fields: i64::MIN,)*
                        #(#max_fields: i64::MIN,)*
                        #(#index_fields: #dk::TimeIndex::new(#index_offsets),)*
                        #join_inits
                        #global_inits
                        #fk_inits
                        #cache_inits
                        #punct_inits
                        __marker: ::core::marker::PhantomData,
                    };
                    // A store opened with windows in it (on disk): index them once.
                    #(__dk_task.#index_fields.rebuild(&__dk_task.#indexed_stores)?;)*
                    #(__dk_task.#max_fields = __dk_task.#max_index_fields.latest();)*
                    Ok(__dk_task)
                }

                #(#source_fns)*

                #cache_methods

                #punct_methods
            }

            impl<B: #dk::StoreBackend> #dk::Task for #sub_ty<B> {
                type Backend = B;

                fn subtopology(&self) -> &'static #dk::SubtopologyInfo {
                    &<#name as #dk::Topology>::INFO.subtopologies[#idx]
                }

                fn partition(&self) -> i32 {
                    self.__partition
                }

                fn source_topics(&self) -> &'static [&'static str] {
                    &[#(#source_names),*]
                }

                fn process<S: #dk::RecordSink>(
                    &mut self,
                    __dk_record: &#dk::InputRecord<'_>,
                    __dk_sink: &mut S,
                ) -> ::core::result::Result<(), #dk::TaskError> {
                    if __dk_record.timestamp > self.__stream_time {
                        self.__stream_time = __dk_record.timestamp;
                    }
                    let (__dk_result, __dk_topic, __dk_node) = match __dk_record.source {
                        #(#arms)*
                        other => return Err(#dk::TaskError::UnknownSource(other)),
                    };
                    let __dk_result = match __dk_result {
                        Ok(r) => r,
                        Err(payload) => Err(#dk::panicked(__dk_node, payload)),
                    };
                    match __dk_result {
                        Ok(()) => {}
                        Err(e) => #dk::handle_error(e, __dk_topic, __dk_record, #name::__on_error, &mut self.__skipped, __dk_sink)?,
                    }
                    #cache_after_record
                    Ok(())
                }

                #cache_trait_items

                #global_attach
                #punct_items

                #[allow(unused_variables)]
                fn restore(&mut self, changelog_topic: &str, key: &[u8], value: Option<&[u8]>, timestamp: i64) -> ::core::result::Result<(), #dk::TaskError> {
                    match changelog_topic {
                        #(#restores)*
                        other => Err(#dk::TaskError::UnknownChangelog(other.to_owned())),
                    }
                }

                fn clear(&mut self) -> ::core::result::Result<(), #dk::TaskError> {
                    #(#dk::StoreBackend::clear(&mut self.#store_fields)?;)*
                    #(self.#purge_fields = i64::MIN;)*
                    #(self.#max_fields = i64::MIN;)*
                    #(self.#index_fields.clear();)*
                    #join_clear
                    #cache_clear
                    #punct_clear
                    self.__stream_time = i64::MIN;
                    Ok(())
                }

                fn discard_uncommitted(&mut self) -> ::core::result::Result<bool, #dk::TaskError> {
                    #discard_body
                }

                fn needs_full_restore(&self) -> bool {
                    #needs_full_restore
                }

                fn stream_time(&self) -> i64 {
                    self.__stream_time
                }

                fn set_stream_time(&mut self, stream_time: i64) {
                    self.__stream_time = stream_time;
                }

                fn late_records_dropped(&self) -> u64 {
                    self.__late
                }

                fn records_skipped(&self) -> u64 {
                    self.__skipped
                }

                fn null_records_dropped(&self) -> u64 {
                    self.__dropped
                }

                #[allow(unused_variables)]
                fn store(&self, name: &str) -> Option<&B> {
                    match name {
                        #(#store_lookups)*
                        _ => None,
                    }
                }

                #[allow(unused_variables, unused_mut)]
                fn for_each_store<E>(
                    &mut self,
                    mut __dk_f: impl FnMut(&'static #dk::StoreInfo, &mut B) -> ::core::result::Result<(), E>,
                ) -> ::core::result::Result<(), E> {
                    #(#store_visits)*
                    Ok(())
                }
            }
        });
    }

    let contexts = crate::ops::process::contexts(m, &em);
    let sub_variants: Vec<_> = m.subs.iter().map(|s| format_ident!("S{}", s.id)).collect();
    let delegate = |call: TokenStream| {
        let arms = sub_variants
            .iter()
            .map(|v| quote!(#task_enum::#v(t) => t.#call,));
        quote!(match self { #(#arms)* })
    };
    let d_sub = delegate(quote!(subtopology()));
    let d_part = delegate(quote!(partition()));
    let d_src = delegate(quote!(source_topics()));
    let d_proc = delegate(quote!(process(record, sink)));
    let d_rest = delegate(quote!(restore(changelog_topic, key, value, timestamp)));
    let d_clear = delegate(quote!(clear()));
    let d_discard = delegate(quote!(discard_uncommitted()));
    let d_full = delegate(quote!(needs_full_restore()));
    let d_st = delegate(quote!(stream_time()));
    let d_sst = delegate(quote!(set_stream_time(stream_time)));
    let d_late = delegate(quote!(late_records_dropped()));
    let d_skip = delegate(quote!(records_skipped()));
    let d_null = delegate(quote!(null_records_dropped()));
    let d_store = delegate(quote!(store(name)));
    let d_each = delegate(quote!(for_each_store(f)));
    let d_set_cache = delegate(quote!(set_cache_max_bytes(bytes)));
    let d_flush_cache = delegate(quote!(flush_cache(sink)));
    let d_cache_bytes = delegate(quote!(cache_bytes()));
    let d_attach = delegate(quote!(attach_global_stores(globals)));
    let global_tables = crate::ops::global_table::infos(m);
    let d_punct_stream = delegate(quote!(punctuate_stream_time(sink)));
    let d_wall_due = delegate(quote!(wall_clock_due(now_ms)));
    let d_punct_wall = delegate(quote!(punctuate_wall_clock(now_ms, sink)));
    let doc_task = format!("The task of one subtopology of [`{name}`], over store backend `B`.");

    quote! {
        #(#attrs)*
        #[derive(Debug, Clone, Copy, Default)]
        #vis struct #name;

        impl #name {
            #handles
        }

        // The task types live in an anonymous const: they are the `Topology::Task` of the
        // topology, reachable through the trait, but add no names to the user's module.
        const _: () = {
        impl #name {
            fn __on_error(__dk_error: &#dk::ProcessingError) -> #dk::ErrorResponse {
                #on_error
            }
        }

        #[doc = #doc_task]
        pub enum #task_enum<B> {
            #(#variants,)*
        }

        #(#subs)*

        #contexts

        impl<B: #dk::StoreBackend> #dk::Task for #task_enum<B> {
            type Backend = B;
            fn subtopology(&self) -> &'static #dk::SubtopologyInfo { #d_sub }
            fn partition(&self) -> i32 { #d_part }
            fn source_topics(&self) -> &'static [&'static str] { #d_src }
            #[inline]
            fn process<S: #dk::RecordSink>(&mut self, record: &#dk::InputRecord<'_>, sink: &mut S) -> ::core::result::Result<(), #dk::TaskError> { #d_proc }
            fn restore(&mut self, changelog_topic: &str, key: &[u8], value: Option<&[u8]>, timestamp: i64) -> ::core::result::Result<(), #dk::TaskError> { #d_rest }
            fn clear(&mut self) -> ::core::result::Result<(), #dk::TaskError> { #d_clear }
            fn discard_uncommitted(&mut self) -> ::core::result::Result<bool, #dk::TaskError> { #d_discard }
            fn needs_full_restore(&self) -> bool { #d_full }
            fn stream_time(&self) -> i64 { #d_st }
            fn set_stream_time(&mut self, stream_time: i64) { #d_sst }
            fn late_records_dropped(&self) -> u64 { #d_late }
            fn records_skipped(&self) -> u64 { #d_skip }
            fn null_records_dropped(&self) -> u64 { #d_null }
            fn store(&self, name: &str) -> Option<&B> { #d_store }
            fn for_each_store<E>(&mut self, f: impl FnMut(&'static #dk::StoreInfo, &mut B) -> ::core::result::Result<(), E>) -> ::core::result::Result<(), E> { #d_each }
            fn set_cache_max_bytes(&mut self, bytes: usize) { #d_set_cache }
            fn flush_cache<S: #dk::RecordSink>(&mut self, sink: &mut S) -> ::core::result::Result<(), #dk::TaskError> { #d_flush_cache }
            fn cache_bytes(&self) -> usize { #d_cache_bytes }
            fn attach_global_stores(&mut self, globals: &#dk::GlobalStores) { #d_attach }
            fn punctuate_stream_time<S: #dk::RecordSink>(&mut self, sink: &mut S) -> ::core::result::Result<bool, #dk::TaskError> { #d_punct_stream }
            fn wall_clock_due(&mut self, now_ms: i64) -> bool { #d_wall_due }
            fn punctuate_wall_clock<S: #dk::RecordSink>(&mut self, now_ms: i64, sink: &mut S) -> ::core::result::Result<bool, #dk::TaskError> { #d_punct_wall }
        }

        impl #dk::Topology for #name {
            const APPLICATION_ID: &'static str = #app;
            const INFO: &'static #dk::TopologyInfo = &#info;
            const DESCRIPTION: &'static str = #description;
            #global_tables
            const WINDOWED_SINKS: &'static [#dk::WindowedSink] = #windowed_sinks;
            type Task<B: #dk::StoreBackend> = #task_enum<B>;

            fn create_task<F: #dk::BackendFactory>(
                subtopology: &str,
                partition: i32,
                stores: &mut F,
            ) -> ::core::result::Result<Self::Task<F::Backend>, #dk::TaskError> {
                match subtopology {
                    #(#creates)*
                    other => Err(#dk::TaskError::UnknownSubtopology(other.to_owned())),
                }
            }
        }
        };
    }
}

/// Typed handles: `pub const SENTENCES: TopicRef<String, String>`, `pub const COUNTS: StoreRef<String, i64>`.
fn handles(m: &Model) -> TokenStream {
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
            StoreOwner::JoinWindow(_) | StoreOwner::JoinShared | StoreOwner::FkSubscription
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
            Some(w) if w.kind == crate::ir::WindowKind::Session => {
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
            Some(w) if w.kind == crate::ir::WindowKind::Sliding => {
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
