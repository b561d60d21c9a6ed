//! The authentication hook: a bearer token, or a check of the application's own.

use std::sync::Arc;

use hyper::HeaderMap;
use hyper::header::HeaderValue;

/// A bearer token the server cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BearerTokenError {
    /// The token is empty.
    #[error("the bearer token is empty: give the query server a secret token")]
    Empty,
    /// The token has a character RFC 6750 does not allow in a bearer token.
    #[error(
        "the bearer token has a character a bearer token cannot carry (allowed: letters, digits, \
         `-._~+/`, trailing `=`): encode the secret in base64 or hex"
    )]
    Invalid,
}

type Check = dyn Fn(&HeaderMap) -> bool + Send + Sync;

/// How requests are authenticated, and what this server sends to its peers.
#[derive(Clone)]
pub(crate) struct Auth {
    check: Arc<Check>,
    /// The `Authorization` header of forwarded requests.
    pub forward: Option<HeaderValue>,
}

impl Auth {
    /// `Authorization: Bearer <token>`, compared in constant time.
    pub(crate) fn bearer(token: &str) -> Result<Auth, BearerTokenError> {
        if token.is_empty() {
            return Err(BearerTokenError::Empty);
        }
        let body = token.trim_end_matches('=');
        let valid = !body.is_empty()
            && body
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b));
        if !valid {
            return Err(BearerTokenError::Invalid);
        }
        let expected = format!("Bearer {token}");
        let mut header = HeaderValue::from_str(&expected).map_err(|_| BearerTokenError::Invalid)?;
        header.set_sensitive(true);
        let check = move |headers: &HeaderMap| {
            headers
                .get(hyper::header::AUTHORIZATION)
                .is_some_and(|got| {
                    let got = got.as_bytes();
                    got.len() == expected.len() && openssl::memcmp::eq(got, expected.as_bytes())
                })
        };
        Ok(Auth {
            check: Arc::new(check),
            forward: Some(header),
        })
    }

    /// The application's own check.
    pub(crate) fn custom(
        check: impl Fn(&HeaderMap) -> bool + Send + Sync + 'static,
        forward: Option<HeaderValue>,
    ) -> Auth {
        Auth {
            check: Arc::new(check),
            forward,
        }
    }

    /// Whether a request with `headers` may be answered.
    pub(crate) fn allows(&self, headers: &HeaderMap) -> bool {
        (self.check)(headers)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bearer_token_is_checked_and_sent() {
        let auth = Auth::bearer("s3cr3t-t0ken.~+/==").expect("a valid token");
        let mut headers = HeaderMap::new();
        assert!(!auth.allows(&headers));
        headers.insert(
            hyper::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t-t0ken.~+/=="),
        );
        assert!(auth.allows(&headers));
        headers.insert(
            hyper::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer s3cr3t-t0ken.~+/=!"),
        );
        assert!(!auth.allows(&headers));
        headers.insert(
            hyper::header::AUTHORIZATION,
            HeaderValue::from_static("Bearer short"),
        );
        assert!(!auth.allows(&headers));
        assert_eq!(
            auth.forward.as_ref().map(|h| h.as_bytes().to_vec()),
            Some(b"Bearer s3cr3t-t0ken.~+/==".to_vec())
        );
        assert_eq!(Auth::bearer("").err(), Some(BearerTokenError::Empty));
        assert_eq!(Auth::bearer("a b").err(), Some(BearerTokenError::Invalid));
        assert_eq!(Auth::bearer("==").err(), Some(BearerTokenError::Invalid));
        assert_eq!(
            Auth::bearer("line\n").err(),
            Some(BearerTokenError::Invalid)
        );
    }
}
