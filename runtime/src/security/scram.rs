//! The client side of SCRAM (RFC 5802), with SHA-256 (RFC 7677) or SHA-512 as Kafka uses it.
//!
//! Kafka sends the user name as a `saslname` (`=` and `,` escaped) and the password's UTF-8
//! bytes without SASLprep, as its Java client does.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use openssl::hash::{MessageDigest, hash};
use openssl::memcmp;
use openssl::pkey::PKey;
use openssl::sign::Signer;

/// The fewest iterations Kafka's brokers accept (and so the fewest this client accepts).
pub(crate) const MIN_ITERATIONS: u32 = 4096;

/// Why a SCRAM exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ScramError {
    /// The server's message is not valid SCRAM.
    #[error("malformed SCRAM server message: {0}")]
    Malformed(&'static str),
    /// The server's nonce does not extend the client's.
    #[error("the server's SCRAM nonce does not start with the client's nonce")]
    NonceMismatch,
    /// Too few iterations: a downgrade or a misconfigured broker.
    #[error("the server asked for {0} SCRAM iterations, fewer than the minimum {MIN_ITERATIONS}")]
    TooFewIterations(u32),
    /// The server reported an error (`e=...`).
    #[error("the server refused the SCRAM credentials: {0}")]
    ServerError(String),
    /// The server's signature is wrong: it does not know the password.
    #[error(
        "the server's SCRAM signature is invalid: the broker could not prove it knows the credentials"
    )]
    BadServerSignature,
    /// OpenSSL failed.
    #[error("OpenSSL failed computing SCRAM keys: {0}")]
    Crypto(String),
}

fn crypto(e: openssl::error::ErrorStack) -> ScramError {
    ScramError::Crypto(e.to_string())
}

/// One SCRAM exchange, from the client's first message to the check of the server's signature.
pub(crate) struct ScramClient {
    digest: MessageDigest,
    password: Vec<u8>,
    client_first_bare: String,
    nonce: String,
    /// The server signature expected in the final message, once the client's final is sent.
    expected_server_signature: Option<Vec<u8>>,
}

impl std::fmt::Debug for ScramClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScramClient")
            .field("client_first_bare", &self.client_first_bare)
            .finish_non_exhaustive()
    }
}

impl ScramClient {
    /// A client for `username`/`password` with a random nonce.
    pub(crate) fn new(
        digest: MessageDigest,
        username: &str,
        password: &str,
    ) -> Result<Self, ScramError> {
        let mut raw = [0u8; 24];
        openssl::rand::rand_bytes(&mut raw).map_err(crypto)?;
        Ok(Self::with_nonce(
            digest,
            username,
            password,
            &STANDARD.encode(raw),
        ))
    }

    /// A client with a given nonce (for the RFCs' test vectors).
    pub(crate) fn with_nonce(
        digest: MessageDigest,
        username: &str,
        password: &str,
        nonce: &str,
    ) -> Self {
        let name = username.replace('=', "=3D").replace(',', "=2C");
        ScramClient {
            digest,
            password: password.as_bytes().to_vec(),
            client_first_bare: format!("n={name},r={nonce}"),
            nonce: nonce.to_owned(),
            expected_server_signature: None,
        }
    }

    /// The client-first-message (GS2 header `n,,`: no channel binding, no authzid).
    pub(crate) fn client_first(&self) -> String {
        format!("n,,{}", self.client_first_bare)
    }

    /// Answers the server-first-message with the client-final-message.
    pub(crate) fn client_final(&mut self, server_first: &str) -> Result<String, ScramError> {
        let mut nonce = None;
        let mut salt = None;
        let mut iterations = None;
        for attr in server_first.split(',') {
            match attr.split_once('=') {
                Some(("r", v)) => nonce = Some(v),
                Some(("s", v)) => salt = Some(v),
                Some(("i", v)) => iterations = Some(v),
                Some(("e", v)) => return Err(ScramError::ServerError(v.to_owned())),
                Some(("m", _)) => return Err(ScramError::Malformed("mandatory extension")),
                _ => {}
            }
        }
        let nonce = nonce.ok_or(ScramError::Malformed("no nonce (r=)"))?;
        let salt = STANDARD
            .decode(salt.ok_or(ScramError::Malformed("no salt (s=)"))?)
            .map_err(|_| ScramError::Malformed("salt is not base64"))?;
        let iterations: u32 = iterations
            .ok_or(ScramError::Malformed("no iteration count (i=)"))?
            .parse()
            .map_err(|_| ScramError::Malformed("iteration count is not a number"))?;
        if !nonce.starts_with(&self.nonce) || nonce.len() == self.nonce.len() {
            return Err(ScramError::NonceMismatch);
        }
        if iterations < MIN_ITERATIONS {
            return Err(ScramError::TooFewIterations(iterations));
        }
        let mut salted = vec![0u8; self.digest.size()];
        openssl::pkcs5::pbkdf2_hmac(
            &self.password,
            &salt,
            iterations as usize,
            self.digest,
            &mut salted,
        )
        .map_err(crypto)?;
        let client_key = self.hmac(&salted, b"Client Key")?;
        let stored_key = hash(self.digest, &client_key).map_err(crypto)?;
        // c=biws: base64 of the GS2 header "n,,".
        let without_proof = format!("c=biws,r={nonce}");
        let auth_message = format!("{},{server_first},{without_proof}", self.client_first_bare);
        let signature = self.hmac(&stored_key, auth_message.as_bytes())?;
        let proof: Vec<u8> = client_key
            .iter()
            .zip(&signature)
            .map(|(k, s)| k ^ s)
            .collect();
        let server_key = self.hmac(&salted, b"Server Key")?;
        self.expected_server_signature = Some(self.hmac(&server_key, auth_message.as_bytes())?);
        Ok(format!("{without_proof},p={}", STANDARD.encode(proof)))
    }

    /// Checks the server-final-message: the server proves it knows the credentials.
    pub(crate) fn verify_server_final(&self, server_final: &str) -> Result<(), ScramError> {
        if let Some(e) = server_final.strip_prefix("e=") {
            return Err(ScramError::ServerError(e.to_owned()));
        }
        let v = server_final
            .split(',')
            .find_map(|a| a.strip_prefix("v="))
            .ok_or(ScramError::Malformed("no verifier (v=)"))?;
        let got = STANDARD
            .decode(v)
            .map_err(|_| ScramError::Malformed("verifier is not base64"))?;
        let expected = self
            .expected_server_signature
            .as_ref()
            .ok_or(ScramError::Malformed("server-final before server-first"))?;
        if got.len() == expected.len() && memcmp::eq(&got, expected) {
            Ok(())
        } else {
            Err(ScramError::BadServerSignature)
        }
    }

    fn hmac(&self, key: &[u8], data: &[u8]) -> Result<Vec<u8>, ScramError> {
        let key = PKey::hmac(key).map_err(crypto)?;
        let mut signer = Signer::new(self.digest, &key).map_err(crypto)?;
        signer.update(data).map_err(crypto)?;
        signer.sign_to_vec().map_err(crypto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 7677 section 3: SCRAM-SHA-256, user `user`, password `pencil`.
    #[test]
    fn rfc7677_sha256_test_vector() {
        let mut c = ScramClient::with_nonce(
            MessageDigest::sha256(),
            "user",
            "pencil",
            "rOprNGfwEbeRWgbNEkqO",
        );
        assert_eq!(c.client_first(), "n,,n=user,r=rOprNGfwEbeRWgbNEkqO");
        let server_first = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
        assert_eq!(
            c.client_final(server_first).unwrap(),
            "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
        );
        c.verify_server_final("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")
            .unwrap();
        assert_eq!(
            c.verify_server_final("v=AAAATRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="),
            Err(ScramError::BadServerSignature)
        );
    }

    /// RFC 5802 section 5: the same exchange with SHA-1 (the shape Kafka's SHA-512 shares).
    #[test]
    fn rfc5802_sha1_test_vector() {
        let mut c = ScramClient::with_nonce(
            MessageDigest::sha1(),
            "user",
            "pencil",
            "fyko+d2lbbFgONRv9qkxdawL",
        );
        assert_eq!(c.client_first(), "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL");
        let server_first = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096";
        assert_eq!(
            c.client_final(server_first).unwrap(),
            "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="
        );
        c.verify_server_final("v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")
            .unwrap();
    }

    #[test]
    fn names_are_escaped_and_bad_servers_refused() {
        let mut c = ScramClient::with_nonce(MessageDigest::sha512(), "a=b,c", "pw", "abc");
        assert_eq!(c.client_first(), "n,,n=a=3Db=2Cc,r=abc");
        assert_eq!(
            c.client_final("r=xyz123,s=QSXCR+Q6sek8bf92,i=4096"),
            Err(ScramError::NonceMismatch)
        );
        assert_eq!(
            c.client_final("r=abc123,s=QSXCR+Q6sek8bf92,i=1"),
            Err(ScramError::TooFewIterations(1))
        );
        assert_eq!(
            c.client_final("e=invalid-proof"),
            Err(ScramError::ServerError("invalid-proof".into()))
        );
        let random = ScramClient::new(MessageDigest::sha512(), "u", "p").unwrap();
        assert!(random.client_first().starts_with("n,,n=u,r="));
    }
}
