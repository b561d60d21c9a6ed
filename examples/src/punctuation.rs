//! Punctuation in the processor API: `schedule(..)` after a `process(..)` closure runs a
//! callback on stream time or on the wall clock, between records, with the same stores.
//!
//! [`Totals`] sums amounts per key and, every 10 s of stream time, forwards every total and
//! clears it: a tumbling total driven by punctuation. [`Batches`] holds the latest value of
//! each key and flushes the batch every 5 s of wall-clock time, also when no record arrives.

use dekaf_streams::prelude::*;

topology! {
    /// Input `amounts` (key, amount); every 10 s of stream time forwards each key's total since
    /// the last punctuation to `totals`, with the punctuation's stream time as timestamp.
    pub Totals = "punctuate-totals" {
        store("totals", Utf8, I64);
        stream("amounts", Utf8, I64)
            .process(["totals"], |ctx, key, amount| {
                let total = ctx.totals().get(&key)?.unwrap_or(0) + amount;
                ctx.totals().put(&key, &total)?;
                Ok(None::<(String, i64)>)
            }, schedule(Duration::from_secs(10), StreamTime, |ctx, _stream_time| {
                let totals = ctx.totals().all()?;
                for (key, _) in &totals {
                    ctx.totals().delete(key)?;
                }
                Ok(totals)
            }))
            .to("totals", Utf8, I64);
    }
}

topology! {
    /// Input `events` (key, value); keeps the latest value per key and every 5 s of wall-clock
    /// time forwards the batch to `batches` as `value@wall-clock-ms`, then forgets it.
    pub Batches = "punctuate-batches" {
        store("pending", Utf8, Utf8);
        stream("events", Utf8, Utf8)
            .process(["pending"], |ctx, key, value| {
                ctx.pending().put(&key, &value)?;
                Ok(None::<(String, String)>)
            }, schedule(Duration::from_secs(5), WallClock, |ctx, now| {
                let pending = ctx.pending().all()?;
                let mut out = Vec::with_capacity(pending.len());
                for (key, value) in pending {
                    ctx.pending().delete(&key)?;
                    out.push((key, format!("{value}@{now}")));
                }
                Ok(out)
            }))
            .to("batches", Utf8, Utf8);
    }
}
