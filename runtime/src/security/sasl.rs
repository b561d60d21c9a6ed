//! The messages of each SASL mechanism, without I/O: the coordinator connection sends them in
//! SaslAuthenticate requests.

use openssl::hash::MessageDigest;

use super::config::{SaslMechanism, SaslSettings};
use super::oauth::OAuthToken;
use super::scram::{ScramClient, ScramError};

/// Where an exchange stands after the client's message.
#[derive(Debug)]
pub(crate) enum SaslExchange {
    /// PLAIN and OAUTHBEARER: one message, then done.
    Single,
    /// SCRAM: waiting for the server-first-message.
    ScramFirst(ScramClient),
    /// SCRAM: waiting for the server-final-message.
    ScramFinal(ScramClient),
}

/// What the client sends next, or that it is done.
#[derive(Debug)]
pub(crate) enum SaslStep {
    /// Send these bytes.
    Send(Vec<u8>),
    /// Authenticated.
    Done,
}

/// The first message of `settings`' mechanism. `token` is the OAUTHBEARER token (ignored by
/// the other mechanisms).
pub(crate) fn start(
    settings: &SaslSettings,
    token: Option<&OAuthToken>,
) -> Result<(Vec<u8>, SaslExchange), ScramError> {
    match settings.mechanism {
        SaslMechanism::Plain => Ok((
            plain_message(&settings.username, settings.password.expose()),
            SaslExchange::Single,
        )),
        SaslMechanism::ScramSha256 | SaslMechanism::ScramSha512 => {
            let digest = if settings.mechanism == SaslMechanism::ScramSha256 {
                MessageDigest::sha256()
            } else {
                MessageDigest::sha512()
            };
            let client = ScramClient::new(digest, &settings.username, settings.password.expose())?;
            Ok((
                client.client_first().into_bytes(),
                SaslExchange::ScramFirst(client),
            ))
        }
        SaslMechanism::OAuthBearer => {
            let token = token.ok_or(ScramError::Malformed("no OAUTHBEARER token"))?;
            Ok((oauth_bearer_message(token), SaslExchange::Single))
        }
    }
}

impl SaslExchange {
    /// Answers the server's bytes.
    pub(crate) fn step(
        self,
        server: &[u8],
    ) -> Result<(SaslStep, Option<SaslExchange>), ScramError> {
        match self {
            SaslExchange::Single => Ok((SaslStep::Done, None)),
            SaslExchange::ScramFirst(mut client) => {
                let text = std::str::from_utf8(server)
                    .map_err(|_| ScramError::Malformed("server-first is not UTF-8"))?;
                let reply = client.client_final(text)?;
                Ok((
                    SaslStep::Send(reply.into_bytes()),
                    Some(SaslExchange::ScramFinal(client)),
                ))
            }
            SaslExchange::ScramFinal(client) => {
                let text = std::str::from_utf8(server)
                    .map_err(|_| ScramError::Malformed("server-final is not UTF-8"))?;
                client.verify_server_final(text)?;
                Ok((SaslStep::Done, None))
            }
        }
    }
}

/// PLAIN (RFC 4616): empty authzid, user name, password.
pub(crate) fn plain_message(username: &str, password: &str) -> Vec<u8> {
    let mut m = Vec::with_capacity(username.len() + password.len() + 2);
    m.push(0);
    m.extend_from_slice(username.as_bytes());
    m.push(0);
    m.extend_from_slice(password.as_bytes());
    m
}

/// OAUTHBEARER's initial client response (RFC 7628 section 3.1), as Kafka's
/// `OAuthBearerClientInitialResponse` writes it: `n,,\x01auth=Bearer <token>[\x01k=v]*\x01\x01`.
pub(crate) fn oauth_bearer_message(token: &OAuthToken) -> Vec<u8> {
    let mut m = format!("n,,\x01auth=Bearer {}", token.value.expose());
    for (k, v) in &token.extensions {
        m.push('\x01');
        m.push_str(k);
        m.push('=');
        m.push_str(v);
    }
    m.push_str("\x01\x01");
    m.into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::Secret;

    #[test]
    fn plain_and_oauthbearer_messages_have_the_rfc_shape() {
        assert_eq!(plain_message("alice", "pw"), b"\0alice\0pw");
        let mut token = OAuthToken::new("t.o.k", "alice", std::time::Duration::from_secs(60));
        assert_eq!(
            oauth_bearer_message(&token),
            b"n,,\x01auth=Bearer t.o.k\x01\x01"
        );
        token.extensions.push(("traceId".into(), "42".into()));
        token.value = Secret::new("abc");
        assert_eq!(
            oauth_bearer_message(&token),
            b"n,,\x01auth=Bearer abc\x01traceId=42\x01\x01"
        );
    }
}
