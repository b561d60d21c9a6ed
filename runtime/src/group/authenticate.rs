//! SASL authentication of a broker connection: SaslHandshake v1, then SaslAuthenticate
//! (v2 when the broker serves it), and re-authentication before the session ends (KIP-368).

use std::time::{Duration, Instant};

use bytes::Bytes;
use kafka_protocol::messages::{SaslAuthenticateRequest, SaslHandshakeRequest};
use kafka_protocol::protocol::StrBytes;

use super::connection::{BrokerConnection, error_name};
use super::error::GroupError;
use crate::protocol::responses::{SaslAuthenticateResponse, SaslHandshakeResponse};
use crate::security::config::SaslMechanism;
use crate::security::oauth::now_ms;
use crate::security::sasl::{self, SaslStep};

/// Api key of SaslHandshake.
const SASL_HANDSHAKE: i16 = 17;
/// Api key of SaslAuthenticate.
const SASL_AUTHENTICATE: i16 = 36;

impl BrokerConnection {
    /// Authenticates with the configured SASL mechanism; does nothing without SASL.
    pub(super) async fn authenticate(&mut self) -> Result<(), GroupError> {
        let Some(settings) = self.security.sasl.clone() else {
            return Ok(());
        };
        let mechanism = settings.mechanism;
        let broker = self.addr().to_owned();
        let failed = |code: String, message: String| GroupError::AuthenticationFailed {
            broker: broker.clone(),
            mechanism: mechanism.name(),
            code,
            message,
        };
        let Some(auth_version) = self.pick_version(SASL_AUTHENTICATE, (0, 2)) else {
            return Err(failed(
                "UNSUPPORTED_VERSION".into(),
                "the broker serves no SaslAuthenticate version (Kafka 1.0 or newer needed)".into(),
            ));
        };
        let handshake = SaslHandshakeRequest::default()
            .with_mechanism(StrBytes::from_static_str(mechanism.name()));
        let response: SaslHandshakeResponse = self
            .send_now(SASL_HANDSHAKE, 1, &handshake, "SaslHandshake")
            .await?;
        if response.error_code != 0 {
            let offered = &response.mechanisms;
            return Err(failed(
                error_name(response.error_code),
                format!(
                    "the listener offers {}; set `sasl.mechanism` to one of them",
                    offered.join(", ")
                ),
            ));
        }
        // The provider runs on the blocking pool (it may block; this task may be the one that
        // heartbeats), retried with backoff; after a failed call the current token goes on
        // while valid, and is re-authenticated with again after the backoff.
        let refreshed = match mechanism {
            SaslMechanism::OAuthBearer => Some(settings.oauth.refresh().await.map_err(|why| {
                failed(
                    "TOKEN_PROVIDER".into(),
                    format!("no OAUTHBEARER token: {why}"),
                )
            })?),
            _ => None,
        };
        let ask_again_in = refreshed.as_ref().and_then(|r| r.ask_again_in);
        let token = refreshed.map(|r| r.token);
        let (first, mut exchange) = sasl::start(&settings, token.as_ref())
            .map_err(|e| failed("CLIENT".into(), e.to_string()))?;
        let mut outgoing = first;
        let lifetime_ms = loop {
            let request = SaslAuthenticateRequest::default().with_auth_bytes(Bytes::from(outgoing));
            let response: SaslAuthenticateResponse = self
                .send_now(
                    SASL_AUTHENTICATE,
                    auth_version,
                    &request,
                    "SaslAuthenticate",
                )
                .await?;
            if response.error_code != 0 {
                // SASL_AUTHENTICATION_FAILED (58), ILLEGAL_SASL_STATE (34), ...: permanent.
                return Err(failed(
                    error_name(response.error_code),
                    response.error_message.unwrap_or_default(),
                ));
            }
            let (step, next) = exchange
                .step(&response.auth_bytes)
                .map_err(|e| failed("SCRAM".into(), e.to_string()))?;
            match (step, next) {
                (SaslStep::Send(bytes), Some(next)) => {
                    outgoing = bytes;
                    exchange = next;
                }
                _ => break response.session_lifetime_ms,
            }
        };
        self.reauthenticate_at = reauthentication_deadline(lifetime_ms);
        if let Some(at) = self.reauthenticate_at {
            tracing::debug!(
                broker = self.addr(),
                mechanism = mechanism.name(),
                session_ms = lifetime_ms,
                reauthenticate_in_ms =
                    at.saturating_duration_since(Instant::now()).as_millis() as u64,
                "authenticated"
            );
        }
        // The broker bounds the session by the token's expiry (KIP-368); a broker without
        // `connections.max.reauth.ms` ends no session, but a fresh token is still taken
        // before this one expires.
        if let Some(t) = token {
            let left_ms = u64::try_from(t.expires_at_ms - now_ms()).unwrap_or(0);
            let by_token = Instant::now() + Duration::from_millis(left_ms.saturating_mul(85) / 100);
            let by_token = match ask_again_in {
                // The provider failed: authenticate again (asking it again) after the backoff.
                Some(delay) => by_token.min(Instant::now() + delay),
                None => by_token,
            };
            self.reauthenticate_at = Some(
                self.reauthenticate_at
                    .map_or(by_token, |at| at.min(by_token)),
            );
        }
        Ok(())
    }

    /// Re-authenticates on this connection when the SASL session is near its end.
    pub(super) async fn reauthenticate_if_due(&mut self) -> Result<(), GroupError> {
        match self.reauthenticate_at {
            Some(at) if Instant::now() >= at => {
                tracing::debug!(
                    broker = self.addr(),
                    "re-authenticating before the SASL session ends"
                );
                self.authenticate().await
            }
            _ => Ok(()),
        }
    }
}

/// Checks TLS and SASL credentials against the first bootstrap server that answers, once, before
/// any client starts: a wrong password or an untrusted certificate then fails the application
/// in milliseconds (librdkafka's transactional producer would wait out its 60 s
/// `init_transactions` instead). Unreachable brokers are not an error here: the clients wait
/// for them as usual. Does nothing without TLS or SASL.
pub(crate) async fn check_credentials(
    bootstrap_servers: &str,
    client_id: &str,
    security: &crate::security::ConnectionSecurity,
) -> Result<(), GroupError> {
    if security.tls.is_none() && security.sasl.is_none() {
        return Ok(());
    }
    for addr in bootstrap_servers
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match BrokerConnection::connect(addr, client_id, Duration::from_secs(10), security).await {
            Ok(_) => return Ok(()),
            Err(e @ (GroupError::AuthenticationFailed { .. } | GroupError::Tls { .. })) => {
                return Err(e);
            }
            Err(e) => tracing::debug!(broker = addr, "credentials not checked here: {e}"),
        }
    }
    Ok(())
}

/// When to re-authenticate a session the broker ends after `lifetime_ms` (0: never): at 85%
/// of it, as Kafka's Java client does at the earliest, leaving the rest for a slow exchange.
fn reauthentication_deadline(lifetime_ms: i64) -> Option<Instant> {
    (lifetime_ms > 0).then(|| {
        let ms = u64::try_from(lifetime_ms).unwrap_or(u64::MAX);
        Instant::now() + Duration::from_millis(ms.saturating_mul(85) / 100)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_renewed_at_85_percent_and_unlimited_ones_never() {
        assert_eq!(reauthentication_deadline(0), None);
        let at = reauthentication_deadline(10_000).unwrap();
        let left = at.saturating_duration_since(Instant::now());
        assert!(left <= Duration::from_millis(8_500) && left > Duration::from_millis(8_000));
    }
}
