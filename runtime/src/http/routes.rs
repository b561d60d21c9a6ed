//! The stores a server answers for, each behind its typed handle: text in (path and query
//! parameters), JSON out through the store's serde types.

use std::marker::PhantomData;
use std::ops::Bound;
use std::str::FromStr;

use serde::Serialize;
use serde_json::{Value, json};

use super::page::Position;
use crate::query::{KeyQueryMetadata, Queries, QueryError, Replica, VersionedRecord};
use crate::task::{SessionStoreRef, StoreRef, Topology, WindowStoreRef};

/// What kind of store a route serves: which path reads a key of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `/keys/{key}`, and the scans.
    KeyValue,
    /// `/windows/{key}`.
    Window,
    /// `/sessions/{key}`, and the scans.
    Session,
    /// A versioned table's store: `/versions/{key}`, and as a key-value store (its latest
    /// values) `/keys/{key}` and the scans.
    Versioned,
}

impl Kind {
    /// The path segment that reads a key of this kind of store.
    pub(crate) fn segment(self) -> &'static str {
        match self {
            Kind::KeyValue => "keys",
            Kind::Window => "windows",
            Kind::Session => "sessions",
            Kind::Versioned => "versions",
        }
    }

    /// Whether a key read under the path segment `segment` (`keys`, `windows`, `sessions`,
    /// `versions`) is one of this kind of store.
    pub(crate) fn serves(self, segment: &str) -> bool {
        segment == self.segment() || (self == Kind::Versioned && segment == "keys")
    }

    /// How to query a key of this kind of store, for error messages.
    pub(crate) fn usage(self) -> (&'static str, &'static str) {
        match self {
            Kind::KeyValue => ("a key-value store", "/keys/{key}"),
            Kind::Window => ("a window store", "/windows/{key}?from=<ms>&to=<ms>"),
            Kind::Session => ("a session store", "/sessions/{key}?from=<ms>&to=<ms>"),
            Kind::Versioned => (
                "a versioned table's store",
                "/versions/{key}?as_of=<ms> (or ?from=<ms>&to=<ms>; /keys/{key} for the latest value)",
            ),
        }
    }
}

/// What a versioned key read (`/versions/{key}`) asks of the key's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Versions {
    /// The version valid at this time (`i64::MAX`: the latest).
    AsOf(i64),
    /// The versions valid at some time in `from..=to`, oldest first.
    Between { from: i64, to: i64 },
}

/// What a key's read is asked: the key, the time bounds (window stores: window starts;
/// session stores: the earliest session end and the latest session start), whether a
/// standby replica may answer, and (`/versions/{key}`) what of a versioned key's history.
pub(crate) struct KeyRead<'a> {
    pub key: &'a str,
    pub from: i64,
    pub to: i64,
    pub stale: bool,
    pub versions: Option<Versions>,
}

/// What a scan (`all`, `range`) of one instance is asked: the key bounds (as text, parsed with
/// the store's key type), for a session store the time bounds of its sessions, the position to
/// resume after, the partitions to read (`None`: all this instance answers for), whether
/// standby copies answer too, and the most entries to return.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScanRead {
    pub from: Option<String>,
    pub to: Option<String>,
    /// Sessions that end at or after this time (session stores).
    pub earliest_end: Option<i64>,
    /// Sessions that start at or before this time (session stores).
    pub latest_start: Option<i64>,
    pub after: Option<Position>,
    pub only: Option<Vec<i32>>,
    pub stale: bool,
    pub limit: usize,
}

impl ScanRead {
    fn bounds<K: FromStr>(&self) -> Result<(Option<K>, Option<K>), Local> {
        Ok((
            self.from.as_deref().map(parse).transpose()?,
            self.to.as_deref().map(parse).transpose()?,
        ))
    }

    fn after(&self) -> Option<(i32, &[u8])> {
        self.after.as_ref().map(|a| (a.partition, a.key.as_slice()))
    }
}

/// What a store answered locally.
pub(crate) enum Local {
    /// 200 with this body.
    Found(Value),
    /// 404: the key's task is here and has no value for it.
    NoValue,
    /// 400: the request does not fit the store (a key that does not parse, a bad bound).
    BadRequest(String),
    /// The store could not answer (not here, restoring, unknown, ...).
    Failed(QueryError),
}

/// One page of a range or full scan of this instance.
pub(crate) struct LocalRange {
    /// The partitions read, in order, each with the copy read ([`Replica::Standby`] only in a
    /// stale scan).
    pub replicas: Vec<(i32, Replica)>,
    /// The store's partition count.
    pub partition_count: i32,
    /// The entries' JSON (`{"key": .., "value": ..}`; a session store's also has `start` and
    /// `end`), each with its partition and its position (the continuation token that resumes
    /// after it).
    pub entries: Vec<PageEntry>,
    /// Whether entries follow the last one on this instance.
    pub more: bool,
}

impl LocalRange {
    /// The partitions read, in order.
    pub(crate) fn partitions(&self) -> Vec<i32> {
        self.replicas.iter().map(|(p, _)| *p).collect()
    }
}

/// One entry of a page.
pub(crate) struct PageEntry {
    /// Its partition (0 for a global table's store).
    pub partition: i32,
    /// The continuation token that resumes after it.
    pub token: String,
    /// `{"key": .., "value": ..}` (a session's also has `"start"` and `"end"`).
    pub json: Value,
}

/// A store a server answers for. Not on the processing path: requests are few, so the server
/// keeps its stores behind `dyn` and answers in JSON values.
pub(crate) trait StoreRoute<T: Topology>: Send + Sync {
    /// The store's name.
    fn name(&self) -> &'static str;
    /// What kind of store it is.
    fn kind(&self) -> Kind;
    /// The value of the key (key-value stores), its windows starting between `from` and `to`
    /// (window stores), its sessions ending at or after `from` and starting at or before `to`
    /// (session stores), or what `versions` asks of its history (versioned stores).
    fn get(&self, queries: &Queries<T>, read: &KeyRead<'_>) -> Local;
    /// Where `key` lives.
    fn owner(&self, queries: &Queries<T>, key: &str) -> Result<KeyQueryMetadata, String>;
    /// One page of this instance's entries (key-value stores) or sessions (session stores)
    /// that `scan` asks for.
    fn range(&self, queries: &Queries<T>, scan: &ScanRead) -> Result<LocalRange, Local>;
}

fn parse<K: FromStr>(text: &str) -> Result<K, Local> {
    parse_key(text).map_err(Local::BadRequest)
}

/// `text` as a key of the store, or what to tell the caller.
fn parse_key<K: FromStr>(text: &str) -> Result<K, String> {
    text.parse()
        .map_err(|_| format!("`{text}` is not a key of this store"))
}

/// The answer to a range query on a store that has none: `kind` (`window`) and the route
/// (`windows`) that queries it by key.
fn no_range(kind: &str, name: &str, route: &str) -> Local {
    Local::BadRequest(format!(
        "`{name}` is a {kind} store: query a key's {route} with /stores/{name}/{route}/{{key}}?from=<ms>&to=<ms>"
    ))
}

fn json<T: Serialize>(value: &T) -> Result<Value, Local> {
    serde_json::to_value(value)
        .map_err(|e| Local::BadRequest(format!("the value does not convert to JSON: {e}")))
}

/// Adds which copy answered to a stale read's body: `"standby"` and its `"lag"` (`null`
/// when not known, and for an active task).
fn with_replica(mut body: Value, stale: bool, replica: Replica) -> Value {
    if stale && let Value::Object(fields) = &mut body {
        let (standby, lag) = match replica {
            Replica::Active => (false, None),
            Replica::Standby { lag } => (true, lag),
        };
        fields.insert("standby".to_owned(), Value::Bool(standby));
        fields.insert("lag".to_owned(), lag.map_or(Value::Null, Value::from));
    }
    body
}

/// A key-value store.
pub(crate) struct KeyValueRoute<K, V>(pub StoreRef<K, V>);

impl<T, K, V> StoreRoute<T> for KeyValueRoute<K, V>
where
    T: Topology,
    K: FromStr + Serialize + 'static,
    V: Serialize + 'static,
{
    fn name(&self) -> &'static str {
        self.0.name
    }

    fn kind(&self) -> Kind {
        Kind::KeyValue
    }

    fn get(&self, queries: &Queries<T>, read: &KeyRead<'_>) -> Local {
        let run = || -> Result<Local, Local> {
            let k: K = parse(read.key)?;
            let mut store = queries.store(self.0).map_err(Local::Failed)?;
            if read.stale {
                store = store.enable_stale_stores();
            }
            match store.get_with_replica(&k).map_err(Local::Failed)? {
                (Some(v), replica) => Ok(Local::Found(with_replica(
                    json!({ "key": json(&k)?, "value": json(&v)? }),
                    read.stale,
                    replica,
                ))),
                (None, _) => Ok(Local::NoValue),
            }
        };
        run().unwrap_or_else(|e| e)
    }

    fn owner(&self, queries: &Queries<T>, key: &str) -> Result<KeyQueryMetadata, String> {
        let k: K = parse_key(key)?;
        queries
            .metadata_for_key(self.0, &k)
            .map_err(|e| e.to_string())
    }

    fn range(&self, queries: &Queries<T>, scan: &ScanRead) -> Result<LocalRange, Local> {
        if scan.earliest_end.is_some() || scan.latest_start.is_some() {
            return Err(Local::BadRequest(format!(
                "`earliest_end` and `latest_start` bound a session store's sessions; `{}` is a \
                 key-value store: leave them out",
                self.0.name
            )));
        }
        let (from, to) = scan.bounds::<K>()?;
        let mut store = queries.store(self.0).map_err(Local::Failed)?;
        if scan.stale {
            store = store.enable_stale_stores();
        }
        let partition_count = store.partitions().map_err(Local::Failed)?;
        let page = store
            .page(
                from.as_ref().map_or(Bound::Unbounded, Bound::Included),
                to.as_ref().map_or(Bound::Unbounded, Bound::Included),
                scan.after(),
                scan.only.as_deref(),
                scan.limit,
            )
            .map_err(Local::Failed)?;
        let mut entries = Vec::with_capacity(page.entries.len());
        for (partition, bytes, k, v) in page.entries {
            entries.push(PageEntry {
                partition,
                token: Position {
                    partition,
                    key: bytes.to_vec(),
                }
                .token(),
                json: json!({ "key": json(&k)?, "value": json(&v)? }),
            });
        }
        Ok(LocalRange {
            replicas: page.replicas,
            partition_count,
            entries,
            more: page.more,
        })
    }
}

/// A window store.
pub(crate) struct WindowRoute<K, V>(pub WindowStoreRef<K, V>, pub PhantomData<fn() -> (K, V)>);

impl<T, K, V> StoreRoute<T> for WindowRoute<K, V>
where
    T: Topology,
    K: FromStr + Serialize + 'static,
    V: Serialize + 'static,
{
    fn name(&self) -> &'static str {
        self.0.name
    }

    fn kind(&self) -> Kind {
        Kind::Window
    }

    fn get(&self, queries: &Queries<T>, read: &KeyRead<'_>) -> Local {
        let run = || -> Result<Local, Local> {
            let k: K = parse(read.key)?;
            let mut store = queries.window_store(self.0).map_err(Local::Failed)?;
            if read.stale {
                store = store.enable_stale_stores();
            }
            let fetched = store.fetch(&k, read.from, read.to).map_err(Local::Failed)?;
            let replica = fetched.replica();
            let mut windows = Vec::new();
            for window in fetched {
                let (start, v) = window.map_err(Local::Failed)?;
                windows.push(json!({ "start": start, "end": start.saturating_add(self.0.size_ms), "value": json(&v)? }));
            }
            Ok(Local::Found(with_replica(
                json!({ "key": json(&k)?, "windows": windows }),
                read.stale,
                replica,
            )))
        };
        run().unwrap_or_else(|e| e)
    }

    fn owner(&self, queries: &Queries<T>, key: &str) -> Result<KeyQueryMetadata, String> {
        let k: K = parse_key(key)?;
        queries
            .metadata_for_window_key(self.0, &k)
            .map_err(|e| e.to_string())
    }

    fn range(&self, _: &Queries<T>, _: &ScanRead) -> Result<LocalRange, Local> {
        Err(no_range("window", self.0.name, "windows"))
    }
}

/// A session store.
pub(crate) struct SessionRoute<K, V>(pub SessionStoreRef<K, V>);

impl<T, K, V> StoreRoute<T> for SessionRoute<K, V>
where
    T: Topology,
    K: FromStr + Serialize + 'static,
    V: Serialize + 'static,
{
    fn name(&self) -> &'static str {
        self.0.name
    }

    fn kind(&self) -> Kind {
        Kind::Session
    }

    fn get(&self, queries: &Queries<T>, read: &KeyRead<'_>) -> Local {
        let run = || -> Result<Local, Local> {
            let k: K = parse(read.key)?;
            let mut store = queries.session_store(self.0).map_err(Local::Failed)?;
            if read.stale {
                store = store.enable_stale_stores();
            }
            let found = store
                .find_sessions(&k, read.from, read.to)
                .map_err(Local::Failed)?;
            let replica = found
                .replicas()
                .first()
                .map_or(Replica::Active, |(_, r)| *r);
            let mut sessions = Vec::new();
            for session in found {
                let (window, v) = session.map_err(Local::Failed)?;
                sessions.push(json!({
                    "start": window.window.start,
                    "end": window.window.end,
                    "value": json(&v)?,
                }));
            }
            Ok(Local::Found(with_replica(
                json!({ "key": json(&k)?, "sessions": sessions }),
                read.stale,
                replica,
            )))
        };
        run().unwrap_or_else(|e| e)
    }

    fn owner(&self, queries: &Queries<T>, key: &str) -> Result<KeyQueryMetadata, String> {
        let k: K = parse_key(key)?;
        queries
            .metadata_for_session_key(self.0, &k)
            .map_err(|e| e.to_string())
    }

    fn range(&self, queries: &Queries<T>, scan: &ScanRead) -> Result<LocalRange, Local> {
        let (from, to) = scan.bounds::<K>()?;
        let mut store = queries.session_store(self.0).map_err(Local::Failed)?;
        if scan.stale {
            store = store.enable_stale_stores();
        }
        let partition_count = store.partitions().map_err(Local::Failed)?;
        let page = store
            .page(
                from.as_ref().map_or(Bound::Unbounded, Bound::Included),
                to.as_ref().map_or(Bound::Unbounded, Bound::Included),
                scan.earliest_end.unwrap_or(i64::MIN),
                scan.latest_start.unwrap_or(i64::MAX),
                scan.after(),
                scan.only.as_deref(),
                scan.limit,
            )
            .map_err(Local::Failed)?;
        let mut entries = Vec::with_capacity(page.entries.len());
        for (partition, stored, window, v) in page.entries {
            entries.push(PageEntry {
                partition,
                token: Position {
                    partition,
                    key: stored.to_vec(),
                }
                .token(),
                json: json!({
                    "key": json(&window.key)?,
                    "start": window.window.start,
                    "end": window.window.end,
                    "value": json(&v)?,
                }),
            });
        }
        Ok(LocalRange {
            replicas: page.replicas,
            partition_count,
            entries,
            more: page.more,
        })
    }
}

/// A versioned table's store: its history by `/versions/{key}`, its latest values as a
/// key-value store's.
pub(crate) struct VersionedRoute<K, V>(pub StoreRef<K, V>);

impl<T, K, V> StoreRoute<T> for VersionedRoute<K, V>
where
    T: Topology,
    K: FromStr + Serialize + 'static,
    V: Serialize + 'static,
{
    fn name(&self) -> &'static str {
        self.0.name
    }

    fn kind(&self) -> Kind {
        Kind::Versioned
    }

    fn get(&self, queries: &Queries<T>, read: &KeyRead<'_>) -> Local {
        let Some(versions) = read.versions else {
            return StoreRoute::<T>::get(&KeyValueRoute(self.0), queries, read);
        };
        if read.stale {
            return Local::BadRequest(format!(
                "`{}` keeps its history on the active task only (standby replicas keep no \
                 versions): leave `stale` out of /versions reads",
                self.0.name
            ));
        }
        let run = || -> Result<Local, Local> {
            let k: K = parse(read.key)?;
            let store = queries.versioned_store(self.0).map_err(Local::Failed)?;
            let record = |r: VersionedRecord<V>| -> Result<Value, Local> {
                Ok(json!({
                    "value": json(&r.value)?,
                    "timestamp": r.timestamp,
                    "valid_to": r.valid_to,
                }))
            };
            match versions {
                Versions::AsOf(as_of) => match store.get_as_of(&k, as_of).map_err(Local::Failed)? {
                    Some(r) => {
                        let mut body = record(r)?;
                        if let Value::Object(fields) = &mut body {
                            fields.insert("key".to_owned(), json(&k)?);
                        }
                        Ok(Local::Found(body))
                    }
                    None => Ok(Local::NoValue),
                },
                Versions::Between { from, to } => {
                    let found = store.versions(&k, from, to).map_err(Local::Failed)?;
                    let versions = found
                        .into_iter()
                        .map(record)
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(Local::Found(
                        json!({ "key": json(&k)?, "versions": versions }),
                    ))
                }
            }
        };
        run().unwrap_or_else(|e| e)
    }

    fn owner(&self, queries: &Queries<T>, key: &str) -> Result<KeyQueryMetadata, String> {
        StoreRoute::<T>::owner(&KeyValueRoute(self.0), queries, key)
    }

    fn range(&self, queries: &Queries<T>, scan: &ScanRead) -> Result<LocalRange, Local> {
        StoreRoute::<T>::range(&KeyValueRoute(self.0), queries, scan)
    }
}
