//! The instance's registry state: the client and the caches that keep the per-record path free
//! of requests once warm.
//!
//! - **writers**: per serde type, role and topic, the id and schema a serializer writes with
//!   (resolved once: registered, looked up, the latest version, or a given id);
//! - **schemas**: per schema id, the parsed schema (a writer's schema fetched once, when a
//!   record names an id not seen yet);
//! - **own**: per serde type, its own (reader) schema, parsed once.
//!
//! Lookups take a read lock; a miss makes its requests without holding any lock (two threads
//! missing together both ask, and the second insert is a no-op).

use std::any::TypeId;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

use apache_avro::Schema;

use super::client::{RegistryClient, RegistryError};
use super::config::{RegistryConfig, SchemaChoice};
use crate::serdes::{Role, SerdeContext, SerdeError};

/// A parsed schema and what identifies it.
#[derive(Debug)]
pub struct Known {
    /// The schema.
    pub schema: Schema,
    /// A hash of its Parsing Canonical Form: equal for schemas that read and write alike.
    pub canonical: u64,
}

impl Known {
    fn new(schema: Schema) -> Self {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        schema.canonical_form().hash(&mut hasher);
        Known {
            schema,
            canonical: hasher.finish(),
        }
    }
}

/// What a serializer writes with.
#[derive(Debug)]
pub struct Writer {
    /// The id in every record's header.
    pub id: u32,
    /// The schema the data is encoded with.
    pub schema: Arc<Known>,
}

type WriterMap = HashMap<(TypeId, Role), HashMap<Box<str>, Arc<Writer>>>;

/// A schema registry of one application instance: its client and caches, shared by every
/// processing thread of the instance. Give it to the instance with
/// `KafkaStreams::builder(..).serde_state(registry)` (or the TestDriver's builder); the registry
/// serdes ([`Avro`](super::Avro), [`AvroGeneric`](super::AvroGeneric)) find it there.
///
/// Cheap to clone: clones share the client and the caches.
#[derive(Clone, Debug)]
pub struct SchemaRegistry {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    client: RegistryClient,
    writers: RwLock<WriterMap>,
    schemas: RwLock<HashMap<u32, Arc<Known>>>,
    own: RwLock<HashMap<TypeId, Arc<Known>>>,
}

fn schema_error(id: Option<u32>, reason: impl Into<String>) -> SerdeError {
    SerdeError::Schema {
        schema_id: id,
        reason: reason.into(),
    }
}

impl SchemaRegistry {
    /// A registry with `config`. No request is made until a serde needs one.
    pub fn new(config: RegistryConfig) -> Self {
        SchemaRegistry {
            inner: Arc::new(Inner {
                client: RegistryClient::new(config),
                writers: RwLock::default(),
                schemas: RwLock::default(),
                own: RwLock::default(),
            }),
        }
    }

    /// The HTTP client (to register schemas or set compatibility from an application or a test).
    pub fn client(&self) -> &RegistryClient {
        &self.inner.client
    }

    /// How many schemas of ids are cached (for tests and metrics).
    pub fn cached_schema_ids(&self) -> usize {
        self.inner.schemas.read().map_or(0, |m| m.len())
    }

    /// The own schema of serde type `Tag`, made by `make` the first time.
    pub(crate) fn own<Tag: 'static>(&self, make: impl FnOnce() -> Schema) -> Arc<Known> {
        let key = TypeId::of::<Tag>();
        if let Some(known) = self
            .inner
            .own
            .read()
            .ok()
            .and_then(|m| m.get(&key).cloned())
        {
            return known;
        }
        let known = Arc::new(Known::new(make()));
        if let Ok(mut map) = self.inner.own.write() {
            return Arc::clone(map.entry(key).or_insert(known));
        }
        known
    }

    /// The schema of `id`, fetched and parsed the first time.
    pub(crate) fn schema_of(&self, id: u32) -> Result<Arc<Known>, SerdeError> {
        if let Some(known) = self
            .inner
            .schemas
            .read()
            .ok()
            .and_then(|m| m.get(&id).cloned())
        {
            return Ok(known);
        }
        let text = self.inner.client.schema_by_id(id).map_err(|e| {
            if e.is_not_found() {
                schema_error(
                    Some(id),
                    format!(
                        "unknown schema id: the registry at {} does not have it ({e})",
                        self.inner.client.config().url()
                    ),
                )
            } else {
                schema_error(Some(id), format!("fetching the writer's schema: {e}"))
            }
        })?;
        let schema = Schema::parse_str(&text).map_err(|e| {
            schema_error(
                Some(id),
                format!("the registry's schema does not parse as Avro: {e}"),
            )
        })?;
        let known = Arc::new(Known::new(schema));
        if let Ok(mut map) = self.inner.schemas.write() {
            return Ok(Arc::clone(map.entry(id).or_insert(known)));
        }
        Ok(known)
    }

    /// What serde type `Tag` writes with as `cx`'s role on `cx`'s topic, resolved the first time
    /// by the configured [`SchemaChoice`].
    pub(crate) fn writer<Tag: 'static>(
        &self,
        cx: SerdeContext<'_>,
        make: impl FnOnce() -> Schema,
    ) -> Result<Arc<Writer>, SerdeError> {
        let key = (TypeId::of::<Tag>(), cx.role());
        if let Some(writer) = self
            .inner
            .writers
            .read()
            .ok()
            .and_then(|m| m.get(&key).and_then(|t| t.get(cx.topic()).cloned()))
        {
            return Ok(writer);
        }
        let writer = Arc::new(self.resolve_writer::<Tag>(cx, make)?);
        if let Ok(mut map) = self.inner.writers.write() {
            return Ok(Arc::clone(
                map.entry(key)
                    .or_default()
                    .entry(cx.topic().into())
                    .or_insert(writer),
            ));
        }
        Ok(writer)
    }

    fn resolve_writer<Tag: 'static>(
        &self,
        cx: SerdeContext<'_>,
        make: impl FnOnce() -> Schema,
    ) -> Result<Writer, SerdeError> {
        let own = self.own::<Tag>(make);
        let client = &self.inner.client;
        let config = client.config();
        let record = own.schema.name().map(|n| n.fullname(None));
        let subject = config
            .strategy
            .subject(cx.topic(), cx.role(), record.as_deref())
            .map_err(|reason| schema_error(None, reason))?;
        let failed = |what: &str, e: RegistryError| {
            schema_error(None, format!("{what} under subject {subject}: {e}"))
        };
        match config.choice {
            SchemaChoice::AutoRegister => {
                let text = schema_json(&own.schema)?;
                let id = client
                    .register(&subject, &text)
                    .map_err(|e| failed("registering the schema", e))?;
                tracing::debug!(%subject, id, "schema registered");
                Ok(Writer { id, schema: own })
            }
            SchemaChoice::Registered => {
                let text = schema_json(&own.schema)?;
                match client.lookup(&subject, &text) {
                    Ok(Some(id)) => Ok(Writer { id, schema: own }),
                    Ok(None) => Err(schema_error(
                        None,
                        format!(
                            "the schema is not registered under subject {subject}, and registering is off (SchemaChoice::Registered)"
                        ),
                    )),
                    Err(e) => Err(failed("looking up the schema", e)),
                }
            }
            SchemaChoice::UseLatest => {
                let latest = client
                    .latest(&subject)
                    .map_err(|e| failed("reading the latest version", e))?;
                let schema = self.schema_of(latest.id)?;
                Ok(Writer {
                    id: latest.id,
                    schema,
                })
            }
            SchemaChoice::Id(id) => Ok(Writer {
                id,
                schema: self.schema_of(id)?,
            }),
        }
    }
}

/// The JSON text of `schema`, as registered (with defaults and docs, which compatibility
/// checks need).
fn schema_json(schema: &Schema) -> Result<String, SerdeError> {
    serde_json::to_string(schema)
        .map_err(|e| schema_error(None, format!("the schema does not print as JSON: {e}")))
}
