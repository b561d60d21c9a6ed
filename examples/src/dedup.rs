//! Deduplication with the processor API: a declared store remembers the ids seen, and the
//! `process` closure forwards an event only the first time its id appears.
//!
//! A `process` closure gets a context (`ctx`) with one accessor per store it lists
//! (`ctx.seen_ids()` for `"seen-ids"`), plus the record's `timestamp()`, `headers()` and
//! `partition()`. It returns what it forwards: any `IntoIterator` of (key, value) pairs, here an
//! `Option`. Store writes go to the store's changelog; `?` turns store errors into a failure
//! of the record that `on_error` handles.

use dekaf_streams::prelude::*;

topology! {
    /// Forwards each event id once. Input: key = event id, value = payload.
    pub Dedup = "dedup" {
        store("seen-ids", Utf8, I64);
        stream("events", Utf8, Utf8)
            .process(["seen-ids"], |ctx, id, payload| {
                let first_seen = ctx.timestamp();
                let mut seen = ctx.seen_ids();
                if seen.get(&id)?.is_some() {
                    return Ok(None);
                }
                seen.put(&id, &first_seen)?;
                Ok(Some((id, payload)))
            })
            .to("unique-events", Utf8, Utf8);
    }
}
