//! Helpers of the streams-group integration tests: the broker's address, topic administration,
//! topologies built at run time, and an owner that plays the runtime's part.

#![allow(dead_code)]

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use dekaf_streams::group::{
    BrokerConnection, GroupStatus, MemberConfig, MemberEvent, MemberHandle, TaskId,
};
use dekaf_streams::topology::{DerivedConfig, InternalTopicInfo, SubtopologyInfo, TopologyInfo};
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, ResourceSpecifier, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::consumer::{BaseConsumer, Consumer};

/// The broker under test: `DEKAF_BOOTSTRAP`, default `127.0.0.1:9092`.
pub(crate) fn bootstrap() -> String {
    std::env::var("DEKAF_BOOTSTRAP").unwrap_or_else(|_| "127.0.0.1:9092".to_owned())
}

/// Fails the test (never skips it) when no broker answers.
pub(crate) async fn require_broker() -> String {
    let addr = bootstrap();
    let first = addr.split(',').next().unwrap_or_default().to_owned();
    if let Err(e) = BrokerConnection::connect(
        &first,
        "dekaf-it",
        Duration::from_secs(5),
        &Default::default(),
    )
    .await
    {
        panic!(
            "no Kafka broker answers at {addr} ({e}).\n\
             These integration tests need a real Apache Kafka 4.4 broker. Start one with\n\
             `scripts/kafka.sh start` (port from DEKAF_KAFKA_PORT, default 9092) and export\n\
             DEKAF_BOOTSTRAP=127.0.0.1:<port>, or run everything with `scripts/test.sh`."
        );
    }
    addr
}

/// Logs of the library, once, at `RUST_LOG` (default `info` for dekaf_streams).
pub(crate) fn init_tracing() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("dekaf_streams=info")),
        )
        .with_test_writer()
        .try_init();
}

/// A unique application id.
pub(crate) fn app_id(test: &str) -> &'static str {
    leak(format!("it-{test}-{}", uuid::Uuid::new_v4().simple()))
}

pub(crate) fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

fn slice<T>(v: Vec<T>) -> &'static [T] {
    Box::leak(v.into_boxed_slice())
}

/// Settings a member of these tests uses: short rebalance timeout, fast failure.
pub(crate) fn member_config(bootstrap: &str) -> MemberConfig {
    let mut config = MemberConfig::new(bootstrap);
    config.client_id = "dekaf-it".into();
    config.rebalance_timeout = Duration::from_secs(30);
    config.connect_timeout = Duration::from_secs(20);
    config
}

pub(crate) const REPARTITION_CONFIGS: &[(&str, &str)] = &[
    ("cleanup.policy", "delete"),
    ("retention.ms", "-1"),
    ("segment.bytes", "52428800"),
];
pub(crate) const CHANGELOG_CONFIGS: &[(&str, &str)] = &[
    ("cleanup.policy", "compact"),
    ("min.compaction.lag.ms", "12345"),
];

/// `input` → subtopology 0 → `<app>-grouped-repartition` → subtopology 1 with store `counts`
/// (changelog `<app>-counts-changelog`). `variant` changes the store's name: another topology
/// under the same application id.
pub(crate) fn two_subtopologies(
    app: &'static str,
    input: &'static str,
    store: &str,
) -> &'static TopologyInfo {
    let repartition = leak(format!("{app}-grouped-repartition"));
    let changelog = leak(format!("{app}-{store}-changelog"));
    let subs = vec![
        SubtopologyInfo {
            id: "0",
            source_topics: slice(vec![input]),
            repartition_source_topics: &[],
            repartition_sink_topics: slice(vec![repartition]),
            state_changelog_topics: &[],
            sink_topics: &[],
            copartition_groups: &[],
            stores: &[],
        },
        SubtopologyInfo {
            id: "1",
            source_topics: &[],
            repartition_source_topics: slice(vec![InternalTopicInfo {
                name: repartition,
                partitions: 0,
                configs: REPARTITION_CONFIGS,
                store_configs: &[],
                derived: DerivedConfig::None,
            }]),
            repartition_sink_topics: &[],
            state_changelog_topics: slice(vec![InternalTopicInfo {
                name: changelog,
                partitions: 0,
                configs: CHANGELOG_CONFIGS,
                store_configs: &[],
                derived: DerivedConfig::None,
            }]),
            sink_topics: &[],
            copartition_groups: &[],
            stores: &[],
        },
    ];
    Box::leak(Box::new(TopologyInfo {
        application_id: app,
        subtopologies: slice(subs),
    }))
}

/// One subtopology reading `input`.
pub(crate) fn one_subtopology(app: &'static str, input: &'static str) -> &'static TopologyInfo {
    let subs = vec![SubtopologyInfo {
        id: "0",
        source_topics: slice(vec![input]),
        repartition_source_topics: &[],
        repartition_sink_topics: &[],
        state_changelog_topics: &[],
        sink_topics: &[],
        copartition_groups: &[],
        stores: &[],
    }];
    Box::leak(Box::new(TopologyInfo {
        application_id: app,
        subtopologies: slice(subs),
    }))
}

pub(crate) fn tasks(spec: &[(&'static str, i32)]) -> BTreeSet<TaskId> {
    spec.iter().map(|&(s, p)| TaskId::new(s, p)).collect()
}

pub(crate) fn all_tasks(subtopologies: &[&'static str], partitions: i32) -> BTreeSet<TaskId> {
    subtopologies
        .iter()
        .flat_map(|s| (0..partitions).map(move |p| TaskId::new(s, p)))
        .collect()
}

pub(crate) struct Admin {
    bootstrap: String,
    client: AdminClient<DefaultClientContext>,
}

impl Admin {
    pub(crate) fn new(bootstrap: &str) -> Admin {
        let client = ClientConfig::new()
            .set("bootstrap.servers", bootstrap)
            .create()
            .expect("admin client");
        Admin {
            bootstrap: bootstrap.to_owned(),
            client,
        }
    }

    pub(crate) async fn create_topic(&self, name: &str, partitions: i32) {
        let results = self
            .client
            .create_topics(
                &[NewTopic::new(name, partitions, TopicReplication::Fixed(1))],
                &AdminOptions::new(),
            )
            .await
            .expect("create topics");
        for r in results {
            r.unwrap_or_else(|(topic, e)| panic!("creating {topic}: {e}"));
        }
    }

    /// Partition count of `topic`, or `None` when it does not exist. The metadata request
    /// blocks, so it runs on tokio's blocking pool, off the workers that drive heartbeats.
    pub(crate) async fn partitions(&self, topic: &str) -> Option<usize> {
        let (bootstrap, topic) = (self.bootstrap.clone(), topic.to_owned());
        tokio::task::spawn_blocking(move || {
            let consumer: BaseConsumer = ClientConfig::new()
                .set("bootstrap.servers", &bootstrap)
                .create()
                .expect("metadata client");
            let md = consumer
                .fetch_metadata(Some(&topic), Duration::from_secs(10))
                .expect("metadata");
            md.topics()
                .iter()
                .find(|t| t.name() == topic && t.error().is_none())
                .map(|t| t.partitions().len())
        })
        .await
        .expect("metadata task")
    }

    /// Deletes `topics`, best effort (cleanup).
    pub(crate) async fn delete_topics(&self, topics: &[&str]) {
        let _ = self
            .client
            .delete_topics(topics, &AdminOptions::new())
            .await;
    }

    pub(crate) async fn configs(&self, topic: &str) -> HashMap<String, String> {
        let results = self
            .client
            .describe_configs(&[ResourceSpecifier::Topic(topic)], &AdminOptions::new())
            .await
            .expect("describe configs");
        let resource = results
            .into_iter()
            .next()
            .expect("one result")
            .unwrap_or_else(|e| panic!("configs of {topic}: {e:?}"));
        resource
            .entries
            .into_iter()
            .filter_map(|e| Some((e.name, e.value?)))
            .collect()
    }
}

/// Plays the runtime's part for one member: holds tasks, releases revoked ones after a delay.
pub(crate) struct Owner {
    pub name: &'static str,
    pub member: MemberHandle,
    /// Tasks this owner holds (open, processing).
    pub held: BTreeSet<TaskId>,
    pub release_delay: Duration,
    pending: Vec<(Instant, Vec<TaskId>)>,
    pub statuses: Vec<Vec<GroupStatus>>,
    pub revoked_total: BTreeSet<TaskId>,
    pub lost_total: BTreeSet<TaskId>,
}

impl Owner {
    pub(crate) fn new(name: &'static str, member: MemberHandle) -> Owner {
        Owner {
            name,
            member,
            held: BTreeSet::new(),
            release_delay: Duration::ZERO,
            pending: Vec::new(),
            statuses: Vec::new(),
            revoked_total: BTreeSet::new(),
            lost_total: BTreeSet::new(),
        }
    }

    /// Handles every waiting event and every release that is due; never blocks.
    pub(crate) fn pump(&mut self) {
        while let Some(event) = self
            .member
            .try_next_event()
            .unwrap_or_else(|e| panic!("{}: {e}", self.name))
        {
            match event {
                MemberEvent::Assigned { active, .. } => {
                    for t in active {
                        assert!(
                            self.held.insert(t),
                            "{}: task {t} assigned twice",
                            self.name
                        );
                    }
                }
                MemberEvent::Revoked(tasks) => {
                    self.revoked_total.extend(tasks.iter().copied());
                    self.pending
                        .push((Instant::now() + self.release_delay, tasks));
                }
                MemberEvent::Lost(tasks) => {
                    self.lost_total.extend(tasks.iter().copied());
                    for t in &tasks {
                        self.held.remove(t);
                    }
                    self.member.release(tasks);
                }
                MemberEvent::Status(s) => self.statuses.push(s),
            }
        }
        let now = Instant::now();
        let (due, later): (Vec<_>, Vec<_>) = std::mem::take(&mut self.pending)
            .into_iter()
            .partition(|(at, _)| *at <= now);
        self.pending = later;
        for (_, tasks) in due {
            for t in &tasks {
                self.held.remove(t);
            }
            self.member.release(tasks);
        }
    }

    pub(crate) fn has_pending_releases(&self) -> bool {
        !self.pending.is_empty()
    }
}

/// Pumps the owners every 20 ms, checking `invariant` each time, until `done` holds or `timeout`
/// passes (then panics with `what`).
pub(crate) async fn drive(
    owners: &mut [&mut Owner],
    timeout: Duration,
    what: &str,
    mut invariant: impl FnMut(&[&mut Owner]),
    mut done: impl FnMut(&[&mut Owner]) -> bool,
) -> Duration {
    let started = Instant::now();
    loop {
        for o in owners.iter_mut() {
            o.pump();
        }
        invariant(owners);
        if done(owners) {
            return started.elapsed();
        }
        if started.elapsed() > timeout {
            let state: Vec<String> = owners
                .iter()
                .map(|o| {
                    format!(
                        "{} holds {:?} (epoch {}), statuses {:?}",
                        o.name,
                        o.held,
                        o.member.member_epoch(),
                        o.statuses.last()
                    )
                })
                .collect();
            panic!(
                "timed out after {timeout:?} waiting for {what}: {}",
                state.join("; ")
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Pumps the owners for `period`, checking `invariant`.
pub(crate) async fn pump_for(
    owners: &mut [&mut Owner],
    period: Duration,
    mut invariant: impl FnMut(&[&mut Owner]),
) {
    let started = Instant::now();
    while started.elapsed() < period {
        for o in owners.iter_mut() {
            o.pump();
        }
        invariant(owners);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One test's application on the broker: a unique application id and its input topic.
pub(crate) struct TestApp {
    pub bootstrap: String,
    pub admin: Admin,
    pub app: &'static str,
    pub input: &'static str,
}

impl TestApp {
    /// Requires the broker and names the application after `test`; with `partitions`, creates
    /// its input topic `<app>-input`.
    pub(crate) async fn new(test: &str, partitions: Option<i32>) -> TestApp {
        init_tracing();
        let bootstrap = require_broker().await;
        let admin = Admin::new(&bootstrap);
        let app = app_id(test);
        let input = leak(format!("{app}-input"));
        if let Some(partitions) = partitions {
            admin.create_topic(input, partitions).await;
        }
        TestApp {
            bootstrap,
            admin,
            app,
            input,
        }
    }

    /// Joins member `name` with the tests' member settings ([`member_config`]).
    pub(crate) async fn join(&self, name: &'static str, topology: &'static TopologyInfo) -> Owner {
        self.join_with(name, topology, member_config(&self.bootstrap))
            .await
    }

    /// Joins member `name` with `config`.
    pub(crate) async fn join_with(
        &self,
        name: &'static str,
        topology: &'static TopologyInfo,
        config: MemberConfig,
    ) -> Owner {
        let member = MemberHandle::join(topology, config)
            .await
            .unwrap_or_else(|e| panic!("join {name}: {e}"));
        Owner::new(name, member)
    }
}

/// Drives `owner` alone until it holds exactly `expected` (30 s at most).
pub(crate) async fn hold(owner: &mut Owner, expected: &BTreeSet<TaskId>) {
    let what = format!("{} holds {expected:?}", owner.name);
    drive(
        &mut [owner],
        Duration::from_secs(30),
        &what,
        |_| {},
        |o| o[0].held == *expected,
    )
    .await;
}
