//! Phase 4: Rust code. The topology type with its typed handles ([`handles`]) and `Topology`
//! impl, the static `TopologyInfo` ([`info`]), and per subtopology a task ([`task`]) whose
//! `process` runs every operator inline ([`emitter`], and each operator's file under
//! `crate::ops`, reached through the registry's [`emitter::Emit`]).

pub(crate) mod emitter;
mod handles;
pub(crate) mod info;
pub(crate) mod parts;
mod stores;
mod task;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::ir::Model;
use emitter::Emitter;

/// The whole expansion.
pub(crate) fn generate(m: &Model) -> TokenStream {
    let name = &m.name;
    let vis = &m.vis;
    let attrs = &m.attrs;
    let dk = emitter::dk();
    let em = Emitter {
        m,
        topo: name.clone(),
        ops: crate::ops::emits(),
    };
    let handles = handles::handles(m);
    let on_error = match &m.on_error {
        Some(f) => quote!(#dk::on_error(__dk_error, #f)),
        None => quote!(#dk::default_on_error(__dk_error)),
    };
    let tasks = m
        .subs
        .iter()
        .map(|sub| task::task(&em, sub, crate::ops::TASK_PARTS));
    let contexts = crate::ops::process::context::contexts(m, &em);
    let (task_enum, task_enum_impl) = task_enum(&em);
    let topology = topology_impl(&em);
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

        #task_enum

        #(#tasks)*

        #contexts

        #task_enum_impl

        #topology
        };
    }
}

/// `__<Topology>Task`: the enum of the subtopologies' tasks, and its `Task` impl delegating
/// to them.
fn task_enum(em: &Emitter<'_>) -> (TokenStream, TokenStream) {
    let m = em.m;
    let name = &m.name;
    let dk = emitter::dk();
    let task_enum = format_ident!("__{}Task", name);
    let variants = m.subs.iter().map(|sub| {
        let variant = format_ident!("S{}", sub.id);
        let sub_ty = task::task_type(em, sub);
        quote!(#variant(#sub_ty<B>))
    });
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
    let d_invalid_ts = delegate(quote!(invalid_timestamps_dropped()));
    let d_store = delegate(quote!(store(name)));
    let d_history = delegate(quote!(history(name)));
    let d_each = delegate(quote!(for_each_store(f)));
    let d_set_cache = delegate(quote!(set_cache_max_bytes(bytes)));
    let d_flush_cache = delegate(quote!(flush_cache(sink)));
    let d_cache_bytes = delegate(quote!(cache_bytes()));
    let d_attach = delegate(quote!(attach_global_stores(globals)));
    let d_punct_stream = delegate(quote!(punctuate_stream_time(sink)));
    let d_wall_due = delegate(quote!(wall_clock_due(now_ms)));
    let d_punct_wall = delegate(quote!(punctuate_wall_clock(now_ms, sink)));
    let doc_task = format!("The task of one subtopology of [`{name}`], over store backend `B`.");
    let decl = quote! {
        #[doc = #doc_task]
        pub enum #task_enum<B> {
            #(#variants,)*
        }
    };
    let the_impl = quote! {
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
            fn invalid_timestamps_dropped(&self) -> u64 { #d_invalid_ts }
            fn store(&self, name: &str) -> Option<&B> { #d_store }
            fn history(&self, name: &str) -> Option<&#dk::VersionHistory> { #d_history }
            fn for_each_store<E>(&mut self, f: impl FnMut(&'static #dk::StoreInfo, &mut B) -> ::core::result::Result<(), E>) -> ::core::result::Result<(), E> { #d_each }
            fn set_cache_max_bytes(&mut self, bytes: usize) { #d_set_cache }
            fn flush_cache<S: #dk::RecordSink>(&mut self, sink: &mut S) -> ::core::result::Result<(), #dk::TaskError> { #d_flush_cache }
            fn cache_bytes(&self) -> usize { #d_cache_bytes }
            fn attach_global_stores(&mut self, globals: &#dk::GlobalStores) { #d_attach }
            fn punctuate_stream_time<S: #dk::RecordSink>(&mut self, sink: &mut S) -> ::core::result::Result<bool, #dk::TaskError> { #d_punct_stream }
            fn wall_clock_due(&mut self, now_ms: i64) -> bool { #d_wall_due }
            fn punctuate_wall_clock<S: #dk::RecordSink>(&mut self, now_ms: i64, sink: &mut S) -> ::core::result::Result<bool, #dk::TaskError> { #d_punct_wall }
        }
    };
    (decl, the_impl)
}

/// The `Topology` impl: the application id, the static description and info, and the
/// creation of a subtopology's task.
fn topology_impl(em: &Emitter<'_>) -> TokenStream {
    let m = em.m;
    let name = &m.name;
    let app = &m.app_id;
    let dk = emitter::dk();
    let task_enum = format_ident!("__{}Task", name);
    let description = crate::describe::describe(m);
    let info = info::info(m);
    let windowed_sinks = info::windowed_sinks(m);
    let offset_resets = crate::ops::sources::offset_resets(m);
    let chosen_topics = crate::ops::to::chosen_topics(m);
    let global_tables = crate::ops::global_table::infos(m);
    let creates = m.subs.iter().map(|sub| {
        let variant = format_ident!("S{}", sub.id);
        let sub_ty = task::task_type(em, sub);
        let id = sub.protocol_id.to_string();
        quote!(#id => Ok(#task_enum::#variant(#sub_ty::__create(partition, stores)?)),)
    });
    let serde_checks = serde_checks(m);
    quote! {
        impl #dk::Topology for #name {
            const APPLICATION_ID: &'static str = #app;
            #serde_checks
            const INFO: &'static #dk::TopologyInfo = &#info;
            const DESCRIPTION: &'static str = #description;
            #global_tables
            const WINDOWED_SINKS: &'static [#dk::WindowedSink] = #windowed_sinks;
            const OFFSET_RESETS: &'static [#dk::SourceOffsetReset] = #offset_resets;
            const CHOSEN_TOPICS: &'static [&'static str] = #chosen_topics;
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
    }
}

/// `Topology::check_serdes_at_start`: each serde of a user topic's keys or values (once per
/// topic, role and serde), checked in the order the topology names them; nothing when every
/// serde is a stock one.
fn serde_checks(m: &crate::ir::Model) -> TokenStream {
    let dk = emitter::dk();
    let mut seen = Vec::new();
    let mut checks = Vec::new();
    for topic in m
        .topics
        .iter()
        .filter(|t| t.role != crate::ir::TopicRole::DeadLetter)
    {
        let name = &topic.name;
        for (serde, role) in [(&topic.key, quote!(key)), (&topic.value, quote!(value))] {
            // The stock serdes (`Utf8`, `I64`, ..) check nothing at start: no code for them.
            let Some(serde) = serde.as_ref().filter(|s| s.builtin_value().is_none()) else {
                continue;
            };
            let ty = &serde.ty;
            let id = (name.clone(), role.to_string(), quote!(#ty).to_string());
            if seen.contains(&id) {
                continue;
            }
            seen.push(id);
            checks.push(quote! {
                <#ty as #dk::Serde>::check_at_start(#dk::SerdeContext::#role(#name))?;
            });
        }
    }
    if checks.is_empty() {
        return TokenStream::new();
    }
    quote! {
        fn check_serdes_at_start() -> ::core::result::Result<(), #dk::StartCheckError> {
            #(#checks)*
            ::core::result::Result::Ok(())
        }
    }
}
