//! The state stores of a task: one backend field per store, and for window stores the time
//! index (retention), the next purge time and, for session and sliding stores, the newest time
//! stored. As a [`TaskParts`]: fields, opening, restore, `clear` and `discard_uncommitted`.

use proc_macro2::TokenStream;
use quote::quote;

use super::emitter::{Emitter, dk};
use super::info;
use super::parts::TaskParts;
use crate::ir::{Model, StoreOwner, Sub, WindowKind};

/// The stores' part of the task of `sub` (`id`: its protocol id, for opening the stores).
pub(super) fn task_parts(m: &Model, sub: &Sub, id: &str) -> TaskParts {
    let dk = dk();
    let app = &m.app_id;
    let store_fields: Vec<_> = sub
        .stores
        .iter()
        .map(|&s| Emitter::store_field(s))
        .collect();
    // Per window store its time index (the offset of the time in its keys below) and the next
    // purge time.
    let windowed: Vec<usize> = sub
        .stores
        .iter()
        .copied()
        .filter(|&s| m.stores[s].window.is_some())
        .collect();
    let purge_fields: Vec<_> = windowed.iter().map(|&s| Emitter::purge_field(s)).collect();
    // The largest time stored in each session, sliding-window or declared window store
    // (session end, window start): what is older than it minus retention is expired (Kafka
    // Streams' stores).
    let session_or_sliding: Vec<usize> = windowed
        .iter()
        .copied()
        .filter(|&s| tracks_latest(m, s))
        .collect();
    let max_fields: Vec<_> = session_or_sliding
        .iter()
        .map(|&s| Emitter::max_field(s))
        .collect();
    let index_fields: Vec<_> = windowed.iter().map(|&s| Emitter::index_field(s)).collect();
    // Where a store key's time is, counted from its end: a session key ends with end ‖ start,
    // a time or sliding window key with start ‖ sequence number (`store::WINDOW_SUFFIX`).
    let index_offsets: Vec<TokenStream> = windowed
        .iter()
        .map(|&s| match m.stores[s].window.map(|w| w.kind) {
            Some(WindowKind::Session) => quote!(16),
            _ => quote!(::dekaf_streams::store::WINDOW_SUFFIX),
        })
        .collect();
    let indexed_stores: Vec<_> = windowed.iter().map(|&s| Emitter::store_field(s)).collect();
    let max_index_fields: Vec<_> = session_or_sliding
        .iter()
        .map(|&s| Emitter::index_field(s))
        .collect();
    let store_infos = sub.stores.iter().map(|&s| info::store_info(m, s));
    // A versioned table's past versions, next to its store (rebuilt by a full restore).
    let versioned: Vec<(usize, i64)> = sub
        .stores
        .iter()
        .filter_map(|&s| m.stores[s].versioned.map(|h| (s, h)))
        .collect();
    let history_fields: Vec<_> = versioned
        .iter()
        .map(|&(s, _)| Emitter::history_field(s))
        .collect();
    let history_retentions = versioned.iter().map(|&(_, h)| h);
    // Scratch space of `to_table(..)` into a versioned table (the stamped value), and whether
    // the change being forwarded is its key's latest (`ops::versioned::out_of_order_gate`).
    let (hbuf_field, hbuf_init) = if versioned.is_empty() {
        (TokenStream::new(), TokenStream::new())
    } else {
        (
            // Whether the versioned table change being forwarded is its key's latest.
            quote!(__hbuf: ::std::vec::Vec<u8>, __latest: bool,),
            quote!(__hbuf: ::std::vec::Vec::new(), __latest: true,),
        )
    };
    TaskParts {
        fields: quote! {
            #(#history_fields: #dk::VersionHistory,)*
            #hbuf_field
            #(#store_fields: B,)*
            #(#purge_fields: i64,)*
            #(#max_fields: i64,)*
            #(#index_fields: #dk::TimeIndex,)*
        },
        inits: quote! {
            #(#history_fields: #dk::VersionHistory::new(#history_retentions),)*
            #hbuf_init
            #(#store_fields: stores.open(#app, #id, partition, &#store_infos)?,)*
            #(#purge_fields: i64::MIN,)*
            #(#max_fields: i64::MIN,)*
            #(#index_fields: #dk::TimeIndex::new(#index_offsets),)*
        },
        // A store opened with windows in it (on disk): index them once.
        opened: quote! {
            #(__dk_task.#index_fields.rebuild(&__dk_task.#indexed_stores)?;)*
            #(__dk_task.#max_fields = __dk_task.#max_index_fields.latest();)*
        },
        restores: sub.stores.iter().map(|&s| restore(m, s)).collect(),
        clear: quote! {
            #(self.#history_fields.clear();)*
            #(#dk::StoreBackend::clear(&mut self.#store_fields)?;)*
            #(self.#purge_fields = i64::MIN;)*
            #(self.#max_fields = i64::MIN;)*
            #(self.#index_fields.clear();)*
        },
        discard: quote! {
            let mut __dk_kept = true;
            #(__dk_kept &= #dk::StoreBackend::discard_pending(&mut self.#store_fields)?;)*
            if !__dk_kept {
                return Ok(false);
            }
            #(self.#purge_fields = i64::MIN;)*
            #(self.#index_fields.rebuild(&self.#indexed_stores)?;)*
            #(self.#max_fields = self.#max_index_fields.latest();)*
        },
        trait_items: if versioned.is_empty() {
            TokenStream::new()
        } else {
            let names = versioned.iter().map(|&(s, _)| &m.stores[s].name);
            quote! {
                fn history(&self, name: &str) -> Option<&#dk::VersionHistory> {
                    match name {
                        #(#names => Some(&self.#history_fields),)*
                        _ => None,
                    }
                }
            }
        },
        full_restore: !versioned.is_empty(),
        ..TaskParts::default()
    }
}

/// Whether window store `s` tracks the largest time it holds (its observed stream time, from
/// which its retention counts): session and sliding-window stores, and the window stores of
/// `process(..)` (a time-window aggregation counts from the task's stream time instead).
pub(crate) fn tracks_latest(m: &Model, s: usize) -> bool {
    let st = &m.stores[s];
    st.window
        .is_some_and(|w| w.kind != WindowKind::Time || st.owner == StoreOwner::Declared)
}

/// The restore arm of store `s`: none for a store the task does not write (a table's source
/// topic is its changelog, though), a join window store (the join restores those) or a store
/// without a changelog.
fn restore(m: &Model, s: usize) -> TokenStream {
    let dk = dk();
    let st = &m.stores[s];
    if !(st.logged || st.owner == StoreOwner::Table)
        || matches!(st.owner, StoreOwner::JoinWindow(_))
        || !st.has_changelog()
    {
        return TokenStream::new();
    }
    let topic = &st.changelog;
    let f = Emitter::store_field(s);
    if st.window.is_some() {
        let index = Emitter::index_field(s);
        // Session, sliding and declared window stores track their newest time, which a restore
        // rebuilds (as Kafka Streams' stores do from the changelog).
        let max = tracks_latest(m, s).then(|| {
            let max = Emitter::max_field(s);
            quote! {
                if value.is_some() {
                    if let Some(t) = self.#index.time_of(key) {
                        self.#max = ::core::cmp::max(self.#max, t);
                    }
                }
            }
        });
        // A time-window aggregation's store is timestamped (its changelog record's timestamp
        // goes before the value).
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
    } else if st.versioned.is_some() {
        // A versioned table's restore replays its puts, so its history comes back.
        let h = Emitter::history_field(s);
        quote!(#topic => #dk::restore_versioned(&mut self.#f, &mut self.#h, key, value, timestamp, &mut self.__vbuf),)
    } else if m.timestamped(s) {
        // A table's store keeps the changelog record's timestamp with the value.
        quote!(#topic => #dk::restore_table(&mut self.#f, key, value, timestamp, &mut self.__vbuf),)
    } else {
        quote!(#topic => #dk::restore(&mut self.#f, key, value),)
    }
}
