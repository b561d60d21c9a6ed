//! The stores of `process(..)` and `process_values(..)`, declared as statements of their own
//! (Kafka Streams' `StoreBuilder`s added with `Topology.addStateStore`):
//!
//! - `store("name", KeySerde, ValueSerde)`: a key-value store
//!   (`Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(..))`);
//! - `window_store("name", KeySerde, ValueSerde, size(D), retention(D))`: a window store
//!   (`Stores.windowStoreBuilder(Stores.persistentWindowStore(name, retention, size, false))`):
//!   values under (key, window start), kept until the store's newest window start is
//!   `retention` past them;
//! - `session_store("name", KeySerde, ValueSerde, retention(D))`: a session store
//!   (`Stores.sessionStoreBuilder(Stores.persistentSessionStore(name, retention))`): values
//!   under (key, session start, session end), kept until the store's newest session end is
//!   `retention` past their end.
//!
//! Each is changelogged to `<app>-<name>-changelog` (window and session changelogs compacted
//! and deleted after the retention plus `windowstore.changelog.additional.retention.ms`, as
//! Kafka Streams declares them). What a closure may do with each is the runtime's
//! `dekaf_streams::store::{KeyValueStore, WindowStore, SessionStore}`.

use syn::Expr;

use super::{Lower, Operator};
use crate::args::{arity, duration, err_at, err_call, name_arg, serde_arg};
use crate::build::{Builder, Flow};
use crate::ir::{Store, StoreOwner, WindowKind, WindowSpec};
use crate::parse::Call;

pub(crate) const STORE: Operator = Operator {
    name: "store",
    usage: "store(\"name\", KeySerde, ValueSerde)",
    lower: &[Lower::Root(store)],
    on_stream: None,
    emit: &[],
};

pub(crate) const WINDOW_STORE: Operator = Operator {
    name: "window_store",
    usage: "window_store(\"name\", KeySerde, ValueSerde, size(Duration::from_secs(60)), retention(Duration::from_secs(3600)))",
    lower: &[Lower::Root(window_store)],
    on_stream: None,
    emit: &[],
};

pub(crate) const SESSION_STORE: Operator = Operator {
    name: "session_store",
    usage: "session_store(\"name\", KeySerde, ValueSerde, retention(Duration::from_secs(3600)))",
    lower: &[Lower::Root(session_store)],
    on_stream: None,
    emit: &[],
};

fn store(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    arity(call, 3, STORE.usage)?;
    declare(b, call, STORE.usage, None)
}

fn window_store(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    let usage = WINDOW_STORE.usage;
    // A bad window is reported without dropping the store: the processors listing it would
    // only add "unknown store" errors.
    let spec = window_spec(call).unwrap_or_else(|e| {
        b.diagnostics.error(e);
        WindowSpec {
            size: 1,
            advance: 1,
            grace: 0,
            kind: WindowKind::Time,
            retention_ms: Some(1),
        }
    });
    declare(b, call, usage, Some(spec))
}

/// The window of `window_store(..)`: its size and retention, checked.
fn window_spec(call: &Call) -> syn::Result<WindowSpec> {
    let usage = WINDOW_STORE.usage;
    let options = options(call, usage, &["size", "retention"])?;
    let (Some(size), Some(retention)) = (options.get("size"), options.get("retention")) else {
        return Err(err_call(
            call,
            format!(
                "a window store needs its window size and its retention (Kafka Streams' Stores.persistentWindowStore(name, retention, size, false)): {usage}"
            ),
        ));
    };
    if size.0 <= 0 {
        return Err(err_at(
            &size.1,
            "the window size must be positive: it is the length of the windows the store keeps (a fetched window ends at its start plus the size)",
        ));
    }
    if retention.0 < size.0 {
        return Err(err_at(
            &retention.1,
            format!(
                "the retention ({} ms) is shorter than the window size ({} ms): a window would expire before it ends (Kafka Streams refuses it too: \"The retention period of the window store must be no smaller than its window size\"); keep windows at least size long",
                retention.0, size.0
            ),
        ));
    }
    Ok(WindowSpec {
        size: size.0,
        advance: size.0,
        grace: 0,
        kind: WindowKind::Time,
        retention_ms: Some(retention.0),
    })
}

fn session_store(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    let retention = session_retention(call).unwrap_or_else(|e| {
        b.diagnostics.error(e);
        1
    });
    // A session store's `size` is its gap for aggregations; a declared one has none (the
    // closure decides what a session is), and its retention is all that bounds it.
    let spec = WindowSpec {
        size: 0,
        advance: 0,
        grace: 0,
        kind: WindowKind::Session,
        retention_ms: Some(retention),
    };
    declare(b, call, SESSION_STORE.usage, Some(spec))
}

/// The retention of `session_store(..)`.
fn session_retention(call: &Call) -> syn::Result<i64> {
    let usage = SESSION_STORE.usage;
    let options = options(call, usage, &["retention"])?;
    let Some(retention) = options.get("retention") else {
        return Err(err_call(
            call,
            format!(
                "a session store needs its retention (Kafka Streams' Stores.persistentSessionStore(name, retention)): {usage}"
            ),
        ));
    };
    Ok(retention.0)
}

/// The options after the serdes, `name(duration)` each at most once, by name: (ms, the option).
fn options(
    call: &Call,
    usage: &str,
    known: &[&str],
) -> syn::Result<std::collections::BTreeMap<String, (i64, Expr)>> {
    let mut out = std::collections::BTreeMap::new();
    for arg in call.args.iter().skip(3) {
        let Expr::Call(c) = arg else {
            return Err(err_at(arg, format!("expected an option: {usage}")));
        };
        let name = match &*c.func {
            Expr::Path(p) if p.path.segments.len() == 1 => p.path.segments[0].ident.to_string(),
            _ => String::new(),
        };
        if !known.contains(&name.as_str()) {
            return Err(err_at(
                &c.func,
                format!(
                    "unknown option `{}`: this store takes {}: {usage}",
                    if name.is_empty() {
                        "?".to_owned()
                    } else {
                        name.clone()
                    },
                    known
                        .iter()
                        .map(|k| format!("{k}(..)"))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            ));
        }
        if out.contains_key(&name) {
            return Err(err_at(arg, format!("{name}(..) is given twice: keep one")));
        }
        let [d] = c.args.iter().collect::<Vec<_>>()[..] else {
            return Err(err_at(
                arg,
                format!("{name}(..) takes one duration: {usage}"),
            ));
        };
        let ms = duration(d)?;
        if ms < 0 {
            return Err(err_at(d, format!("the {name} cannot be negative")));
        }
        out.insert(name, (ms, arg.clone()));
    }
    Ok(out)
}

/// Adds the store: the name, the serdes, the window (window and session stores).
fn declare(
    b: &mut Builder,
    call: &Call,
    usage: &str,
    window: Option<WindowSpec>,
) -> syn::Result<Flow> {
    let (name, span) = name_arg(call, 0, usage)?;
    let key = serde_arg(call, 1, usage)?;
    let value = serde_arg(call, 2, usage)?;
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store {
        window,
        ..Store::new(name, span, key, value, changelog, StoreOwner::Declared)
    });
    Ok(Flow::Store(b.stores.len() - 1))
}
