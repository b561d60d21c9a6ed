//! Shows streams-group membership against a real broker: two members of one application join a
//! Kafka 4.4 streams group with a two-subtopology topology, get their tasks, rebalance, and
//! leave. Run it with `scripts/demo.sh` (which starts the broker), or with a broker of your own:
//!
//! ```text
//! DEKAF_BOOTSTRAP=127.0.0.1:9092 cargo run -p dekaf-streams --example streams_member
//! ```

use std::collections::BTreeSet;
use std::time::Duration;

use dekaf_streams::group::{MemberConfig, MemberEvent, MemberHandle, TaskId};
use dekaf_streams::topology::{DerivedConfig, InternalTopicInfo, SubtopologyInfo, TopologyInfo};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::error::RDKafkaErrorCode;

/// `demo-sentences` → (re-keyed) → `dekaf-demo-words-repartition` → a count store
/// (`dekaf-demo-counts-changelog`): the shape of a word count.
static TOPOLOGY: TopologyInfo = TopologyInfo {
    application_id: "dekaf-demo",
    subtopologies: &[
        SubtopologyInfo {
            id: "0",
            source_topics: &["demo-sentences"],
            repartition_source_topics: &[],
            repartition_sink_topics: &["dekaf-demo-words-repartition"],
            state_changelog_topics: &[],
            sink_topics: &[],
            copartition_groups: &[],
            stores: &[],
        },
        SubtopologyInfo {
            id: "1",
            source_topics: &[],
            repartition_source_topics: &[InternalTopicInfo {
                name: "dekaf-demo-words-repartition",
                partitions: 0,
                configs: &[("cleanup.policy", "delete"), ("retention.ms", "-1")],
                store_configs: &[],
                derived: DerivedConfig::None,
            }],
            repartition_sink_topics: &[],
            state_changelog_topics: &[InternalTopicInfo {
                name: "dekaf-demo-counts-changelog",
                partitions: 0,
                configs: &[("cleanup.policy", "compact")],
                store_configs: &[],
                derived: DerivedConfig::None,
            }],
            sink_topics: &["demo-word-counts"],
            copartition_groups: &[],
            stores: &[],
        },
    ],
};

/// Plays a processing thread: holds tasks, releases what is revoked or lost.
struct Thread {
    name: &'static str,
    member: MemberHandle,
    tasks: BTreeSet<TaskId>,
}

impl Thread {
    fn pump(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        while let Some(event) = self.member.try_next_event()? {
            match event {
                MemberEvent::Assigned { active, .. } => {
                    self.tasks.extend(active.iter().copied());
                    println!(
                        "{}: assigned {} -> now runs {}",
                        self.name,
                        list(&active),
                        self.running()
                    );
                }
                MemberEvent::Revoked(tasks) => {
                    for t in &tasks {
                        self.tasks.remove(t);
                    }
                    println!(
                        "{}: revoked {} (committed and closed; released) -> now runs {}",
                        self.name,
                        list(&tasks),
                        self.running()
                    );
                    self.member.release(tasks);
                }
                MemberEvent::Lost(tasks) => {
                    for t in &tasks {
                        self.tasks.remove(t);
                    }
                    println!(
                        "{}: lost {} (dropped without commit)",
                        self.name,
                        list(&tasks)
                    );
                    self.member.release(tasks);
                }
                MemberEvent::Status(statuses) => {
                    if statuses.is_empty() {
                        println!("{}: group status all clear", self.name);
                    }
                    for s in statuses {
                        println!("{}: group status {s}", self.name);
                    }
                }
            }
        }
        Ok(())
    }

    fn running(&self) -> String {
        list(&self.tasks.iter().copied().collect::<Vec<_>>())
    }
}

fn list(tasks: &[TaskId]) -> String {
    let names: Vec<String> = tasks.iter().map(ToString::to_string).collect();
    format!("[{}]", names.join(", "))
}

async fn pump_for(
    threads: &mut [&mut Thread],
    period: Duration,
) -> Result<(), Box<dyn std::error::Error>> {
    let until = tokio::time::Instant::now() + period;
    while tokio::time::Instant::now() < until {
        for t in threads.iter_mut() {
            t.pump()?;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let bootstrap = std::env::var("DEKAF_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".into());

    let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
        .set("bootstrap.servers", &bootstrap)
        .create()?;
    let created = admin
        .create_topics(
            &[NewTopic::new(
                "demo-sentences",
                3,
                TopicReplication::Fixed(1),
            )],
            &AdminOptions::new(),
        )
        .await?;
    for r in created {
        match r {
            Ok(topic) => println!("created topic {topic} with 3 partitions"),
            Err((topic, RDKafkaErrorCode::TopicAlreadyExists)) => println!("topic {topic} exists"),
            Err((topic, e)) => return Err(format!("creating {topic}: {e}").into()),
        }
    }

    println!("thread-1 joins streams group `{}`", TOPOLOGY.application_id);
    let mut one = Thread {
        name: "thread-1",
        member: MemberHandle::join(&TOPOLOGY, MemberConfig::new(&bootstrap)).await?,
        tasks: BTreeSet::new(),
    };
    println!(
        "thread-1 is member {} at epoch {}",
        one.member.member_id(),
        one.member.member_epoch()
    );
    pump_for(&mut [&mut one], Duration::from_secs(3)).await?;

    println!("thread-2 joins: the coordinator moves tasks once thread-1 released them");
    let mut two = Thread {
        name: "thread-2",
        member: MemberHandle::join(&TOPOLOGY, MemberConfig::new(&bootstrap)).await?,
        tasks: BTreeSet::new(),
    };
    pump_for(&mut [&mut one, &mut two], Duration::from_secs(4)).await?;

    println!("thread-1 leaves the group: its tasks go to thread-2 at once");
    one.member.close().await?;
    pump_for(&mut [&mut two], Duration::from_secs(3)).await?;

    println!("thread-2 runs {}; leaving", two.running());
    two.member.close().await?;
    Ok(())
}
