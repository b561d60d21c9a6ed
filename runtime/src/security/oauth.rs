//! OAUTHBEARER tokens: a provider set on the builder, or librdkafka's unsecured JWT.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::error::SecurityError;
use super::secret::Secret;

/// An OAUTHBEARER token: its value, the principal it names, and when it expires.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthToken {
    /// The token (for example a JWT). Never printed.
    pub value: Secret,
    /// The principal the token authenticates (librdkafka needs it to log and check it).
    pub principal: String,
    /// When the token expires, in milliseconds since the Unix epoch. Clients ask the provider
    /// for a new one before then.
    pub expires_at_ms: i64,
    /// SASL extensions sent with the token (`key=value`), usually none.
    pub extensions: Vec<(String, String)>,
}

impl OAuthToken {
    /// A token valid for `lifetime` from now.
    pub fn new(value: impl Into<String>, principal: impl Into<String>, lifetime: Duration) -> Self {
        OAuthToken {
            value: Secret::new(value),
            principal: principal.into(),
            expires_at_ms: now_ms()
                .saturating_add(i64::try_from(lifetime.as_millis()).unwrap_or(i64::MAX)),
            extensions: Vec::new(),
        }
    }
}

impl fmt::Debug for OAuthToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthToken")
            .field("value", &self.value)
            .field("principal", &self.principal)
            .field("expires_at_ms", &self.expires_at_ms)
            .field("extensions", &self.extensions.len())
            .finish()
    }
}

/// The signature of a token provider.
type ProvideToken = dyn Fn() -> Result<OAuthToken, String> + Send + Sync;

/// Makes OAUTHBEARER tokens for every client of an application: each librdkafka client asks it
/// through librdkafka's token refresh callback (at 80% of a token's lifetime), and the
/// coordinator connection asks it before each authentication and re-authenticates before the
/// broker's session (bounded by the token's expiry) ends. The error string says why no token
/// could be made; it must not contain secrets.
#[derive(Clone)]
pub struct OAuthTokenProvider(Arc<ProvideToken>);

impl OAuthTokenProvider {
    /// Wraps a function that fetches or makes a token.
    pub fn new(provide: impl Fn() -> Result<OAuthToken, String> + Send + Sync + 'static) -> Self {
        OAuthTokenProvider(Arc::new(provide))
    }

    /// A new token.
    pub fn token(&self) -> Result<OAuthToken, String> {
        (self.0)()
    }
}

impl PartialEq for OAuthTokenProvider {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for OAuthTokenProvider {}

impl fmt::Debug for OAuthTokenProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("OAuthTokenProvider(..)")
    }
}

/// Where the coordinator connection gets OAUTHBEARER tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthSource {
    /// Not OAUTHBEARER.
    None,
    /// The provider set on the builder.
    Provider(OAuthTokenProvider),
    /// An unsigned JWT made from `sasl.oauthbearer.config`, as librdkafka makes it with
    /// `enable.sasl.oauthbearer.unsecure.jwt=true` (for brokers with the unsecured validator:
    /// development and tests only).
    Unsecured(UnsecuredJwt),
}

impl OAuthSource {
    pub(super) fn from_properties<'a>(
        get: &impl Fn(&str) -> Option<&'a str>,
        provider: Option<&OAuthTokenProvider>,
    ) -> Result<Self, SecurityError> {
        let unsecured = match get("enable.sasl.oauthbearer.unsecure.jwt") {
            None | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(SecurityError::InvalidValue {
                    property: "enable.sasl.oauthbearer.unsecure.jwt".into(),
                    value: other.into(),
                    expected: "true or false",
                });
            }
        };
        match (provider, unsecured) {
            (Some(_), true) => Err(SecurityError::InvalidValue {
                property: "enable.sasl.oauthbearer.unsecure.jwt".into(),
                value: "true".into(),
                expected: "false (or unset) when a token provider is set on the builder: \
                           librdkafka cannot use both",
            }),
            (Some(p), false) => Ok(OAuthSource::Provider(p.clone())),
            (None, true) => Ok(OAuthSource::Unsecured(UnsecuredJwt::parse(
                get("sasl.oauthbearer.config").unwrap_or_default(),
            )?)),
            (None, false) => Err(SecurityError::Missing {
                needed: "enable.sasl.oauthbearer.unsecure.jwt",
                because: "sasl.mechanism=OAUTHBEARER without a token provider (or set one with \
                          `oauth_token_provider(..)` on the builder)"
                    .into(),
            }),
        }
    }

    /// A token for the next authentication.
    pub fn token(&self) -> Result<OAuthToken, String> {
        match self {
            OAuthSource::None => Err("OAUTHBEARER is not configured".into()),
            OAuthSource::Provider(p) => p.token(),
            OAuthSource::Unsecured(jwt) => Ok(jwt.token()),
        }
    }
}

/// The settings of librdkafka's unsecured JWT (`sasl.oauthbearer.config`):
/// `principal=<name> [principalClaimName=sub] [scope=a,b] [scopeClaimName=scope]
/// [lifeSeconds=3600] [extension_<key>=<value>]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsecuredJwt {
    principal: String,
    principal_claim: String,
    scope: Vec<String>,
    scope_claim: String,
    lifetime: Duration,
    extensions: Vec<(String, String)>,
}

impl UnsecuredJwt {
    fn parse(config: &str) -> Result<Self, SecurityError> {
        let mut jwt = UnsecuredJwt {
            principal: String::new(),
            principal_claim: "sub".into(),
            scope: Vec::new(),
            scope_claim: "scope".into(),
            lifetime: Duration::from_secs(3600),
            extensions: Vec::new(),
        };
        let invalid = |value: &str| SecurityError::InvalidValue {
            property: "sasl.oauthbearer.config".into(),
            value: value.into(),
            expected: "space-separated `principal=..`, `principalClaimName=..`, `scope=..`, \
                       `scopeClaimName=..`, `lifeSeconds=..` and `extension_<key>=..` entries",
        };
        for entry in config.split_whitespace() {
            let (k, v) = entry.split_once('=').ok_or_else(|| invalid(entry))?;
            match k {
                "principal" => jwt.principal = v.into(),
                "principalClaimName" => jwt.principal_claim = v.into(),
                "scope" => jwt.scope = v.split(',').map(str::to_owned).collect(),
                "scopeClaimName" => jwt.scope_claim = v.into(),
                "lifeSeconds" => {
                    jwt.lifetime = Duration::from_secs(v.parse().map_err(|_| invalid(entry))?)
                }
                _ => match k.strip_prefix("extension_") {
                    Some(ext) => jwt.extensions.push((ext.into(), v.into())),
                    None => return Err(invalid(k)),
                },
            }
        }
        if jwt.principal.is_empty() {
            return Err(SecurityError::Missing {
                needed: "sasl.oauthbearer.config",
                because: "enable.sasl.oauthbearer.unsecure.jwt=true (it must name the \
                          principal: `principal=<name>`)"
                    .into(),
            });
        }
        Ok(jwt)
    }

    /// A fresh unsigned token (`alg` none), valid for the configured lifetime.
    pub fn token(&self) -> OAuthToken {
        let iat = now_ms() / 1000;
        let exp = iat + i64::try_from(self.lifetime.as_secs()).unwrap_or(i64::MAX / 2);
        let mut claims = serde_json::Map::new();
        claims.insert(self.principal_claim.clone(), self.principal.clone().into());
        claims.insert("iat".into(), iat.into());
        claims.insert("exp".into(), exp.into());
        if !self.scope.is_empty() {
            claims.insert(self.scope_claim.clone(), self.scope.clone().into());
        }
        let payload = serde_json::Value::Object(claims).to_string();
        let value = format!(
            "{}.{}.",
            URL_SAFE_NO_PAD.encode(br#"{"alg":"none"}"#),
            URL_SAFE_NO_PAD.encode(payload.as_bytes())
        );
        OAuthToken {
            value: Secret::new(value),
            principal: self.principal.clone(),
            expires_at_ms: exp * 1000,
            extensions: self.extensions.clone(),
        }
    }
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}
