//! Word count over each secured listener of the test broker (SSL with a client certificate,
//! SASL_SSL with SCRAM-SHA-512, PLAIN and OAUTHBEARER), a token provider asked again before its
//! tokens expire, a wrong password failing fast, and the standard authorizer's denials.
//!
//! Input is produced and output read over the PLAINTEXT listener (an independent
//! read_committed reader); only the application runs over the secured listener, so every
//! connection it makes (librdkafka's and the coordinator connection) is secured.
//!
//! Needs the secured test broker: `scripts/test.sh` starts it, or by hand
//! `DEKAF_KAFKA_SECURE=1 scripts/kafka.sh start && eval "$(scripts/kafka.sh env)"`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dekaf_streams::ClientSettings;
use dekaf_streams::group::{BrokerConnection, GroupError};
use dekaf_streams::prelude::*;
use dekaf_streams::reset_application;
use dekaf_streams::security::{OAuthToken, OAuthTokenProvider, SecurityConfig};
use dekaf_streams::{Builder, KafkaStreams, StreamsError};
use dekaf_streams_harness::e2e::{
    InProcess, Reader, assert_exactly_once, counts_reached, expected_counts, fresh, sentences,
};
use dekaf_streams_harness::kafka_io::{bootstrap, produce};

macro_rules! word_count {
    ($name:ident = $app:tt, $input:tt -> $output:tt) => {
        topology! {
            /// Word count of one security test.
            pub $name = $app {
                stream($input, Utf8, Utf8)
                    .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
                    .group_by(|_key, word| word.clone(), Utf8, Utf8)
                    .count("counts")
                    .to_stream()
                    .to($output, Utf8, I64);
            }
        }
    };
}

word_count!(WcSsl = "sec-ssl", "sec-ssl-in" -> "sec-ssl-out");
word_count!(WcScram = "sec-scram", "sec-scram-in" -> "sec-scram-out");
word_count!(WcPlain = "sec-plain", "sec-plain-in" -> "sec-plain-out");
word_count!(WcOauth = "sec-oauth", "sec-oauth-in" -> "sec-oauth-out");
word_count!(WcOauthProvider = "sec-oauthp", "sec-oauthp-in" -> "sec-oauthp-out");
word_count!(WcOauthFlaky = "sec-oauthf", "sec-oauthf-in" -> "sec-oauthf-out");
word_count!(WcBadPassword = "sec-badpw", "sec-badpw-in" -> "sec-badpw-out");
word_count!(WcAclOk = "acl-ok-wc", "acl-ok-wc-in" -> "acl-ok-wc-out");
word_count!(WcAclNoGroup = "acl-locked-wc", "acl-locked-wc-in" -> "acl-locked-wc-out");
word_count!(WcAclNoWrite = "acl-ok-nowrite", "acl-ok-nowrite-in" -> "acl-locked-out");

/// A variable `scripts/test.sh` exports; its absence fails the test with how to run it.
fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: these tests need the secured test broker. Run them with \
             scripts/test.sh, or start it with `DEKAF_KAFKA_SECURE=1 scripts/kafka.sh start` and \
             export its listeners with `eval \"$(scripts/kafka.sh env)\"`"
        )
    })
}

fn tls_file(name: &str) -> String {
    format!("{}/{name}", env("DEKAF_TLS_DIR"))
}

/// SASL_SSL with `mechanism` and the test CA.
fn sasl_ssl<T: Topology>(b: Builder<T>, mechanism: &str) -> Builder<T> {
    b.bootstrap_servers(env("DEKAF_SASL_SSL_BOOTSTRAP"))
        // No record cache: the exactly-once check reads every update 1..n of every count.
        .cache_max_bytes(0)
        .property("security.protocol", "SASL_SSL")
        .property("ssl.ca.location", tls_file("ca.pem"))
        .property("sasl.mechanism", mechanism)
}

fn user<T: Topology>(b: Builder<T>, name: &str, password: &str) -> Builder<T> {
    b.property("sasl.username", name)
        .property("sasl.password", password)
}

/// `topology` over SASL_SSL with SCRAM-SHA-512 as user `name`.
fn scram<T: Topology>(topology: T, name: &str, password: &str) -> KafkaStreams<T> {
    user(
        sasl_ssl(KafkaStreams::builder(topology), "SCRAM-SHA-512"),
        name,
        password,
    )
    .build()
    .expect("valid SCRAM settings")
}

/// Runs `streams` until it stops by itself, which it must do within `within`, and returns the
/// error it stopped with.
async fn stops_with_error<T: Topology + Send>(
    streams: KafkaStreams<T>,
    within: Duration,
    what: &str,
) -> StreamsError {
    InProcess::run(streams)
        .finished(within)
        .await
        .unwrap_or_else(|| panic!("the application did not stop by itself within {within:?}"))
        .expect_err(what)
}

/// Produces 2,000 sentences to `input` over PLAINTEXT, runs `streams` until an independent
/// reader sees every count and `until()` holds (60 s at most), stops it, and checks each word's
/// updates are exactly 1..n.
async fn word_count_exactly_once<T: Topology + Send>(
    streams: KafkaStreams<T>,
    app: &str,
    input: &str,
    output: &str,
    seed: u64,
    until: impl Fn() -> bool + Send + 'static,
) {
    let servers = bootstrap();
    fresh(&servers, app, &[(input, 2), (output, 2)]).await;
    let lines = sentences(2_000, 200, seed);
    let expected = expected_counts(&lines);
    let keys: Vec<String> = (0..lines.len()).map(|i| format!("s{i}")).collect();
    let n = produce(
        &servers,
        input,
        keys.iter()
            .zip(&lines)
            .map(|(k, s)| (Some(k.as_bytes()), Some(s.as_bytes()))),
    )
    .await
    .expect("produce the sentences");
    assert_eq!(n as usize, lines.len());
    let running = InProcess::run(streams);
    let output = output.to_owned();
    let mut reader = Reader::new(&servers, &output).await;
    let done = reader
        .read_until(Duration::from_secs(60), |r| {
            counts_reached(r, &expected) && until()
        })
        .await;
    running.stop().await.expect("a clean stop");
    reader.drain(Duration::from_secs(1)).await;
    assert!(
        done,
        "the counts (and the test's condition) were not reached within 60 s"
    );
    assert_exactly_once(&reader.records, &expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_over_mutual_tls_with_an_encrypted_client_key() {
    let password = std::fs::read_to_string(tls_file("client.key.password")).expect("key password");
    let streams = KafkaStreams::builder(WcSsl)
        .bootstrap_servers(env("DEKAF_SSL_BOOTSTRAP"))
        .cache_max_bytes(0)
        .property("security.protocol", "SSL")
        .property("ssl.ca.location", tls_file("ca.pem"))
        .property("ssl.certificate.location", tls_file("client.pem"))
        .property("ssl.key.location", tls_file("client.key"))
        .property("ssl.key.password", password.trim())
        .build()
        .expect("valid TLS settings");
    word_count_exactly_once(streams, "sec-ssl", "sec-ssl-in", "sec-ssl-out", 11, || true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_over_sasl_ssl_with_scram_sha_512() {
    let streams = scram(WcScram, "alice", "alice-secret");
    word_count_exactly_once(
        streams,
        "sec-scram",
        "sec-scram-in",
        "sec-scram-out",
        12,
        || true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_over_sasl_ssl_with_plain() {
    let streams = user(
        sasl_ssl(KafkaStreams::builder(WcPlain), "PLAIN"),
        "alice",
        "alice-secret",
    )
    .build()
    .expect("valid PLAIN settings");
    word_count_exactly_once(
        streams,
        "sec-plain",
        "sec-plain-in",
        "sec-plain-out",
        13,
        || true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn word_count_over_sasl_ssl_with_an_unsecured_oauthbearer_jwt() {
    let streams = sasl_ssl(KafkaStreams::builder(WcOauth), "OAUTHBEARER")
        .property("enable.sasl.oauthbearer.unsecure.jwt", "true")
        .property("sasl.oauthbearer.config", "principal=alice")
        .build()
        .expect("valid OAUTHBEARER settings");
    word_count_exactly_once(
        streams,
        "sec-oauth",
        "sec-oauth-in",
        "sec-oauth-out",
        14,
        || true,
    )
    .await;
}

/// An unsigned JWT for the broker's unsecured validator, valid for `lifetime`.
fn unsecured_jwt(principal: &str, lifetime: Duration) -> OAuthToken {
    let config = SecurityConfig::from_properties(
        [
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
            ("enable.sasl.oauthbearer.unsecure.jwt", "true"),
            (
                "sasl.oauthbearer.config",
                &*format!("principal={principal} lifeSeconds={}", lifetime.as_secs()),
            ),
        ],
        None,
    )
    .expect("valid unsecured JWT settings");
    config
        .sasl
        .expect("SASL settings")
        .oauth
        .token()
        .expect("a token")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_provider_serves_every_client_and_is_asked_again_before_expiry() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let streams = sasl_ssl(KafkaStreams::builder(WcOauthProvider), "OAUTHBEARER")
        .oauth_token_provider(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            // Tokens of 10 s: every client must come back for a new one within the run.
            Ok(unsecured_jwt("alice", Duration::from_secs(10)))
        })
        .build()
        .expect("valid OAUTHBEARER settings");
    // The consumer, restore consumer and producer (librdkafka) and the member's coordinator
    // connection ask once at start (4), then again at 80-85% of each token's 10 s.
    let asked = Arc::clone(&calls);
    let started = Instant::now();
    word_count_exactly_once(
        streams,
        "sec-oauthp",
        "sec-oauthp-in",
        "sec-oauthp-out",
        15,
        move || asked.load(Ordering::SeqCst) >= 8,
    )
    .await;
    eprintln!(
        "the provider was asked {} times in {:?}",
        calls.load(Ordering::SeqCst),
        started.elapsed()
    );
    // The reset tool's admin client and consumer (whose tokens rdkafka does not refresh by
    // itself) authenticate with the provider too: the group and the internal topics go.
    let mut settings = ClientSettings::new(env("DEKAF_SASL_SSL_BOOTSTRAP"));
    for (k, v) in [
        ("security.protocol", "SASL_SSL"),
        ("sasl.mechanism", "OAUTHBEARER"),
        ("ssl.ca.location", &*tls_file("ca.pem")),
    ] {
        settings.set(k, v).expect("valid property");
    }
    settings.set_oauth_token_provider(OAuthTokenProvider::new(|| {
        Ok(unsecured_jwt("alice", Duration::from_secs(10)))
    }));
    let report = tokio::time::timeout(
        Duration::from_secs(30),
        reset_application(&settings, "sec-oauthp"),
    )
    .await
    .expect("the reset ends within 30 s")
    .expect("the reset authenticates with the provider's token");
    assert!(report.group_deleted, "{report:?}");
    assert!(
        report
            .topics_deleted
            .iter()
            .any(|t| t.ends_with("-repartition")),
        "{report:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_provider_that_fails_now_and_then_does_not_stop_the_application() {
    let calls = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicUsize::new(0));
    let (counted, failed) = (Arc::clone(&calls), Arc::clone(&failures));
    let streams = sasl_ssl(KafkaStreams::builder(WcOauthFlaky), "OAUTHBEARER")
        .oauth_token_provider(move || {
            let call = counted.fetch_add(1, Ordering::SeqCst);
            // The first call fails (no token yet: it is asked again), then every third one
            // (a token is still valid: it goes on being used while the provider is asked again).
            if call == 0 || call % 3 == 2 {
                failed.fetch_add(1, Ordering::SeqCst);
                return Err("the identity provider is unreachable (test)".into());
            }
            Ok(unsecured_jwt("alice", Duration::from_secs(10)))
        })
        .build()
        .expect("valid OAUTHBEARER settings");
    let failed = Arc::clone(&failures);
    word_count_exactly_once(
        streams,
        "sec-oauthf",
        "sec-oauthf-in",
        "sec-oauthf-out",
        16,
        // Tokens of 10 s: refreshes (some failing) happen while the application runs.
        move || failed.load(Ordering::SeqCst) >= 4,
    )
    .await;
    eprintln!(
        "the provider was asked {} times and failed {} times",
        calls.load(Ordering::SeqCst),
        failures.load(Ordering::SeqCst)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_fails_fast_with_a_clear_error() {
    fresh(
        &bootstrap(),
        "sec-badpw",
        &[("sec-badpw-in", 1), ("sec-badpw-out", 1)],
    )
    .await;
    // Exactly-once (the default): the credentials are checked before the transactional
    // producer would wait out its 60 s `init_transactions`.
    let streams = scram(WcBadPassword, "alice", "wrong");
    let started = Instant::now();
    let err = stops_with_error(streams, Duration::from_secs(10), "authentication fails").await;
    let text = err.to_string();
    assert!(
        matches!(&err, StreamsError::Group(g) if matches!(**g, GroupError::AuthenticationFailed { .. })),
        "{err:?}"
    );
    assert!(
        text.contains("SaslAuthenticationFailed (58)") && text.contains("SCRAM-SHA-512"),
        "{text}"
    );
    assert!(!text.contains("wrong"), "the password leaked: {text}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Adds ALLOW ACLs as the super user `admin`: (resource type, pattern type, name, principal,
/// operation) with Kafka's codes.
async fn allow(acls: &[(i8, i8, &str, &str, i8)]) {
    use kafka_protocol::messages::create_acls_request::AclCreation;
    use kafka_protocol::messages::{CreateAclsRequest, CreateAclsResponse};
    use kafka_protocol::protocol::StrBytes;
    let security = dekaf_streams::security::ConnectionSecurity::new(
        &SecurityConfig::from_properties(
            [
                ("security.protocol", "SASL_SSL"),
                ("sasl.mechanism", "SCRAM-SHA-512"),
                ("sasl.username", "admin"),
                ("sasl.password", "admin-secret"),
                ("ssl.ca.location", &*tls_file("ca.pem")),
            ],
            None,
        )
        .expect("admin settings"),
    )
    .expect("admin TLS");
    let addr = env("DEKAF_SASL_SSL_BOOTSTRAP");
    let mut conn =
        BrokerConnection::connect(&addr, "dekaf-acl-test", Duration::from_secs(10), &security)
            .await
            .expect("the admin connects over SASL_SSL");
    let request = CreateAclsRequest::default().with_creations(
        acls.iter()
            .map(|(kind, pattern, name, principal, op)| {
                AclCreation::default()
                    .with_resource_type(*kind)
                    .with_resource_pattern_type(*pattern)
                    .with_resource_name(StrBytes::from_string((*name).to_owned()))
                    .with_principal(StrBytes::from_string((*principal).to_owned()))
                    .with_host(StrBytes::from_static_str("*"))
                    .with_operation(*op)
                    .with_permission_type(3)
            })
            .collect(),
    );
    // CreateAcls v3 is flexible; the runtime decodes only the responses it uses itself.
    let mut body: Vec<u8> = Vec::new();
    kafka_protocol::protocol::Encodable::encode(&request, &mut body, 3).expect("encode");
    let mut answer = conn
        .send_flexible(30, 3, &body, "CreateAcls")
        .await
        .expect("CreateAcls");
    let response =
        <CreateAclsResponse as kafka_protocol::protocol::Decodable>::decode(&mut answer, 3)
            .expect("a CreateAcls response");
    for r in response.results {
        assert_eq!(r.error_code, 0, "CreateAcls: {:?}", r.error_message);
    }
}

const TOPIC: i8 = 2;
const GROUP: i8 = 3;
const TRANSACTIONAL_ID: i8 = 5;
const PREFIXED: i8 = 4;
const ALL: i8 = 2;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_allowed_only_its_own_resources_runs_word_count() {
    let app = "User:acl-app";
    allow(&[
        (TOPIC, PREFIXED, "acl-ok-", app, ALL),
        (GROUP, PREFIXED, "acl-ok-", app, ALL),
        (TRANSACTIONAL_ID, PREFIXED, "acl-ok-", app, ALL),
    ])
    .await;
    let streams = scram(WcAclOk, "acl-app", "acl-app-secret");
    word_count_exactly_once(
        streams,
        "acl-ok-wc",
        "acl-ok-wc-in",
        "acl-ok-wc-out",
        16,
        || true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_without_read_on_the_group_gets_a_clear_error_naming_it() {
    // Only the admin may use groups `acl-locked-*`: the ACLs make them restricted.
    allow(&[(GROUP, PREFIXED, "acl-locked-", "User:admin", ALL)]).await;
    fresh(
        &bootstrap(),
        "acl-locked-wc",
        &[("acl-locked-wc-in", 1), ("acl-locked-wc-out", 1)],
    )
    .await;
    let streams = scram(WcAclNoGroup, "acl-app", "acl-app-secret");
    let text = stops_with_error(streams, Duration::from_secs(30), "the group is denied")
        .await
        .to_string();
    eprintln!("ACL denial: {text}");
    assert!(
        text.contains("GroupAuthorizationFailed (30)")
            && text.contains("`acl-locked-wc`")
            && text.contains("READ on the group"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_principal_without_write_on_the_output_topic_gets_a_clear_error_naming_it() {
    let app = "User:acl-app";
    allow(&[
        (TOPIC, PREFIXED, "acl-ok-", app, ALL),
        (GROUP, PREFIXED, "acl-ok-", app, ALL),
        (TRANSACTIONAL_ID, PREFIXED, "acl-ok-", app, ALL),
        // Only the admin may write `acl-locked-out`.
        (TOPIC, PREFIXED, "acl-locked-", "User:admin", ALL),
    ])
    .await;
    fresh(
        &bootstrap(),
        "acl-ok-nowrite",
        &[("acl-ok-nowrite-in", 1), ("acl-locked-out", 1)],
    )
    .await;
    produce(
        &bootstrap(),
        "acl-ok-nowrite-in",
        [(Some(&b"k"[..]), Some(&b"a b"[..]))],
    )
    .await
    .expect("produce");
    let streams = scram(WcAclNoWrite, "acl-app", "acl-app-secret");
    let text = stops_with_error(
        streams,
        Duration::from_secs(30),
        "the output topic is denied",
    )
    .await
    .to_string();
    eprintln!("ACL denial: {text}");
    assert!(
        text.contains("acl-locked-out") && text.contains("uthoriz"),
        "{text}"
    );
}

/// Connects the coordinator connection's way to `addr` with `properties`.
async fn connect_with(
    addr: &str,
    properties: &[(&str, &str)],
) -> Result<BrokerConnection, GroupError> {
    let config =
        SecurityConfig::from_properties(properties.iter().copied(), None).expect("valid settings");
    let security =
        dekaf_streams::security::ConnectionSecurity::new(&config).expect("TLS files load");
    BrokerConnection::connect(addr, "dekaf-tls-test", Duration::from_secs(10), &security).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_failures_are_permanent_errors_that_say_what_to_check() {
    let addr = env("DEKAF_SSL_BOOTSTRAP");
    let ca = tls_file("ca.pem");
    // A CA that did not sign the broker's certificate (the client certificate is no CA).
    let not_the_ca = tls_file("client.pem");
    let err = connect_with(
        &addr,
        &[
            ("security.protocol", "SSL"),
            ("ssl.ca.location", &not_the_ca),
        ],
    )
    .await
    .expect_err("the broker's certificate is not trusted");
    assert!(
        matches!(err, GroupError::Tls { .. }) && !err.is_transient(),
        "{err:?}"
    );
    assert!(err.to_string().contains("ssl.ca.location"), "{err}");
    // The listener requires a client certificate (mutual TLS); TLS 1.3 reports it after the
    // handshake, at the first read.
    let err = connect_with(
        &addr,
        &[("security.protocol", "SSL"), ("ssl.ca.location", &ca)],
    )
    .await
    .expect_err("no client certificate");
    assert!(
        matches!(err, GroupError::Tls { .. }) && !err.is_transient(),
        "{err:?}"
    );
    let key_password =
        std::fs::read_to_string(tls_file("client.key.password")).expect("key password");
    let client = [
        ("security.protocol", "SSL"),
        ("ssl.ca.location", &*ca),
        ("ssl.certificate.location", &*tls_file("client.pem")),
        ("ssl.key.location", &*tls_file("client.key")),
        ("ssl.key.password", key_password.trim()),
    ];
    // Host name verification (on by default) accepts the names the certificate gives: the IP
    // address and `localhost`.
    connect_with(&addr.replace("127.0.0.1", "localhost"), &client)
        .await
        .expect("the certificate names localhost");
    connect_with(&addr, &client)
        .await
        .expect("mutual TLS with the right files");
}
