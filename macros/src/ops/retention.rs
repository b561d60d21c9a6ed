//! `with_retention(D)`: Kafka Streams' `Materialized.withRetention(Duration)` on the store of a
//! windowed aggregation (time, session or sliding windows), right after the `count`, `reduce`
//! or `aggregate` that made it. The store keeps each window that long (counted from the window
//! start as for the default, from the session end for sessions) instead of the least it needs,
//! so interactive queries see older windows; late records are still dropped by the window's
//! grace. Its changelog's `retention.ms` is the retention plus a day, as Kafka Streams declares
//! it. Kafka Streams refuses a retention below that least (size + grace; gap + grace; 2 ×
//! difference + grace), and so does the macro, at the call.

use super::{Lower, Operator};
use crate::args::{duration, err_at};
use crate::build::{Builder, Flow, Table};
use crate::parse::Call;

pub(crate) const WITH_RETENTION: Operator = Operator {
    name: "with_retention",
    usage: "with_retention(Duration::from_secs(..)) right after a windowed count/reduce/aggregate",
    lower: &[Lower::Table(with_retention)],
    on_stream: Some(
        "a stream has no store: with_retention(..) applies to the table of a windowed `count`/`reduce`/`aggregate`, right after it",
    ),
    emit: &[],
};

fn with_retention(b: &mut Builder, t: Table, call: &Call) -> syn::Result<Flow> {
    let usage = WITH_RETENTION.usage;
    let [arg] = call.args.iter().collect::<Vec<_>>()[..] else {
        return Err(err_at(
            &call.name,
            format!("with_retention takes one duration: {usage}"),
        ));
    };
    let retention = duration(arg)?;
    let store = &b.stores[t.store];
    let window = match store.window {
        Some(w) if super::caching::owns_store(b, t) => w,
        _ => {
            return Err(err_at(
                &call.name,
                format!(
                    "with_retention(..) sets how long a window store keeps its windows, and `{}` is not the window store of the call before: use it right after a count/reduce/aggregate of a windowed_by(..) stream",
                    store.name
                ),
            ));
        }
    };
    let least = window.default_retention();
    if retention < least {
        return Err(err_at(
            arg,
            format!(
                "a retention of {retention} ms is shorter than this window store needs, {least} ms (window size plus grace; for sessions the gap plus grace, for sliding windows twice the difference plus grace): Kafka Streams refuses it too; give at least {least} ms"
            ),
        ));
    }
    b.stores[t.store].window = Some(crate::ir::WindowSpec {
        retention_ms: Some(retention),
        ..window
    });
    Ok(Flow::Table(t))
}
