//! The start-up check of a registry serde ([`Serde::check_at_start`](crate::serdes::Serde)):
//! before the instance processes anything, its own schema must be compatible with the versions
//! registered under its subject, under the subject's compatibility mode, as the registry would
//! judge a registration of it. A mismatch stops the application with the subject, the versions
//! and (for Avro, whose rules this crate also knows) the first incompatible field, instead of
//! failing record by record later.
//!
//! - `NONE`, or a subject with no version yet: nothing to check.
//! - `BACKWARD`, `FORWARD`, `FULL`: against the latest version; `*_TRANSITIVE`: against every
//!   version. The registry decides (`POST /compatibility/subjects/{subject}/versions/{v}`);
//!   Apicurio answers without messages, so for Avro the reason is worked out here with
//!   `apache-avro`'s schema compatibility (the reader's side for `BACKWARD`, the writer's for
//!   `FORWARD`).
//! - A registry that cannot be reached is [`StartCheckError::Unavailable`]: the instance logs
//!   it and asks again, never starting meanwhile and never stopping for it.

use super::cache::SchemaRegistry;
use super::client::{RegistryError, SchemaText};
use super::format::{Format, Own};
use crate::serdes::{SerdeContext, StartCheckError, with_state};

/// The compatibility mode of a subject, as the directions it checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mode {
    /// New schemas must read what older ones wrote (`BACKWARD`, `FULL`).
    pub backward: bool,
    /// Older schemas must read what new ones write (`FORWARD`, `FULL`).
    pub forward: bool,
    /// Against every version, not only the latest.
    pub transitive: bool,
}

impl Mode {
    /// The mode the registry names `level`; `None` for `NONE` (or one it does not know).
    pub(crate) fn parse(level: &str) -> Option<Mode> {
        let (base, transitive) = match level.strip_suffix("_TRANSITIVE") {
            Some(base) => (base, true),
            None => (level, false),
        };
        let (backward, forward) = match base {
            "BACKWARD" => (true, false),
            "FORWARD" => (false, true),
            "FULL" => (true, true),
            _ => return None,
        };
        Some(Mode {
            backward,
            forward,
            transitive,
        })
    }
}

/// What a registry serde's `check_at_start` does: [`SchemaRegistry::check_compatible`] with the
/// instance's registry.
pub(crate) fn check_at_start<F: Format, Tag: 'static>(
    cx: SerdeContext<'_>,
    make: impl FnOnce() -> Result<Own<F>, String>,
) -> Result<(), StartCheckError> {
    with_state::<SchemaRegistry, _>(|registry| match registry {
        Some(registry) => registry.check_compatible::<F, Tag>(cx, make),
        None => Err(StartCheckError::Incompatible(format!(
            "the {} of topic {} has a schema registry serde, and the instance has no SchemaRegistry: build it with .serde_state(SchemaRegistry::new(RegistryConfig::new(url)))",
            cx.role(),
            cx.topic()
        ))),
    })
}

impl SchemaRegistry {
    /// Checks serde `Tag`'s own schema against its subject on `cx` (see the module docs).
    pub(crate) fn check_compatible<F: Format, Tag: 'static>(
        &self,
        cx: SerdeContext<'_>,
        make: impl FnOnce() -> Result<Own<F>, String>,
    ) -> Result<(), StartCheckError> {
        let own = self
            .own::<F, Tag>(make)
            .map_err(|e| StartCheckError::Incompatible(e.to_string()))?;
        let client = self.client();
        let subject = client
            .config()
            .strategy
            .subject(cx.topic(), cx.role(), own.record.as_deref())
            .map_err(StartCheckError::Incompatible)?;
        let failed = |e: RegistryError| match e {
            RegistryError::Unreachable { .. } => {
                StartCheckError::Unavailable(format!("checking subject {subject} at start: {e}"))
            }
            e => StartCheckError::Incompatible(format!("checking subject {subject} at start: {e}")),
        };
        let versions = client.versions(&subject).map_err(failed)?;
        if versions.is_empty() {
            return Ok(());
        }
        let level = client.compatibility(&subject).map_err(failed)?;
        let Some(mode) = Mode::parse(&level) else {
            return Ok(());
        };
        let references = match self.dependencies(&own.dependencies, F::SCHEMA_TYPE, false) {
            Ok(references) => references,
            Err(e @ RegistryError::Unreachable { .. }) => return Err(failed(e)),
            Err(e) => {
                // Its imports are not registered yet (the first write registers them): no
                // registered version can reference them either, so there is nothing to compare.
                tracing::info!(%subject, error = %e, "schema references not registered yet; compatibility not checked at start");
                return Ok(());
            }
        };
        let text = SchemaText {
            schema: &own.text,
            schema_type: F::SCHEMA_TYPE,
            references: &references,
        };
        let against: Vec<i32> = if mode.transitive {
            versions.iter().rev().copied().collect()
        } else {
            versions.last().copied().into_iter().collect()
        };
        for version in against {
            let (compatible, messages) = client
                .test_compatibility(&subject, version, &text)
                .map_err(failed)?;
            if compatible {
                continue;
            }
            let registered = client.version(&subject, version).map_err(failed)?;
            let theirs = self.schema_of::<F>(registered.id).ok();
            let reason = theirs
                .and_then(|theirs| F::explain(&own.schema, &theirs, mode))
                .or_else(|| (!messages.is_empty()).then(|| messages.join("; ")))
                .unwrap_or_else(|| "the registry gives no reason".to_owned());
            return Err(StartCheckError::Incompatible(format!(
                "the {role} schema of topic {topic} is not compatible with version {version} (schema id {id}) of subject {subject}, under its compatibility {level}{of}: {reason}. Make the schema compatible (a default for a new field, a type both sides read), register the new version with the compatibility it needs, or use another subject",
                role = cx.role(),
                topic = cx.topic(),
                id = registered.id,
                of = if mode.transitive && versions.len() > 1 {
                    format!(" (versions {})", join(&versions))
                } else {
                    String::new()
                },
            )));
        }
        Ok(())
    }
}

fn join(versions: &[i32]) -> String {
    versions
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::Mode;

    #[test]
    fn modes() {
        assert_eq!(Mode::parse("NONE"), None);
        assert_eq!(
            Mode::parse("FULL_TRANSITIVE"),
            Some(Mode {
                backward: true,
                forward: true,
                transitive: true
            })
        );
        assert_eq!(
            Mode::parse("FORWARD"),
            Some(Mode {
                backward: false,
                forward: true,
                transitive: false
            })
        );
    }
}
