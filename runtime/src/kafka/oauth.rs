//! librdkafka's OAUTHBEARER token refresh, answered by the application's token provider.
//!
//! With `sasl.mechanism=OAUTHBEARER` and no `enable.sasl.oauthbearer.unsecure.jwt`, librdkafka
//! asks its client context for a token when the client starts and again at 80% of each token's
//! lifetime. Every context of the runtime's clients answers through [`OAuthRefresh`].

use std::error::Error;

use rdkafka::client::OAuthToken as RdKafkaToken;

use crate::security::OAuthTokenProvider;

/// The token provider of an application as its librdkafka clients see it.
#[derive(Debug, Clone, Default)]
pub struct OAuthRefresh(Option<OAuthTokenProvider>);

impl OAuthRefresh {
    /// Answers token refreshes with `provider` (none: refreshes fail, as they never come
    /// without OAUTHBEARER).
    pub fn new(provider: Option<OAuthTokenProvider>) -> Self {
        OAuthRefresh(provider)
    }

    /// A token for librdkafka (its SASL extensions are not passed on: rdkafka cannot set them).
    ///
    /// The provider runs on its own thread with a timeout, and a failed call is retried (see
    /// [`OAuthTokenProvider`]): while the current token is valid it is answered again, with an
    /// expiry that makes librdkafka ask again after the backoff (it asks at 80% of the time
    /// left). An error only when no valid token is left and the provider kept failing.
    ///
    /// Blocks while the provider runs: librdkafka calls it from the thread that serves the
    /// client's events (a processing thread, a producer's polling thread), never a tokio
    /// worker.
    pub fn token(&self) -> Result<RdKafkaToken, Box<dyn Error>> {
        let provider = self.0.as_ref().ok_or(
            "sasl.mechanism=OAUTHBEARER needs a token provider (`oauth_token_provider(..)` on the \
             builder) or `enable.sasl.oauthbearer.unsecure.jwt=true`",
        )?;
        let refreshed = provider.refresh()?;
        let lifetime_ms = refreshed.refresh_expiry_ms();
        let token = refreshed.token;
        Ok(RdKafkaToken {
            token: token.value.expose().to_owned(),
            principal_name: token.principal,
            lifetime_ms,
        })
    }
}

/// Sets a token on a librdkafka client that rdkafka never asks for one: its admin client polls
/// only its own result queue, so librdkafka's token refresh events are never handled there.
///
/// One of the crate's few `unsafe` calls into librdkafka, each a small function with its
/// safety argument (the others: the transactional offset commit in `txn_offsets`, the cached
/// watermarks in `watermarks`, the flush step in `producer` and batch consumption in `batch`,
/// which also calls this to answer the processing consumer's token refreshes):
/// `rd_kafka_oauthbearer_set_token` with a live client handle and NUL-terminated strings that
/// librdkafka copies.
pub(crate) fn set_token<C: rdkafka::ClientContext>(
    client: &rdkafka::client::Client<C>,
    token: &RdKafkaToken,
) -> Result<(), String> {
    use std::ffi::{CString, c_char};
    let value = CString::new(token.token.as_str()).map_err(|_| "the token contains a NUL byte")?;
    let principal = CString::new(token.principal_name.as_str())
        .map_err(|_| "the token's principal contains a NUL byte")?;
    let mut error = [0 as c_char; 512];
    // SAFETY: `client.native_ptr()` is the live `rd_kafka_t` owned by `client`, borrowed for the
    // whole call; `value` and `principal` are NUL-terminated and outlive the call (librdkafka
    // copies them); no extensions (NULL, 0); `error` is writable for its full length.
    let code = unsafe {
        rdkafka::bindings::rd_kafka_oauthbearer_set_token(
            client.native_ptr(),
            value.as_ptr(),
            token.lifetime_ms,
            principal.as_ptr(),
            std::ptr::null_mut(),
            0,
            error.as_mut_ptr(),
            error.len(),
        )
    };
    if code == rdkafka::bindings::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
        Ok(())
    } else {
        // SAFETY: librdkafka wrote a NUL-terminated message into `error` (zeroed beforehand, so
        // it is terminated even if it wrote nothing).
        let message = unsafe { std::ffi::CStr::from_ptr(error.as_ptr()) };
        Err(message.to_string_lossy().into_owned())
    }
}

impl OAuthRefresh {
    /// True when a token provider is set.
    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }
}

/// Lets a consumer fetch its first OAUTHBEARER token now: librdkafka queues the first token
/// refresh when the client is made, and a consumer handles it only when polled, so calls made
/// before the first poll (committed offsets, metadata) would otherwise wait for a connection
/// that cannot authenticate. Without an assignment the poll returns no record.
pub(crate) fn fetch_first_token<C: rdkafka::consumer::ConsumerContext>(
    consumer: &rdkafka::consumer::BaseConsumer<C>,
    oauth: &OAuthRefresh,
) {
    if oauth.0.is_some() {
        let _ = consumer.poll(std::time::Duration::ZERO);
    }
}

/// The context of the processing threads' main consumers.
#[derive(Debug, Clone, Default)]
pub(crate) struct StreamsConsumerContext {
    oauth: OAuthRefresh,
}

impl StreamsConsumerContext {
    /// A context answering token refreshes with `oauth`.
    pub(crate) fn new(oauth: OAuthRefresh) -> Self {
        StreamsConsumerContext { oauth }
    }
}

impl rdkafka::ClientContext for StreamsConsumerContext {
    const ENABLE_REFRESH_OAUTH_TOKEN: bool = true;

    fn generate_oauth_token(&self, _: Option<&str>) -> Result<RdKafkaToken, Box<dyn Error>> {
        self.oauth.token()
    }
}

impl rdkafka::consumer::ConsumerContext for StreamsConsumerContext {}
