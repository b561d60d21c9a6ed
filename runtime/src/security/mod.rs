//! Security of every connection: TLS and SASL, configured once with librdkafka's property names.
//!
//! The same properties set with [`Builder::property`](crate::streams::Builder::property)
//! configure the librdkafka clients (which read them directly) and the member's own connection
//! to the group coordinator (which reads them through [`SecurityConfig`]). A property that
//! connection cannot honour is refused when the application is built, naming the property.
//!
//! TLS and SCRAM's primitives come from OpenSSL (the `openssl` and `tokio-openssl` crates):
//! librdkafka already links it, so both kinds of connection share one TLS stack that reads the
//! same CA bundles, certificates and encrypted PEM keys (`ssl.key.password`, PKCS#8 or
//! traditional). The SASL exchanges (PLAIN, SCRAM-SHA-256/512 per RFC 5802/7677, OAUTHBEARER per
//! RFC 7628) are written here and checked against the RFCs' test vectors.

pub(crate) mod config;
mod error;
pub(crate) mod oauth;
pub(crate) mod sasl;
pub(crate) mod scram;
mod secret;
pub(crate) mod tls;

pub use config::SecurityConfig;
pub use config::{SaslMechanism, SecurityProtocol};
pub use error::SecurityError;
pub use oauth::{
    OAuthError, OAuthToken, OAuthTokenProvider, TOKEN_PROVIDER_GIVE_UP, TOKEN_PROVIDER_TIMEOUT,
};
pub use secret::Secret;

use config::SaslSettings;
use tls::TlsConnector;

/// What a connection to a broker needs to secure itself, prepared once per application: the
/// TLS configuration (files read, key decrypted) and the SASL credentials. Made from a
/// [`SecurityConfig`]; [`group::BrokerConnection::connect`](crate::group::BrokerConnection::connect)
/// takes it.
#[derive(Debug, Clone, Default)]
pub struct ConnectionSecurity {
    /// TLS, for SSL and SASL_SSL.
    pub tls: Option<TlsConnector>,
    /// SASL, for SASL_PLAINTEXT and SASL_SSL.
    pub sasl: Option<SaslSettings>,
}

impl ConnectionSecurity {
    /// Prepares `config` (loads its TLS files; fails naming the property that cannot be used).
    pub fn new(config: &SecurityConfig) -> Result<Self, SecurityError> {
        Ok(ConnectionSecurity {
            tls: if config.protocol.uses_tls() {
                Some(TlsConnector::new(&config.tls)?)
            } else {
                None
            },
            sasl: config.sasl.clone(),
        })
    }
}
