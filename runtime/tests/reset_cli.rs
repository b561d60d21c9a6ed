//! The reset command against a real broker: it deletes the group and exactly the application's
//! internal topics. Needs a broker at `DEKAF_BOOTSTRAP` (default 127.0.0.1:9092).

use std::process::Command;
use std::time::Duration;

use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

fn bootstrap() -> String {
    std::env::var("DEKAF_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// Every topic of the cluster. Blocking.
fn topics(servers: &str) -> Vec<String> {
    let consumer: BaseConsumer = ClientConfig::new()
        .set("bootstrap.servers", servers)
        .create()
        .expect("consumer");
    let metadata = consumer
        .fetch_metadata(None, Duration::from_secs(10))
        .expect("metadata: is the broker running? scripts/kafka.sh start");
    metadata
        .topics()
        .iter()
        .map(|t| t.name().to_owned())
        .collect()
}

#[tokio::test]
async fn reset_cli_deletes_internal_topics_only() {
    let servers = bootstrap();
    let app = format!("reset-cli-{}", uuid::Uuid::new_v4().simple());
    let internal = [
        format!("{app}-counts-changelog"),
        format!("{app}-counts-repartition"),
    ];
    let user = format!("{app}-input");
    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", &servers)
        .create()
        .expect("admin");
    let new: Vec<NewTopic<'_>> = internal
        .iter()
        .chain([&user])
        .map(|t| NewTopic::new(t, 1, TopicReplication::Fixed(1)))
        .collect();
    for r in admin
        .create_topics(&new, &AdminOptions::new())
        .await
        .expect("create topics")
    {
        r.expect("topic created");
    }

    // Local state of a stopped instance, as `state_dir` leaves it.
    let state_dir = std::env::temp_dir().join(format!("dekaf-reset-cli-{}", std::process::id()));
    let task = state_dir.join(&app).join("0_0");
    std::fs::create_dir_all(task.join("counts")).expect("task dir");
    std::fs::write(task.join(".checkpoint"), "x").expect("checkpoint");

    // The tool runs for seconds and the metadata request blocks: both on the blocking pool.
    let mut reset = Command::new(env!("CARGO_BIN_EXE_dekaf-streams-reset"));
    reset
        .args(["--bootstrap-server", &servers, "--application-id", &app])
        .arg("--state-dir")
        .arg(&state_dir);
    let output = tokio::task::spawn_blocking(move || reset.output())
        .await
        .expect("reset task")
        .expect("run dekaf-streams-reset");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.contains(&internal[0]) && stdout.contains(&internal[1]),
        "{stdout}"
    );

    assert!(stdout.contains("local state under"), "{stdout}");
    assert!(!state_dir.join(&app).exists(), "the local state is deleted");
    let _ = std::fs::remove_dir_all(&state_dir);

    let left = {
        let servers = servers.clone();
        tokio::task::spawn_blocking(move || topics(&servers))
            .await
            .expect("metadata task")
    };
    assert!(left.contains(&user), "the user topic stays");
    assert!(
        !left.iter().any(|t| internal.contains(t)),
        "internal topics are gone: {left:?}"
    );
    let _ = admin.delete_topics(&[&user], &AdminOptions::new()).await;
}

#[test]
fn reset_cli_explains_its_arguments() {
    let output = Command::new(env!("CARGO_BIN_EXE_dekaf-streams-reset"))
        .arg("--application-id")
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("--application-id needs a value"));
    let output = Command::new(env!("CARGO_BIN_EXE_dekaf-streams-reset"))
        .args(["--application-id", "x"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("bootstrap"));
}
