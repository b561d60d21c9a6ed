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

/// How long one call of a token provider may take before the client that asked stops waiting
/// for it (the call goes on, on its own thread; the next refresh waits for its answer).
pub const TOKEN_PROVIDER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long refreshes are retried while no valid token is left (none was ever made, or the
/// last one expired) before a client gives up and the application stops.
pub const TOKEN_PROVIDER_GIVE_UP: Duration = Duration::from_secs(30);

/// When the provider is asked again after failures, and when to give up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RetryPolicy {
    /// How long one call may take.
    timeout: Duration,
    /// How long to go on without a valid token.
    give_up: Duration,
    /// The delay after the first failure, doubled after each further one.
    first_backoff: Duration,
    /// The longest delay.
    max_backoff: Duration,
}

impl RetryPolicy {
    const DEFAULT: RetryPolicy = RetryPolicy {
        timeout: TOKEN_PROVIDER_TIMEOUT,
        give_up: TOKEN_PROVIDER_GIVE_UP,
        first_backoff: Duration::from_millis(250),
        max_backoff: Duration::from_secs(10),
    };

    /// The delay after `failures` failures in a row (at least one).
    fn backoff(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(16);
        (self.first_backoff * 2u32.pow(doublings)).min(self.max_backoff)
    }
}

/// A token the clients may use now, and when to ask for a new one if not at 80% of its
/// lifetime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refreshed {
    /// The provider's new token, or (after a failed call) the current one, still valid.
    pub token: OAuthToken,
    /// After a failed call: ask the provider again this soon (backoff), not at 80% of the
    /// token's lifetime.
    pub ask_again_in: Option<Duration>,
}

impl Refreshed {
    /// The expiry (ms since the Unix epoch) to give librdkafka so that it asks again when it
    /// should: it refreshes at 80% of the time left until the expiry it was given.
    #[cfg_attr(not(feature = "kafka"), allow(dead_code))]
    pub(crate) fn refresh_expiry_ms(&self) -> i64 {
        match self.ask_again_in {
            None => self.token.expires_at_ms,
            Some(delay) => {
                let ms = i64::try_from(delay.as_millis().saturating_mul(5) / 4).unwrap_or(i64::MAX);
                self.token
                    .expires_at_ms
                    .min(now_ms().saturating_add(ms.max(1)))
            }
        }
    }
}

/// No OAUTHBEARER token could be had: the provider kept failing and no valid token is left.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the OAUTHBEARER token provider failed {failures} time(s) in a row and no valid \
     token was left for {without_token:?} ({expired}); last failure: {last}. Check what the \
     provider needs (is the identity provider reachable? are the client's credentials still \
     valid?); the application stops because its clients cannot authenticate without a token"
)]
pub struct OAuthError {
    /// Failed calls in a row.
    pub failures: u32,
    /// How long there has been no valid token.
    pub without_token: Duration,
    /// Whether a token ever came, and when the last one expired.
    pub expired: String,
    /// What the provider said last (or that it timed out or panicked).
    pub last: String,
}

/// What the provider's shared state remembers.
#[derive(Debug, Default)]
struct State {
    /// The last token the provider made.
    current: Option<OAuthToken>,
    /// Failed calls in a row.
    failures: u32,
    /// Since when there has been no valid token while calls failed.
    without_token_since: Option<std::time::Instant>,
}

/// The provider's function and what its calls left behind, shared by every clone.
struct Shared {
    provide: Arc<ProvideToken>,
    policy: RetryPolicy,
    state: std::sync::Mutex<State>,
    /// The answer of a call that outlived its timeout, still awaited; locked for the whole of
    /// a call, so calls never overlap.
    pending: std::sync::Mutex<Option<std::sync::mpsc::Receiver<Result<OAuthToken, String>>>>,
}

/// Makes OAUTHBEARER tokens for every client of an application: each librdkafka client asks it
/// through librdkafka's token refresh callback (at 80% of a token's lifetime), and the
/// coordinator connection asks it before each authentication and re-authenticates before the
/// broker's session (bounded by the token's expiry) ends. The error string says why no token
/// could be made; it must not contain secrets.
///
/// The function runs on a thread of its own (it may block, for example on an HTTP call to an
/// identity provider), never on the caller's, with a [timeout](TOKEN_PROVIDER_TIMEOUT). A
/// failed call (an error, a timeout or a panic) is logged as a warning and retried with
/// backoff; meanwhile every client keeps the last token while it is valid. Only when no valid
/// token is left and calls kept failing for [`TOKEN_PROVIDER_GIVE_UP`] do the clients fail,
/// with an [`OAuthError`] saying so. Clones share this state.
#[derive(Clone)]
pub struct OAuthTokenProvider(Arc<Shared>);

impl OAuthTokenProvider {
    /// Wraps a function that fetches or makes a token.
    pub fn new(provide: impl Fn() -> Result<OAuthToken, String> + Send + Sync + 'static) -> Self {
        Self::with_policy(provide, RetryPolicy::DEFAULT)
    }

    fn with_policy(
        provide: impl Fn() -> Result<OAuthToken, String> + Send + Sync + 'static,
        policy: RetryPolicy,
    ) -> Self {
        OAuthTokenProvider(Arc::new(Shared {
            provide: Arc::new(provide),
            policy,
            state: std::sync::Mutex::default(),
            pending: std::sync::Mutex::default(),
        }))
    }

    /// A new token: one call of the function, on the caller's thread, without retries.
    pub fn token(&self) -> Result<OAuthToken, String> {
        (self.0.provide)()
    }

    /// One call of the function on its own thread, waited for at most the policy's timeout. A
    /// call that outlives it is not repeated: the next attempt waits for its answer.
    fn attempt(&self) -> Result<OAuthToken, String> {
        let timeout = self.0.policy.timeout;
        let mut pending = self
            .0
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let answer = match pending.take() {
            Some(answer) => answer,
            None => {
                let (tx, rx) = std::sync::mpsc::sync_channel(1);
                let provide = Arc::clone(&self.0.provide);
                std::thread::Builder::new()
                    .name("oauth-token-provider".into())
                    .spawn(move || {
                        let made =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| provide()))
                                .unwrap_or_else(|_| Err("the token provider panicked".into()));
                        let _ = tx.send(made);
                    })
                    .map_err(|e| format!("could not start a thread for the token provider: {e}"))?;
                rx
            }
        };
        match answer.recv_timeout(timeout) {
            Ok(made) => made,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                *pending = Some(answer);
                Err(format!(
                    "the token provider did not answer within {timeout:?} (it still runs; a \
                     provider should give up on a slow identity provider by itself)"
                ))
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                Err("the token provider's thread ended without an answer".into())
            }
        }
    }

    /// A token for a client: the function's new one, or after a failed call the current token
    /// while it is valid (with when to ask again). Without a valid token, asks again with
    /// backoff (blocking the caller) until the function answers or the policy gives up.
    ///
    /// Blocks: call it from a thread that may wait (never a tokio worker).
    pub(crate) fn refresh(&self) -> Result<Refreshed, OAuthError> {
        loop {
            let made = self.attempt();
            let mut state = self
                .0
                .state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let why = match made {
                Ok(token) => {
                    if state.failures > 0 {
                        tracing::info!(
                            failures = state.failures,
                            "the OAUTHBEARER token provider answered again"
                        );
                    }
                    state.failures = 0;
                    state.without_token_since = None;
                    state.current = Some(token.clone());
                    return Ok(Refreshed {
                        token,
                        ask_again_in: None,
                    });
                }
                Err(why) => why,
            };
            state.failures = state.failures.saturating_add(1);
            let backoff = self.0.policy.backoff(state.failures);
            let now = now_ms();
            if let Some(current) = state.current.as_ref().filter(|t| t.expires_at_ms > now) {
                let valid_for = Duration::from_millis((current.expires_at_ms - now) as u64);
                tracing::warn!(
                    failures = state.failures,
                    %why,
                    ?valid_for,
                    retry_in = ?backoff,
                    "the OAUTHBEARER token provider failed; the clients keep the current token \
                while it is valid and ask again"
                );
                return Ok(Refreshed {
                    token: current.clone(),
                    ask_again_in: Some(backoff.min(valid_for)),
                });
            }
            let since = *state
                .without_token_since
                .get_or_insert_with(std::time::Instant::now);
            let without_token = since.elapsed();
            if without_token + backoff > self.0.policy.give_up {
                let error = OAuthError {
                    failures: state.failures,
                    without_token,
                    expired: match &state.current {
                        Some(t) => format!(
                            "the last token expired at {} ms since the Unix epoch",
                            t.expires_at_ms
                        ),
                        None => "the provider never made a token".into(),
                    },
                    last: why,
                };
                tracing::error!(%error, "giving up on the OAUTHBEARER token provider");
                return Err(error);
            }
            tracing::warn!(
                failures = state.failures,
                %why,
                retry_in = ?backoff,
                "the OAUTHBEARER token provider failed and no valid token is left; asking again"
            );
            drop(state);
            std::thread::sleep(backoff);
        }
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

    /// A token for the next authentication: one call of the provider, on the caller's thread.
    pub fn token(&self) -> Result<OAuthToken, String> {
        match self {
            OAuthSource::None => Err("OAUTHBEARER is not configured".into()),
            OAuthSource::Provider(p) => p.token(),
            OAuthSource::Unsecured(jwt) => Ok(jwt.token()),
        }
    }

    /// A token for the next authentication of the coordinator connection, as
    /// [`OAuthTokenProvider::refresh`] answers it (retried, or the current one while valid),
    /// with the provider run on tokio's blocking pool: never on the worker that sends the
    /// member's heartbeats.
    pub(crate) async fn refresh(&self) -> Result<Refreshed, String> {
        match self {
            OAuthSource::None => Err("OAUTHBEARER is not configured".into()),
            OAuthSource::Provider(p) => {
                let p = p.clone();
                tokio::task::spawn_blocking(move || p.refresh())
                    .await
                    .map_err(|e| format!("the token provider's task failed: {e}"))?
                    .map_err(|e| e.to_string())
            }
            OAuthSource::Unsecured(jwt) => Ok(Refreshed {
                token: jwt.token(),
                ask_again_in: None,
            }),
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    use super::*;

    /// A short policy: 50 ms per call, 20 ms first backoff, give up after 1 s without a token.
    const FAST: RetryPolicy = RetryPolicy {
        timeout: Duration::from_millis(200),
        give_up: Duration::from_secs(1),
        first_backoff: Duration::from_millis(20),
        max_backoff: Duration::from_millis(100),
    };

    fn token(lifetime: Duration) -> OAuthToken {
        OAuthToken::new("jwt", "alice", lifetime)
    }

    /// A provider that fails the calls `fails` says, counting calls.
    fn flaky(
        fails: impl Fn(usize) -> bool + Send + Sync + 'static,
        lifetime: Duration,
    ) -> (OAuthTokenProvider, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&calls);
        let provider = OAuthTokenProvider::with_policy(
            move || {
                let call = counted.fetch_add(1, Ordering::SeqCst);
                if fails(call) {
                    Err(format!("call {call} failed (test)"))
                } else {
                    Ok(token(lifetime))
                }
            },
            FAST,
        );
        (provider, calls)
    }

    #[test]
    fn a_provider_that_fails_the_first_time_is_asked_again() {
        let (provider, calls) = flaky(|call| call == 0, Duration::from_secs(60));
        let refreshed = provider.refresh().expect("the second call's token");
        assert_eq!(refreshed.ask_again_in, None);
        assert_eq!(refreshed.token.principal, "alice");
        assert_eq!(calls.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_failed_refresh_keeps_the_current_token_and_asks_again_after_a_backoff() {
        let (provider, calls) = flaky(|call| call >= 1, Duration::from_secs(60));
        let first = provider.refresh().expect("a token");
        let again = provider.refresh().expect("the current token, still valid");
        assert_eq!(again.token, first.token);
        assert_eq!(again.ask_again_in, Some(FAST.first_backoff));
        // librdkafka asks at 80% of the time left to the expiry it is given: after the backoff.
        let left = again.refresh_expiry_ms() - now_ms();
        assert!((0..=25).contains(&left), "{left}");
        let third = provider.refresh().expect("the current token");
        assert_eq!(third.ask_again_in, Some(FAST.first_backoff * 2));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn without_a_valid_token_a_provider_that_keeps_failing_gives_up_with_what_to_do() {
        let (provider, calls) = flaky(|_| true, Duration::from_secs(60));
        let started = Instant::now();
        let error = provider.refresh().expect_err("no token ever");
        assert!(
            started.elapsed() <= FAST.give_up + FAST.max_backoff,
            "{error}"
        );
        assert!(calls.load(Ordering::SeqCst) >= 3, "retried with backoff");
        let message = error.to_string();
        assert!(message.contains("never made a token"), "{message}");
        assert!(message.contains("identity provider reachable"), "{message}");
        assert!(message.contains("failed (test)"), "{message}");
    }

    #[test]
    fn an_expired_token_is_not_used_after_a_failure() {
        // Tokens of 1 ms: expired by the next call, which fails from then on.
        let (provider, _) = flaky(|call| call >= 1, Duration::from_millis(1));
        provider.refresh().expect("a token");
        std::thread::sleep(Duration::from_millis(5));
        let error = provider.refresh().expect_err("the token expired");
        assert!(error.to_string().contains("expired at"), "{error}");
    }

    #[test]
    fn the_provider_runs_on_its_own_thread_and_a_stuck_call_times_out() {
        let caller = std::thread::current().id();
        let release = Arc::new(std::sync::Barrier::new(2));
        let (stuck, on_own_thread) = (Arc::clone(&release), Arc::new(AtomicUsize::new(0)));
        let seen = Arc::clone(&on_own_thread);
        let calls = AtomicUsize::new(0);
        let provider = OAuthTokenProvider::with_policy(
            move || {
                if std::thread::current().id() != caller {
                    seen.fetch_add(1, Ordering::SeqCst);
                }
                if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                    // The first call hangs until the test releases it.
                    stuck.wait();
                }
                Ok(token(Duration::from_secs(60)))
            },
            RetryPolicy {
                give_up: Duration::from_millis(300),
                ..FAST
            },
        );
        let started = Instant::now();
        let error = provider.refresh().expect_err("the stuck call times out");
        assert!(error.last.contains("did not answer"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(2));
        release.wait();
        // The next refresh takes the stuck call's answer rather than calling again.
        provider.refresh().expect("the released call's token");
        assert_eq!(on_own_thread.load(Ordering::SeqCst), 1);
    }
}
