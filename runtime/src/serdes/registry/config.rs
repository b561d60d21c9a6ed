//! How an application reaches its schema registry and chooses subjects and schemas.

use std::time::Duration;

use super::subject::SubjectNameStrategy;

/// Credentials sent with every registry request.
#[derive(Clone, PartialEq, Eq)]
pub enum Auth {
    /// HTTP basic authentication (Confluent's `basic.auth.user.info`).
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// A bearer token (Confluent's `bearer.auth.token`).
    Bearer(String),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Basic { user, .. } => write!(f, "Basic({user}, ***)"),
            Auth::Bearer(_) => f.write_str("Bearer(***)"),
        }
    }
}

/// Which schema a serializer writes with, and so which id it puts before the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SchemaChoice {
    /// The serde's own schema, registered under the subject when the registry does not have it
    /// yet (Confluent's `auto.register.schemas=true`, the default).
    #[default]
    AutoRegister,
    /// The serde's own schema, which must already be registered under the subject
    /// (`auto.register.schemas=false`): a missing schema is an error, not a registration.
    Registered,
    /// The latest version registered under the subject (`use.latest.version=true`): values
    /// are written with that schema.
    UseLatest,
    /// The schema of this id (`use.schema.id`).
    Id(u32),
}

/// The configuration of a [`SchemaRegistry`](super::SchemaRegistry).
#[derive(Debug, Clone)]
pub struct RegistryConfig {
    pub(crate) url: String,
    pub(crate) auth: Option<Auth>,
    pub(crate) strategy: SubjectNameStrategy,
    pub(crate) choice: SchemaChoice,
    pub(crate) retry_for: Duration,
    pub(crate) request_timeout: Duration,
    pub(crate) json_validation: bool,
}

/// How long a registry that cannot be reached is retried before a record fails: 60 s, well
/// below the processing threads' `max_poll_interval` (300 s).
pub const DEFAULT_RETRY_FOR: Duration = Duration::from_secs(60);

impl RegistryConfig {
    /// A registry whose Confluent-compatible API is at `url`, for example
    /// `http://127.0.0.1:8480/apis/ccompat/v7` (Apicurio) or `http://127.0.0.1:8081`
    /// (Confluent). Subjects are named after the topic (`<topic>-value`), schemas are
    /// registered when missing, an unreachable registry is retried for 60 s.
    pub fn new(url: impl Into<String>) -> Self {
        let mut url = url.into();
        while url.ends_with('/') {
            url.pop();
        }
        RegistryConfig {
            url,
            auth: None,
            strategy: SubjectNameStrategy::Topic,
            choice: SchemaChoice::AutoRegister,
            retry_for: DEFAULT_RETRY_FOR,
            request_timeout: Duration::from_secs(10),
            json_validation: true,
        }
    }

    /// Sends HTTP basic credentials.
    pub fn basic_auth(mut self, user: impl Into<String>, password: impl Into<String>) -> Self {
        self.auth = Some(Auth::Basic {
            user: user.into(),
            password: password.into(),
        });
        self
    }

    /// Sends a bearer token.
    pub fn bearer_auth(mut self, token: impl Into<String>) -> Self {
        self.auth = Some(Auth::Bearer(token.into()));
        self
    }

    /// How subjects are named (topic by default).
    pub fn subject_name_strategy(mut self, strategy: SubjectNameStrategy) -> Self {
        self.strategy = strategy;
        self
    }

    /// Which schema serializers write with (auto-register by default).
    pub fn schema_choice(mut self, choice: SchemaChoice) -> Self {
        self.choice = choice;
        self
    }

    /// How long an unreachable registry (or one answering 5xx) is retried, with a log line per
    /// attempt, before the record fails with a [`SerdeError`](crate::serdes::SerdeError).
    pub fn retry_for(mut self, duration: Duration) -> Self {
        self.retry_for = duration;
        self
    }

    /// The time limit of one HTTP request (10 s by default).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Whether the JSON Schema serdes validate every value against its schema, on write and on
    /// read (on by default; Confluent's `json.fail.invalid.schema`, which defaults to `false`
    /// there). Off, they write and read JSON without building a `serde_json::Value` tree.
    pub fn json_schema_validation(mut self, on: bool) -> Self {
        self.json_validation = on;
        self
    }

    /// The base URL of the Confluent-compatible API.
    pub fn url(&self) -> &str {
        &self.url
    }
}
