//! The task of one subtopology: a struct with the stores and the operators' state
//! ([`TaskParts`]), a `__source_N` method per source running its operators inline, and its
//! `Task` impl.

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

use super::emitter::{Emitter, dk, record_method};
use super::parts::{TaskFn, TaskParts};
use super::stores;
use crate::ir::Sub;

/// The task type of `sub` and its impls; `operators`: what the operators add to a task.
pub(super) fn task(em: &Emitter<'_>, sub: &Sub, operators: &[TaskFn]) -> TokenStream {
    let m = em.m;
    let id = sub.protocol_id.to_string();
    let mut parts = stores::task_parts(m, sub, &id);
    for add in operators {
        let more = add(em, sub, &parts);
        parts.merge(more);
    }
    let sub_ty = task_type(em, sub);
    let (source_fns, arms) = sources(em, sub);
    let the_struct = task_struct(&sub_ty, &parts, &source_fns);
    let the_impl = task_impl(em, sub, &sub_ty, &parts, &arms);
    quote! {
        #the_struct
        #the_impl
    }
}

/// `__<Topology>Sub<n>`: the name of `sub`'s task type.
pub(super) fn task_type(em: &Emitter<'_>, sub: &Sub) -> Ident {
    format_ident!("__{}Sub{}", em.topo, sub.id)
}

/// The source topics of `sub` in `process`'s order: user topics, then repartition topics.
fn source_list(sub: &Sub) -> Vec<(String, usize)> {
    sub.source_topics
        .iter()
        .chain(&sub.repartition_sources)
        .cloned()
        .collect()
}

/// A `__source_N` method per source of `sub`, and `process`'s match arms calling them.
fn sources(em: &Emitter<'_>, sub: &Sub) -> (TokenStream, TokenStream) {
    let mut source_fns = TokenStream::new();
    let mut arms = TokenStream::new();
    for (i, (topic, node)) in source_list(sub).iter().enumerate() {
        let f = format_ident!("__source_{}", i);
        let body = em.source(*node, topic);
        source_fns.extend(record_method(&f, &body));
        let node_name = &em.m.nodes[*node].name;
        // A source with a timestamp extractor moves stream time itself, with the extracted
        // timestamp (`ops::sources`); the others with the record's.
        let extracts = matches!(
            em.m.nodes[*node].kind,
            crate::ir::NodeKind::Source {
                timestamp: Some(_),
                ..
            }
        );
        let advance = (!extracts).then(|| {
            quote! {
                if __dk_record.timestamp > self.__stream_time {
                    self.__stream_time = __dk_record.timestamp;
                }
            }
        });
        arms.extend(quote! {
            #i => {
                #advance
                (
                    ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| self.#f(__dk_record, __dk_sink))),
                    #topic,
                    #node_name,
                )
            }
        });
    }
    (source_fns, arms)
}

/// The struct, its `__create` and its methods.
fn task_struct(sub_ty: &Ident, parts: &TaskParts, source_fns: &TokenStream) -> TokenStream {
    let dk = dk();
    let TaskParts {
        fields,
        inits,
        opened,
        methods,
        ..
    } = parts;
    quote! {
        pub struct #sub_ty<B> {
            __partition: i32,
            __stream_time: i64,
            __late: u64,
            __skipped: u64,
            __dropped: u64,
            __invalid_ts: u64,
            __kbuf: ::std::vec::Vec<u8>,
            __vbuf: ::std::vec::Vec<u8>,
            __win: #dk::WindowScratch,
            #fields
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
                    __invalid_ts: 0,
                    __kbuf: ::std::vec::Vec::with_capacity(64),
                    __vbuf: ::std::vec::Vec::with_capacity(64),
                    __win: #dk::WindowScratch::new(),
                    #inits
                    __marker: ::core::marker::PhantomData,
                };
                #opened
                Ok(__dk_task)
            }

            #source_fns

            #methods
        }
    }
}

/// The `Task` impl of `sub`'s task type.
fn task_impl(
    em: &Emitter<'_>,
    sub: &Sub,
    sub_ty: &Ident,
    parts: &TaskParts,
    arms: &TokenStream,
) -> TokenStream {
    let dk = dk();
    let m = em.m;
    let name = &m.name;
    let idx = sub.id;
    let source_names = source_list(sub).into_iter().map(|(t, _)| t);
    let TaskParts {
        trait_items,
        restores,
        clear,
        discard,
        after_record,
        full_restore,
        ..
    } = parts;
    // A join's window state is rebuilt only by a full restore: a task with one never keeps
    // its stores through an aborted interval.
    let discard_body = if *full_restore {
        quote!(Ok(false))
    } else {
        quote! {
            #discard
            Ok(true)
        }
    };
    let store_fields: Vec<_> = sub
        .stores
        .iter()
        .map(|&s| Emitter::store_field(s))
        .collect();
    let store_names = sub.stores.iter().map(|&s| &m.stores[s].name);
    let store_indexes = 0..sub.stores.len();
    quote! {
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
                let (__dk_result, __dk_topic, __dk_node) = match __dk_record.source {
                    #arms
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
                #after_record
                Ok(())
            }

            #trait_items

            #[allow(unused_variables)]
            fn restore(&mut self, changelog_topic: &str, key: &[u8], value: Option<&[u8]>, timestamp: i64) -> ::core::result::Result<(), #dk::TaskError> {
                match changelog_topic {
                    #restores
                    other => Err(#dk::TaskError::UnknownChangelog(other.to_owned())),
                }
            }

            fn clear(&mut self) -> ::core::result::Result<(), #dk::TaskError> {
                #clear
                self.__stream_time = i64::MIN;
                Ok(())
            }

            fn discard_uncommitted(&mut self) -> ::core::result::Result<bool, #dk::TaskError> {
                #discard_body
            }

            fn needs_full_restore(&self) -> bool {
                #full_restore
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

            fn invalid_timestamps_dropped(&self) -> u64 {
                self.__invalid_ts
            }

            #[allow(unused_variables)]
            fn store(&self, name: &str) -> Option<&B> {
                match name {
                    #(#store_names => Some(&self.#store_fields),)*
                    _ => None,
                }
            }

            #[allow(unused_variables, unused_mut)]
            fn for_each_store<E>(
                &mut self,
                mut __dk_f: impl FnMut(&'static #dk::StoreInfo, &mut B) -> ::core::result::Result<(), E>,
            ) -> ::core::result::Result<(), E> {
                #(__dk_f(&<#name as #dk::Topology>::INFO.subtopologies[#idx].stores[#store_indexes], &mut self.#store_fields)?;)*
                Ok(())
            }
        }
    }
}
