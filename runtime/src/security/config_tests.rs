//! Tests of reading the security properties.

use super::*;
use crate::kafka::ClientSettings;
use crate::kafka::settings::SettingsError;
use crate::security::OAuthTokenProvider;

fn config(props: &[(&str, &str)]) -> Result<SecurityConfig, SecurityError> {
    SecurityConfig::from_properties(props.iter().copied(), None)
}

#[test]
fn plaintext_is_the_default_and_scram_over_tls_is_read() {
    assert_eq!(config(&[]).unwrap(), SecurityConfig::default());
    let c = config(&[
        ("security.protocol", "SASL_SSL"),
        ("sasl.mechanism", "SCRAM-SHA-512"),
        ("sasl.username", "alice"),
        ("sasl.password", "s3cr3t"),
        ("ssl.ca.location", "/ca.pem"),
        ("linger.ms", "5"),
    ])
    .unwrap();
    assert_eq!(c.protocol, SecurityProtocol::SaslSsl);
    assert_eq!(c.tls.ca, Some(PemSource::File("/ca.pem".into())));
    assert!(c.tls.verify_hostname);
    let sasl = c.sasl.unwrap();
    assert_eq!(sasl.mechanism, SaslMechanism::ScramSha512);
    assert_eq!(sasl.password.expose(), "s3cr3t");
    let off = config(&[("ssl.endpoint.identification.algorithm", "none")]).unwrap();
    assert!(!off.tls.verify_hostname);
}

#[test]
fn what_the_connection_cannot_honour_is_refused_naming_the_property() {
    let refused = |props: &[(&str, &str)], property: &str| {
        let e = config(props).unwrap_err();
        assert!(e.to_string().contains(property), "{e}");
    };
    refused(
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "GSSAPI"),
        ],
        "sasl.mechanism",
    );
    // librdkafka's default mechanism is GSSAPI.
    refused(&[("security.protocol", "SASL_SSL")], "GSSAPI");
    refused(
        &[("ssl.keystore.location", "/k.p12")],
        "ssl.keystore.location",
    );
    refused(
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
            ("sasl.oauthbearer.method", "oidc"),
        ],
        "sasl.oauthbearer.method",
    );
    refused(&[("security.protocol", "TLS")], "security.protocol");
    refused(
        &[("ssl.endpoint.identification.algorithm", "dns")],
        "ssl.endpoint.identification.algorithm",
    );
    refused(
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "PLAIN"),
            ("sasl.username", "u"),
        ],
        "sasl.password",
    );
    refused(
        &[("ssl.key.location", "/k.pem")],
        "ssl.certificate.location",
    );
    refused(
        &[
            ("security.protocol", "SASL_SSL"),
            ("sasl.mechanism", "OAUTHBEARER"),
        ],
        "enable.sasl.oauthbearer.unsecure.jwt",
    );
}

#[test]
fn missing_tls_files_are_refused_at_build_naming_the_property() {
    let mut s = ClientSettings::new("127.0.0.1:9093");
    s.set("security.protocol", "SSL").unwrap();
    s.set("ssl.ca.location", "/nonexistent/ca.pem").unwrap();
    match s.validate() {
        Err(SettingsError::Security(SecurityError::Tls { property, .. })) => {
            assert_eq!(property, "ssl.ca.location")
        }
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

#[test]
fn secrets_never_appear_in_debug_output() {
    let mut s = ClientSettings::new("127.0.0.1:9093");
    for (k, v) in [
        ("security.protocol", "SASL_SSL"),
        ("sasl.mechanism", "SCRAM-SHA-512"),
        ("sasl.username", "alice"),
        ("sasl.password", "PASSWORD-1"),
        ("ssl.key.password", "PASSWORD-2"),
        ("ssl.key.pem", "-----BEGIN PRIVATE KEY-----PEMKEY-3"),
        (
            "sasl.oauthbearer.config",
            "principal=x extension_secret=SECRET-4",
        ),
    ] {
        s.set(k, v).unwrap();
    }
    s.set_oauth_token_provider(OAuthTokenProvider::new(|| {
        Ok(crate::security::OAuthToken::new(
            "TOKEN-5",
            "alice",
            std::time::Duration::from_secs(9),
        ))
    }));
    let sasl = SaslSettings {
        mechanism: SaslMechanism::Plain,
        username: "alice".into(),
        password: Secret::new("PASSWORD-1"),
        oauth: crate::security::oauth::OAuthSource::None,
    };
    let token = s.oauth_token_provider().unwrap().token().unwrap();
    let tls = TlsSettings {
        key: Some(PemSource::Inline(Secret::new("PEMKEY-3"))),
        key_password: Some(Secret::new("PASSWORD-2")),
        ..TlsSettings::default()
    };
    let printed = format!(
        "{s:?} {sasl:?} {token:?} {tls:?} {:#?}",
        crate::streams::StreamsConfig {
            settings: s.clone(),
            ..crate::streams::StreamsConfig::new("x:1")
        }
    );
    for secret in [
        "PASSWORD-1",
        "PASSWORD-2",
        "PEMKEY-3",
        "SECRET-4",
        "TOKEN-5",
    ] {
        assert!(!printed.contains(secret), "{secret} leaked: {printed}");
    }
    assert!(
        printed.contains("alice") && printed.contains("[redacted]"),
        "{printed}"
    );
}
