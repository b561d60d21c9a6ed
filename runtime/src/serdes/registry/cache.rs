//! The instance's registry state: the client and, per format, the caches that keep the
//! per-record path free of requests once warm.
//!
//! - **writers**: per serde type, role and topic, the id (and schema, and Protobuf message) a
//!   serializer writes with, resolved once: registered, looked up, the latest version, or a
//!   given id;
//! - **schemas**: per schema id, the parsed schema (a writer's schema fetched once, when a record
//!   names an id not seen yet, with the schemas it references);
//! - **own**: per serde type, its own (reader) schema, made once.
//!
//! Lookups take a read lock; a miss makes its requests without holding any lock (two threads
//! missing together both ask, and the second insert is a no-op).

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, RwLock};

use super::client::{RegistryClient, RegistryError, SchemaReference, SchemaText};
use super::config::{RegistryConfig, SchemaChoice};
use super::format::{Dependency, Format, Own, schema_error};
use crate::serdes::{Role, SerdeContext, SerdeError};

/// What a serializer writes with.
pub(crate) struct Writer<F: Format> {
    /// The id in every record's header.
    pub id: u32,
    /// The schema the data is encoded with.
    pub schema: Arc<F::Schema>,
    /// The serde's type in that schema (what Protobuf's message indexes come from; Avro and
    /// JSON Schema have one type per schema).
    #[cfg_attr(not(feature = "protobuf"), allow(dead_code))]
    pub target: F::Target,
}

type WriterMap<F> = HashMap<(TypeId, Role), HashMap<Box<str>, Arc<Writer<F>>>>;

/// The caches of one format.
pub(crate) struct Caches<F: Format> {
    writers: RwLock<WriterMap<F>>,
    schemas: RwLock<HashMap<u32, Arc<F::Schema>>>,
    own: RwLock<HashMap<TypeId, Arc<Own<F>>>>,
}

impl<F: Format> Default for Caches<F> {
    fn default() -> Self {
        Caches {
            writers: RwLock::default(),
            schemas: RwLock::default(),
            own: RwLock::default(),
        }
    }
}

impl<F: Format> Caches<F> {
    fn schema_ids(&self) -> usize {
        self.schemas.read().map_or(0, |m| m.len())
    }
}

/// The value of `key` in `map`, or the one `make` makes, inserted (the first insert wins).
fn cached<K: Eq + Hash, V: ?Sized>(
    map: &RwLock<HashMap<K, Arc<V>>>,
    key: K,
    make: impl FnOnce() -> Result<Arc<V>, SerdeError>,
) -> Result<Arc<V>, SerdeError> {
    if let Some(found) = map.read().ok().and_then(|m| m.get(&key).cloned()) {
        return Ok(found);
    }
    let made = make()?;
    match map.write() {
        Ok(mut map) => Ok(Arc::clone(map.entry(key).or_insert(made))),
        Err(_) => Ok(made),
    }
}

/// A schema registry of one application instance: its client and caches, shared by every
/// processing thread of the instance. Give it to the instance with
/// `KafkaStreams::builder(..).serde_state(registry)` (or the TestDriver's builder); the registry
/// serdes of every format find it there.
///
/// Cheap to clone: clones share the client and the caches.
#[derive(Clone)]
pub struct SchemaRegistry {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    client: RegistryClient,
    #[cfg(feature = "avro")]
    pub(super) avro: Caches<super::avro::AvroFormat>,
    #[cfg(feature = "protobuf")]
    pub(super) protobuf: Caches<super::protobuf::ProtobufFormat>,
    #[cfg(feature = "json-schema")]
    pub(super) json: Caches<super::json_schema::JsonFormat>,
}

impl fmt::Debug for SchemaRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SchemaRegistry")
            .field("client", &self.inner.client)
            .field("cached_schema_ids", &self.cached_schema_ids())
            .finish()
    }
}

impl SchemaRegistry {
    /// A registry with `config`. No request is made until a serde needs one.
    pub fn new(config: RegistryConfig) -> Self {
        SchemaRegistry {
            inner: Arc::new(Inner {
                client: RegistryClient::new(config),
                #[cfg(feature = "avro")]
                avro: Caches::default(),
                #[cfg(feature = "protobuf")]
                protobuf: Caches::default(),
                #[cfg(feature = "json-schema")]
                json: Caches::default(),
            }),
        }
    }

    /// The HTTP client (to register schemas or set compatibility from an application or a test).
    pub fn client(&self) -> &RegistryClient {
        &self.inner.client
    }

    /// How many schemas of ids are cached, all formats together (for tests and metrics).
    pub fn cached_schema_ids(&self) -> usize {
        #[allow(unused_mut)] // without a format feature
        let mut count = 0;
        #[cfg(feature = "avro")]
        {
            count += self.inner.avro.schema_ids();
        }
        #[cfg(feature = "protobuf")]
        {
            count += self.inner.protobuf.schema_ids();
        }
        #[cfg(feature = "json-schema")]
        {
            count += self.inner.json.schema_ids();
        }
        count
    }

    /// The own schema of serde type `Tag`, made by `make` the first time.
    pub(crate) fn own<F: Format, Tag: 'static>(
        &self,
        make: impl FnOnce() -> Result<Own<F>, String>,
    ) -> Result<Arc<Own<F>>, SerdeError> {
        cached(&F::caches(self).own, TypeId::of::<Tag>(), || {
            make().map(Arc::new).map_err(|reason| {
                schema_error(
                    None,
                    format!("making the serde's own {} schema: {reason}", F::NAME),
                )
            })
        })
    }

    /// The schema of `id`, fetched (with the schemas it references) and parsed the first time.
    pub(crate) fn schema_of<F: Format>(&self, id: u32) -> Result<Arc<F::Schema>, SerdeError> {
        cached(&F::caches(self).schemas, id, || {
            self.fetch::<F>(id).map(Arc::new)
        })
    }

    fn fetch<F: Format>(&self, id: u32) -> Result<F::Schema, SerdeError> {
        let client = &self.inner.client;
        let found = client.schema_by_id(id).map_err(|e| {
            if e.is_not_found() {
                schema_error(
                    Some(id),
                    format!(
                        "unknown schema id: the registry at {} does not have it ({e})",
                        client.config().url()
                    ),
                )
            } else {
                schema_error(Some(id), format!("fetching the writer's schema: {e}"))
            }
        })?;
        let schema_type = found.schema_type.as_deref().unwrap_or("AVRO");
        if schema_type != F::SCHEMA_TYPE {
            return Err(schema_error(
                Some(id),
                format!(
                    "the record was written with a {schema_type} schema, and this serde reads {}",
                    F::SCHEMA_TYPE
                ),
            ));
        }
        let mut references = Vec::new();
        self.referenced(&found.references, &mut references, 0)
            .map_err(|e| schema_error(Some(id), format!("fetching its references: {e}")))?;
        F::parse(&found.schema, &references).map_err(|e| {
            schema_error(
                Some(id),
                format!("the registry's schema does not parse as {}: {e}", F::NAME),
            )
        })
    }

    /// Adds the texts of `references` and of those they reference, by name, to `out`.
    fn referenced(
        &self,
        references: &[SchemaReference],
        out: &mut Vec<(String, String)>,
        depth: usize,
    ) -> Result<(), RegistryError> {
        for reference in references {
            if depth > 32 || out.iter().any(|(name, _)| *name == reference.name) {
                continue;
            }
            let found = self
                .inner
                .client
                .version(&reference.subject, reference.version)?;
            self.referenced(&found.references, out, depth + 1)?;
            out.push((reference.name.clone(), found.schema));
        }
        Ok(())
    }

    /// What serde type `Tag` writes with as `cx`'s role on `cx`'s topic, resolved the first time
    /// by the configured [`SchemaChoice`].
    pub(crate) fn writer<F: Format, Tag: 'static>(
        &self,
        cx: SerdeContext<'_>,
        make: impl FnOnce() -> Result<Own<F>, String>,
    ) -> Result<Arc<Writer<F>>, SerdeError> {
        let writers = &F::caches(self).writers;
        let key = (TypeId::of::<Tag>(), cx.role());
        if let Some(writer) = writers
            .read()
            .ok()
            .and_then(|m| m.get(&key).and_then(|t| t.get(cx.topic()).cloned()))
        {
            return Ok(writer);
        }
        let own = self.own::<F, Tag>(make)?;
        let writer = Arc::new(self.resolve_writer(cx, &own)?);
        if let Ok(mut map) = writers.write() {
            return Ok(Arc::clone(
                map.entry(key)
                    .or_default()
                    .entry(cx.topic().into())
                    .or_insert(writer),
            ));
        }
        Ok(writer)
    }

    fn resolve_writer<F: Format>(
        &self,
        cx: SerdeContext<'_>,
        own: &Arc<Own<F>>,
    ) -> Result<Writer<F>, SerdeError> {
        let client = &self.inner.client;
        let config = client.config();
        let subject = config
            .strategy
            .subject(cx.topic(), cx.role(), own.record.as_deref())
            .map_err(|reason| schema_error(None, reason))?;
        let failed = |what: &str, e: RegistryError| {
            schema_error(None, format!("{what} under subject {subject}: {e}"))
        };
        let ours = |id| Writer {
            id,
            schema: Arc::clone(&own.schema),
            target: own.target.clone(),
        };
        let registered = |id| -> Result<Writer<F>, SerdeError> {
            let schema = self.schema_of::<F>(id)?;
            let target = F::locate(&schema, own).map_err(|e| schema_error(Some(id), e))?;
            Ok(Writer { id, schema, target })
        };
        match config.choice {
            SchemaChoice::AutoRegister => {
                let references = self
                    .dependencies(&own.dependencies, F::SCHEMA_TYPE, true)
                    .map_err(|e| failed("registering the schemas it references", e))?;
                let text = SchemaText {
                    schema: &own.text,
                    schema_type: F::SCHEMA_TYPE,
                    references: &references,
                };
                let id = client
                    .register(&subject, &text)
                    .map_err(|e| failed("registering the schema", e))?;
                tracing::debug!(%subject, id, "schema registered");
                Ok(ours(id))
            }
            SchemaChoice::Registered => {
                let references = self
                    .dependencies(&own.dependencies, F::SCHEMA_TYPE, false)
                    .map_err(|e| failed("looking up the schemas it references", e))?;
                let text = SchemaText {
                    schema: &own.text,
                    schema_type: F::SCHEMA_TYPE,
                    references: &references,
                };
                match client.lookup(&subject, &text) {
                    Ok(Some(found)) => Ok(ours(found.id)),
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
                registered(latest.id)
            }
            SchemaChoice::Id(id) => registered(id),
        }
    }

    /// Registers (or, without `register`, looks up) each of `dependencies` under its name as
    /// subject, in order: the references of the schema that depends on them directly.
    pub(super) fn dependencies(
        &self,
        dependencies: &[Dependency],
        schema_type: &str,
        register: bool,
    ) -> Result<Vec<SchemaReference>, RegistryError> {
        let client = &self.inner.client;
        let mut done: Vec<SchemaReference> = Vec::with_capacity(dependencies.len());
        for dependency in dependencies {
            let references: Vec<SchemaReference> = done
                .iter()
                .filter(|r| dependency.references.contains(&r.name))
                .cloned()
                .collect();
            let text = SchemaText {
                schema: &dependency.text,
                schema_type,
                references: &references,
            };
            if register {
                client.register(&dependency.name, &text)?;
            }
            let found = client.lookup(&dependency.name, &text)?;
            let version = found
                .and_then(|f| f.version)
                .ok_or_else(|| RegistryError::Answer {
                    url: format!("{}/subjects/{}", client.config().url(), dependency.name),
                    reason:
                        "the referenced schema is not registered under its name (or has no version)"
                            .into(),
                })?;
            done.push(SchemaReference {
                name: dependency.name.clone(),
                subject: dependency.name.clone(),
                version,
            });
        }
        // The schema itself references its direct imports only; the registry follows the rest.
        done.retain(|r| dependencies.iter().any(|d| d.direct && d.name == r.name));
        Ok(done)
    }
}
