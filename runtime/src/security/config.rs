//! Reading `security.protocol`, `ssl.*` and `sasl.*` properties for the coordinator connection.

use super::error::SecurityError;
use super::oauth::OAuthSource;
use super::secret::Secret;

/// `security.protocol`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecurityProtocol {
    /// No TLS, no SASL (the default).
    #[default]
    Plaintext,
    /// TLS.
    Ssl,
    /// SASL without TLS.
    SaslPlaintext,
    /// SASL over TLS.
    SaslSsl,
}

impl SecurityProtocol {
    /// True when connections use TLS.
    pub fn uses_tls(self) -> bool {
        matches!(self, SecurityProtocol::Ssl | SecurityProtocol::SaslSsl)
    }

    /// True when connections authenticate with SASL.
    pub fn uses_sasl(self) -> bool {
        matches!(
            self,
            SecurityProtocol::SaslPlaintext | SecurityProtocol::SaslSsl
        )
    }
}

/// `sasl.mechanism` (or `sasl.mechanisms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaslMechanism {
    /// `PLAIN`: user name and password, in the clear (use it over TLS only).
    Plain,
    /// `SCRAM-SHA-256` (RFC 7677).
    ScramSha256,
    /// `SCRAM-SHA-512`.
    ScramSha512,
    /// `OAUTHBEARER` (RFC 7628, KIP-255).
    OAuthBearer,
}

impl SaslMechanism {
    /// The mechanism's name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            SaslMechanism::Plain => "PLAIN",
            SaslMechanism::ScramSha256 => "SCRAM-SHA-256",
            SaslMechanism::ScramSha512 => "SCRAM-SHA-512",
            SaslMechanism::OAuthBearer => "OAUTHBEARER",
        }
    }
}

/// Where a PEM document comes from: a file (`*.location`) or the property's value (`*.pem`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PemSource {
    /// A file path.
    File(String),
    /// The PEM text itself (redacted in `Debug`, since it may be a private key).
    Inline(Secret),
}

/// The TLS settings of the coordinator connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsSettings {
    /// CA certificates (`ssl.ca.location` file or directory, or `ssl.ca.pem`); `None` uses the
    /// system's defaults, as librdkafka does.
    pub ca: Option<PemSource>,
    /// The client certificate (`ssl.certificate.location` / `ssl.certificate.pem`).
    pub certificate: Option<PemSource>,
    /// The client key (`ssl.key.location` / `ssl.key.pem`).
    pub key: Option<PemSource>,
    /// The password of an encrypted client key (`ssl.key.password`).
    pub key_password: Option<Secret>,
    /// `ssl.endpoint.identification.algorithm=https` (the default): the broker's certificate
    /// must name the host connected to.
    pub verify_hostname: bool,
    /// `enable.ssl.certificate.verification` (true by default).
    pub verify_certificate: bool,
    /// `ssl.cipher.suites` (OpenSSL cipher list).
    pub cipher_suites: Option<String>,
    /// `ssl.curves.list`.
    pub curves: Option<String>,
    /// `ssl.sigalgs.list`.
    pub sigalgs: Option<String>,
}

impl Default for TlsSettings {
    /// librdkafka's defaults: the system's CAs, certificate and host name verification on.
    fn default() -> Self {
        TlsSettings {
            ca: None,
            certificate: None,
            key: None,
            key_password: None,
            verify_hostname: true,
            verify_certificate: true,
            cipher_suites: None,
            curves: None,
            sigalgs: None,
        }
    }
}

/// The SASL settings of the coordinator connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslSettings {
    /// The mechanism.
    pub mechanism: SaslMechanism,
    /// `sasl.username` (PLAIN, SCRAM).
    pub username: String,
    /// `sasl.password` (PLAIN, SCRAM).
    pub password: Secret,
    /// Where OAUTHBEARER tokens come from.
    pub oauth: OAuthSource,
}

/// What the coordinator connection needs from the user's properties.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SecurityConfig {
    /// `security.protocol`.
    pub protocol: SecurityProtocol,
    /// TLS settings (used when the protocol is SSL or SASL_SSL).
    pub tls: TlsSettings,
    /// SASL settings (present when the protocol is SASL_PLAINTEXT or SASL_SSL).
    pub sasl: Option<SaslSettings>,
}

/// Properties whose values are secrets: they never appear in `Debug` output or logs.
#[cfg(feature = "kafka")]
pub(crate) fn is_secret_property(key: &str) -> bool {
    key.contains("password")
        || key.contains("secret")
        || key.contains("token")
        || key == "ssl.key.pem"
        || key == "sasl.oauthbearer.config"
}

/// Security properties the coordinator connection honours.
const HONOURED: &[&str] = &[
    "security.protocol",
    "ssl.ca.location",
    "ssl.ca.pem",
    "ssl.certificate.location",
    "ssl.certificate.pem",
    "ssl.key.location",
    "ssl.key.pem",
    "ssl.key.password",
    "ssl.endpoint.identification.algorithm",
    "enable.ssl.certificate.verification",
    "ssl.cipher.suites",
    "ssl.curves.list",
    "ssl.sigalgs.list",
    "sasl.mechanism",
    "sasl.mechanisms",
    "sasl.username",
    "sasl.password",
    "sasl.oauthbearer.method",
    "sasl.oauthbearer.config",
    "enable.sasl.oauthbearer.unsecure.jwt",
];

/// Security properties that concern librdkafka only and change nothing a connection does.
const LIBRDKAFKA_ONLY: &[&str] = &["ssl.ca.certificate.stores"];

/// True for a property that belongs to TLS or SASL (and so must be honoured or refused).
fn is_security_property(key: &str) -> bool {
    key.starts_with("ssl.")
        || key.starts_with("ssl_")
        || key.starts_with("sasl.")
        || key.starts_with("enable.ssl.")
        || key.starts_with("enable.sasl.")
        || key.starts_with("https.")
}

impl SecurityConfig {
    /// Reads the security properties among `properties` (librdkafka names; later values win).
    /// `oauth_provider` is the token provider set on the builder, if any.
    pub fn from_properties<'a>(
        properties: impl IntoIterator<Item = (&'a str, &'a str)>,
        oauth_provider: Option<&super::OAuthTokenProvider>,
    ) -> Result<Self, SecurityError> {
        let mut props: Vec<(&str, &str)> = Vec::new();
        for (k, v) in properties {
            if k == "security.protocol" || is_security_property(k) {
                props.retain(|(pk, _)| *pk != k);
                props.push((k, v));
            }
        }
        let get = |key: &str| props.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
        for (k, _) in &props {
            if !HONOURED.contains(k) && !LIBRDKAFKA_ONLY.contains(k) {
                return Err(unsupported(k));
            }
        }
        let protocol = match get("security.protocol")
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("plaintext") => SecurityProtocol::Plaintext,
            Some("ssl") => SecurityProtocol::Ssl,
            Some("sasl_plaintext") => SecurityProtocol::SaslPlaintext,
            Some("sasl_ssl") => SecurityProtocol::SaslSsl,
            Some(_) => {
                return Err(SecurityError::InvalidValue {
                    property: "security.protocol".into(),
                    value: get("security.protocol").unwrap_or_default().into(),
                    expected: "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL",
                });
            }
        };
        let tls = read_tls(&get)?;
        let sasl = if protocol.uses_sasl() {
            Some(read_sasl(&get, oauth_provider)?)
        } else {
            None
        };
        Ok(SecurityConfig {
            protocol,
            tls,
            sasl,
        })
    }
}

fn unsupported(key: &str) -> SecurityError {
    let why = match key {
        "ssl.keystore.location" | "ssl.keystore.password" => {
            "PKCS#12 keystores are not read; convert it to PEM (`openssl pkcs12 -in store.p12 \
             -out client.pem`) and set `ssl.certificate.location`, `ssl.key.location` and \
             `ssl.key.password`"
        }
        "ssl.engine.location" | "ssl.engine.id" | "ssl.providers" => {
            "OpenSSL engines and providers are not loaded; use PEM files"
        }
        "ssl.certificate.verify_cb" => "no certificate verification callback can be set",
        k if k.starts_with("sasl.kerberos.") => {
            "GSSAPI (Kerberos) is not supported; use SCRAM-SHA-512, PLAIN over TLS or OAUTHBEARER"
        }
        k if k.starts_with("sasl.oauthbearer.") => {
            "OIDC token retrieval is not built in; set a token provider with \
             `oauth_token_provider(..)` on the builder"
        }
        _ => "the coordinator connection cannot honour it",
    };
    SecurityError::Unsupported {
        property: key.to_owned(),
        why: why.to_owned(),
    }
}

fn pem_source<'a>(
    get: &impl Fn(&str) -> Option<&'a str>,
    location: &'static str,
    pem: &'static str,
) -> Result<Option<PemSource>, SecurityError> {
    match (get(location), get(pem)) {
        (Some(_), Some(_)) => Err(SecurityError::InvalidValue {
            property: pem.into(),
            value: "(set together with `".to_owned() + location + "`)",
            expected: "only one of the two",
        }),
        (Some(path), None) => Ok(Some(PemSource::File(path.to_owned()))),
        (None, Some(text)) => Ok(Some(PemSource::Inline(Secret::new(text)))),
        (None, None) => Ok(None),
    }
}

fn read_bool<'a>(
    get: &impl Fn(&str) -> Option<&'a str>,
    key: &'static str,
    default: bool,
) -> Result<bool, SecurityError> {
    match get(key).map(str::to_ascii_lowercase).as_deref() {
        None => Ok(default),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => Err(SecurityError::InvalidValue {
            property: key.into(),
            value: other.into(),
            expected: "true or false",
        }),
    }
}

fn read_tls<'a>(get: &impl Fn(&str) -> Option<&'a str>) -> Result<TlsSettings, SecurityError> {
    let ca = match get("ssl.ca.location") {
        // librdkafka's `probe` looks for the system's CA bundle: so do OpenSSL's defaults.
        Some("probe") => None,
        _ => pem_source(get, "ssl.ca.location", "ssl.ca.pem")?,
    };
    let verify_hostname = match get("ssl.endpoint.identification.algorithm")
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        None | Some("https") => true,
        Some("none") => false,
        Some(other) => {
            return Err(SecurityError::InvalidValue {
                property: "ssl.endpoint.identification.algorithm".into(),
                value: other.into(),
                expected: "https or none",
            });
        }
    };
    let certificate = pem_source(get, "ssl.certificate.location", "ssl.certificate.pem")?;
    let key = pem_source(get, "ssl.key.location", "ssl.key.pem")?;
    if certificate.is_some() != key.is_some() {
        return Err(SecurityError::Missing {
            needed: if key.is_some() {
                "ssl.certificate.location"
            } else {
                "ssl.key.location"
            },
            because: "a client certificate (a certificate needs its key and a key its certificate)"
                .into(),
        });
    }
    Ok(TlsSettings {
        ca,
        certificate,
        key,
        key_password: get("ssl.key.password").map(Secret::new),
        verify_hostname,
        verify_certificate: read_bool(get, "enable.ssl.certificate.verification", true)?,
        cipher_suites: get("ssl.cipher.suites").map(str::to_owned),
        curves: get("ssl.curves.list").map(str::to_owned),
        sigalgs: get("ssl.sigalgs.list").map(str::to_owned),
    })
}

fn read_sasl<'a>(
    get: &impl Fn(&str) -> Option<&'a str>,
    oauth_provider: Option<&super::OAuthTokenProvider>,
) -> Result<SaslSettings, SecurityError> {
    let raw = get("sasl.mechanism")
        .or_else(|| get("sasl.mechanisms"))
        .unwrap_or("GSSAPI");
    let mechanism = match raw.trim().to_ascii_uppercase().as_str() {
        "PLAIN" => SaslMechanism::Plain,
        "SCRAM-SHA-256" => SaslMechanism::ScramSha256,
        "SCRAM-SHA-512" => SaslMechanism::ScramSha512,
        "OAUTHBEARER" => SaslMechanism::OAuthBearer,
        "GSSAPI" => {
            return Err(SecurityError::Unsupported {
                property: "sasl.mechanism".into(),
                why: "GSSAPI (Kerberos, librdkafka's default mechanism) is not supported; set \
                      `sasl.mechanism` to SCRAM-SHA-512, SCRAM-SHA-256, PLAIN or OAUTHBEARER"
                    .into(),
            });
        }
        _ => {
            return Err(SecurityError::InvalidValue {
                property: "sasl.mechanism".into(),
                value: raw.into(),
                expected: "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER",
            });
        }
    };
    let username = get("sasl.username").unwrap_or_default().to_owned();
    let password = Secret::new(get("sasl.password").unwrap_or_default());
    let oauth = if mechanism == SaslMechanism::OAuthBearer {
        if let Some(method) = get("sasl.oauthbearer.method")
            && !method.eq_ignore_ascii_case("default")
        {
            return Err(unsupported("sasl.oauthbearer.method"));
        }
        OAuthSource::from_properties(get, oauth_provider)?
    } else {
        if username.is_empty() {
            return Err(SecurityError::Missing {
                needed: "sasl.username",
                because: format!("sasl.mechanism={}", mechanism.name()),
            });
        }
        if password.expose().is_empty() {
            return Err(SecurityError::Missing {
                needed: "sasl.password",
                because: format!("sasl.mechanism={}", mechanism.name()),
            });
        }
        OAuthSource::None
    };
    Ok(SaslSettings {
        mechanism,
        username,
        password,
        oauth,
    })
}

// The tests go through `ClientSettings`, which only the `kafka` feature has.
#[cfg(all(test, feature = "kafka"))]
#[path = "config_tests.rs"]
mod tests;
