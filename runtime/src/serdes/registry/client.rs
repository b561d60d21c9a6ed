//! The HTTP side: Confluent's schema registry API (or Apicurio's `/apis/ccompat/v7`), blocking.
//!
//! Requests run on the thread that needs the answer: a processing thread (plain OS threads,
//! never a tokio worker, so a slow registry delays no heartbeat) or a test's thread. Once a
//! serde's caches are warm it makes no request at all. An unreachable registry, or one that
//! answers 5xx or 429, is retried with a log line per attempt and a growing pause (0.1 s doubling
//! to 5 s) for [`RegistryConfig::retry_for`](super::RegistryConfig::retry_for); other answers
//! (404 for an unknown subject or id, 409 for an incompatible schema, 422 for an invalid one)
//! are final.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;

use super::config::{Auth, RegistryConfig};

/// Why a registry request failed.
#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    /// The registry answered with an error (Confluent's `error_code` and `message`).
    #[error(
        "the schema registry answered {status} to {method} {url}: {message} (error code {code})"
    )]
    Refused {
        /// The request's method.
        method: &'static str,
        /// The request's URL.
        url: String,
        /// The HTTP status.
        status: u16,
        /// Confluent's error code (40401 subject not found, 40403 schema not found, 409 incompatible, ..), or the status.
        code: u32,
        /// The registry's message.
        message: String,
    },
    /// The registry could not be reached (or kept answering 5xx) for the whole retry time.
    #[error(
        "the schema registry at {url} could not be reached for {waited:?} ({attempts} attempts): {last}"
    )]
    Unreachable {
        /// The request's URL.
        url: String,
        /// How long it was retried.
        waited: Duration,
        /// How many requests were made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// The answer was not what the API documents.
    #[error("unexpected answer from the schema registry to {url}: {reason}")]
    Answer {
        /// The request's URL.
        url: String,
        /// What did not fit.
        reason: String,
    },
}

impl RegistryError {
    /// Whether the registry said the subject, version or schema id does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, RegistryError::Refused { status: 404, .. })
    }
}

/// A schema as the registry returns it for a subject's version.
#[derive(Debug, Clone, Deserialize)]
pub struct RegisteredSchema {
    /// Its id (Apicurio: the content id).
    pub id: u32,
    /// The version under the subject, when the answer names one.
    #[serde(default)]
    pub version: Option<i32>,
    /// The schema's text (JSON for Avro and JSON Schema, `.proto` source for Protobuf).
    pub schema: String,
    /// The schemas it references (Protobuf imports), by subject and version.
    #[serde(default)]
    pub references: Vec<SchemaReference>,
}

/// A schema as the registry returns it for an id: its text, type and references.
#[derive(Debug, Clone, Deserialize)]
pub struct SchemaById {
    /// The schema's text.
    pub schema: String,
    /// `AVRO` (also when the registry leaves it out), `PROTOBUF` or `JSON`.
    #[serde(rename = "schemaType", default)]
    pub schema_type: Option<String>,
    /// The schemas it references, by subject and version.
    #[serde(default)]
    pub references: Vec<SchemaReference>,
}

/// A reference from one schema to another (Confluent's `references`): for Protobuf, an import.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct SchemaReference {
    /// The name the referencing schema uses (for Protobuf, the import's path).
    pub name: String,
    /// The subject the referenced schema is registered under.
    pub subject: String,
    /// Its version under that subject.
    pub version: i32,
}

/// A schema to register or look up: its type, text and references.
#[derive(Debug, Clone, Copy, serde::Serialize)]
pub struct SchemaText<'a> {
    /// The text.
    pub schema: &'a str,
    /// `AVRO`, `PROTOBUF` or `JSON`.
    #[serde(rename = "schemaType")]
    pub schema_type: &'a str,
    /// The schemas it references.
    #[serde(skip_serializing_if = "no_references")]
    pub references: &'a [SchemaReference],
}

fn no_references(references: &&[SchemaReference]) -> bool {
    references.is_empty()
}

impl<'a> SchemaText<'a> {
    /// An Avro schema (JSON) without references.
    pub fn avro(schema: &'a str) -> Self {
        SchemaText {
            schema,
            schema_type: "AVRO",
            references: &[],
        }
    }
}

#[derive(Deserialize)]
struct IdOnly {
    id: u32,
}

#[derive(Deserialize)]
struct ErrorBody {
    error_code: Option<u32>,
    message: Option<String>,
}

const CONTENT_TYPE: &str = "application/vnd.schemaregistry.v1+json";

/// A blocking client of the registry's Confluent API.
#[derive(Clone)]
pub struct RegistryClient {
    agent: ureq::Agent,
    config: RegistryConfig,
    authorization: Option<String>,
    requests: std::sync::Arc<AtomicU64>,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient")
            .field("url", &self.config.url)
            .field("auth", &self.config.auth)
            .finish()
    }
}

impl RegistryClient {
    /// A client for `config` (no request is made).
    pub fn new(config: RegistryConfig) -> Self {
        use base64::Engine as _;
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.request_timeout))
            .http_status_as_error(false)
            .tls_config(
                ureq::tls::TlsConfig::builder()
                    .provider(ureq::tls::TlsProvider::NativeTls)
                    .build(),
            )
            .build()
            .into();
        let authorization = config.auth.as_ref().map(|auth| match auth {
            Auth::Basic { user, password } => format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
            ),
            Auth::Bearer(token) => format!("Bearer {token}"),
        });
        RegistryClient {
            agent,
            config,
            authorization,
            requests: std::sync::Arc::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &RegistryConfig {
        &self.config
    }

    /// How many HTTP requests this client (and its clones) made, retries included: a warm
    /// serde makes none per record.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Registers `schema` under `subject`, or finds it there: its id.
    pub fn register(&self, subject: &str, schema: &SchemaText<'_>) -> Result<u32, RegistryError> {
        let url = format!("{}/subjects/{}/versions", self.config.url, encode(subject));
        let body = body(schema);
        self.request("POST", &url, Some(&body))
            .and_then(|text| parse::<IdOnly>(&url, &text))
            .map(|r| r.id)
    }

    /// `schema` as registered under `subject` (its id and version), or `None` when the subject
    /// does not have it.
    pub fn lookup(
        &self,
        subject: &str,
        schema: &SchemaText<'_>,
    ) -> Result<Option<RegisteredSchema>, RegistryError> {
        let url = format!("{}/subjects/{}", self.config.url, encode(subject));
        let body = body(schema);
        match self.request("POST", &url, Some(&body)) {
            Ok(text) => parse::<RegisteredSchema>(&url, &text).map(Some),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The latest schema registered under `subject`.
    pub fn latest(&self, subject: &str) -> Result<RegisteredSchema, RegistryError> {
        self.version(subject, "latest")
    }

    /// Version `version` (a number, or `latest`) of the schema under `subject`.
    pub fn version(
        &self,
        subject: &str,
        version: impl std::fmt::Display,
    ) -> Result<RegisteredSchema, RegistryError> {
        let url = format!(
            "{}/subjects/{}/versions/{version}",
            self.config.url,
            encode(subject)
        );
        self.request("GET", &url, None)
            .and_then(|text| parse::<RegisteredSchema>(&url, &text))
    }

    /// The schema of `id`: its text, type and references.
    pub fn schema_by_id(&self, id: u32) -> Result<SchemaById, RegistryError> {
        let url = format!("{}/schemas/ids/{id}", self.config.url);
        self.request("GET", &url, None)
            .and_then(|text| parse::<SchemaById>(&url, &text))
    }

    /// The versions registered under `subject`, oldest first; empty when the subject does not
    /// exist.
    pub fn versions(&self, subject: &str) -> Result<Vec<i32>, RegistryError> {
        let url = format!("{}/subjects/{}/versions", self.config.url, encode(subject));
        match self.request("GET", &url, None) {
            Ok(text) => parse::<Vec<i32>>(&url, &text),
            Err(e) if e.is_not_found() => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// The compatibility mode `subject` is checked under (`BACKWARD`, `FORWARD_TRANSITIVE`,
    /// `NONE`, ..): its own, or the registry's global one.
    pub fn compatibility(&self, subject: &str) -> Result<String, RegistryError> {
        #[derive(serde::Deserialize)]
        struct Level {
            #[serde(rename = "compatibilityLevel", alias = "compatibility")]
            level: String,
        }
        let subject_url = format!(
            "{}/config/{}?defaultToGlobal=true",
            self.config.url,
            encode(subject)
        );
        let text = match self.request("GET", &subject_url, None) {
            Ok(text) => text,
            Err(e) if e.is_not_found() => {
                self.request("GET", &format!("{}/config", self.config.url), None)?
            }
            Err(e) => return Err(e),
        };
        parse::<Level>(&subject_url, &text).map(|l| l.level)
    }

    /// Whether the registry finds `schema` compatible with version `version` of `subject`
    /// under the subject's compatibility mode, and its messages where it gives any.
    pub fn test_compatibility(
        &self,
        subject: &str,
        version: i32,
        schema: &SchemaText<'_>,
    ) -> Result<(bool, Vec<String>), RegistryError> {
        #[derive(serde::Deserialize)]
        struct Answer {
            is_compatible: bool,
            #[serde(default)]
            messages: Vec<String>,
        }
        let url = format!(
            "{}/compatibility/subjects/{}/versions/{version}?verbose=true",
            self.config.url,
            encode(subject)
        );
        let body = body(schema);
        self.request("POST", &url, Some(&body))
            .and_then(|text| parse::<Answer>(&url, &text))
            .map(|a| (a.is_compatible, a.messages))
    }

    /// Deletes `subject` with all its versions, for good (soft, then permanent: what a test or
    /// a tool resetting a subject does). A subject that does not exist is not an error.
    pub fn delete_subject(&self, subject: &str) -> Result<(), RegistryError> {
        let url = format!("{}/subjects/{}", self.config.url, encode(subject));
        for url in [url.clone(), format!("{url}?permanent=true")] {
            match self.request("DELETE", &url, None) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Sets the compatibility mode of `subject` (`BACKWARD`, `FORWARD`, `FULL`, `NONE`, ..).
    pub fn set_compatibility(&self, subject: &str, level: &str) -> Result<(), RegistryError> {
        let url = format!("{}/config/{}", self.config.url, encode(subject));
        let body = format!("{{\"compatibility\":\"{level}\"}}");
        self.request("PUT", &url, Some(&body)).map(drop)
    }

    /// One request, retried while the registry cannot be reached: the body of a 2xx answer.
    fn request(
        &self,
        method: &'static str,
        url: &str,
        body: Option<&str>,
    ) -> Result<String, RegistryError> {
        let started = Instant::now();
        let mut pause = Duration::from_millis(100);
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let failure = match self.once(method, url, body) {
                Ok((status, text)) if (200..300).contains(&status) => return Ok(text),
                Ok((status, text)) if status >= 500 || status == 429 => {
                    format!("HTTP {status}: {}", text.trim())
                }
                Ok((status, text)) => {
                    let parsed: Option<ErrorBody> = serde_json::from_str(&text).ok();
                    let code = parsed
                        .as_ref()
                        .and_then(|e| e.error_code)
                        .unwrap_or(u32::from(status));
                    let message = parsed
                        .and_then(|e| e.message)
                        .unwrap_or_else(|| text.trim().to_owned());
                    return Err(RegistryError::Refused {
                        method,
                        url: url.to_owned(),
                        status,
                        code,
                        message,
                    });
                }
                Err(e) => e.to_string(),
            };
            let waited = started.elapsed();
            if waited + pause > self.config.retry_for {
                return Err(RegistryError::Unreachable {
                    url: url.to_owned(),
                    waited,
                    attempts,
                    last: failure,
                });
            }
            tracing::warn!(
                %url, attempt = attempts, error = %failure, retry_in = ?pause,
                "the schema registry cannot be reached; retrying"
            );
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_secs(5));
        }
    }

    fn once(
        &self,
        method: &'static str,
        url: &str,
        body: Option<&str>,
    ) -> Result<(u16, String), ureq::Error> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let mut response = match (method, body) {
            ("GET" | "DELETE", _) => {
                let mut request = match method {
                    "DELETE" => self.agent.delete(url),
                    _ => self.agent.get(url),
                }
                .header("Accept", CONTENT_TYPE);
                if let Some(auth) = &self.authorization {
                    request = request.header("Authorization", auth);
                }
                request.call()?
            }
            (_, body) => {
                let mut request = match method {
                    "PUT" => self.agent.put(url),
                    _ => self.agent.post(url),
                }
                .header("Accept", CONTENT_TYPE)
                .content_type(CONTENT_TYPE);
                if let Some(auth) = &self.authorization {
                    request = request.header("Authorization", auth);
                }
                request.send(body.unwrap_or_default())?
            }
        };
        let status = response.status().as_u16();
        let text = response.body_mut().read_to_string()?;
        Ok((status, text))
    }
}

fn body(schema: &SchemaText<'_>) -> String {
    serde_json::to_string(schema).unwrap_or_default()
}

fn parse<T: serde::de::DeserializeOwned>(url: &str, text: &str) -> Result<T, RegistryError> {
    serde_json::from_str(text).map_err(|e| RegistryError::Answer {
        url: url.to_owned(),
        reason: format!("{e}: {}", text.chars().take(200).collect::<String>()),
    })
}

/// Percent-encodes a subject for a URL path segment.
fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn subjects_are_encoded() {
        assert_eq!(super::encode("orders-shop.Order"), "orders-shop.Order");
        assert_eq!(super::encode("a b/c"), "a%20b%2Fc");
    }
}
