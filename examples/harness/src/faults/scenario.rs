//! One fault scenario: fresh topics (replicated on every node), instances as child processes,
//! input produced while the fault happens, then the independent exactly-once check.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dekaf_streams::ClientSettings;
use dekaf_streams::reset_application;
use rdkafka::ClientConfig;
use rdkafka::admin::{AdminClient, AdminOptions, NewTopic, TopicReplication};
use rdkafka::client::DefaultClientContext;
use rdkafka::producer::{BaseRecord, DefaultProducerContext, Producer, ThreadedProducer};

use super::cluster::{Cluster, Security};
use super::instance::{Instance, InstanceSettings};
use super::verify;
use crate::e2e::sentences;

/// Partitions of the input topic (and so tasks per subtopology).
pub const INPUT_PARTITIONS: i32 = 6;

/// A scenario's settings.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The cluster it runs on.
    pub cluster: Cluster,
    /// The application id (one of [`super::APPLICATIONS`]); topics `<id>-in`, `<id>-out`.
    pub application: String,
    /// The `fault-instance` binary.
    pub binary: PathBuf,
    /// Instances started at the beginning.
    pub instances: usize,
    /// Sentences produced in all (1 to 8 words each).
    pub sentences: usize,
    /// How long producing them takes (the fault happens meanwhile).
    pub produce_over: Duration,
    /// Seed of the sentences.
    pub seed: u64,
    /// Where the instances' logs go.
    pub log_dir: PathBuf,
    /// How the instances, the input producer and the verifier connect.
    pub security: Security,
}

/// What a scenario found.
#[derive(Debug)]
pub struct Outcome {
    /// Sentences produced and acknowledged.
    pub produced: usize,
    /// Distinct words in the input.
    pub words: usize,
    /// Exactly-once violations (empty when exact).
    pub problems: Vec<String>,
    /// Instances that exited by themselves during the run (they must not).
    pub exited: Vec<String>,
}

impl Outcome {
    /// Exact, and no instance gave up.
    pub fn exact(&self) -> bool {
        self.problems.is_empty() && self.exited.is_empty() && self.words > 0
    }
}

/// A running scenario: its instances, the producer in the background, and progress.
pub struct Run {
    /// The scenario.
    pub scenario: Scenario,
    /// The instances (the fault may kill and restart them).
    pub instances: Vec<Instance>,
    producer: Option<JoinHandle<Result<usize, String>>>,
    /// Sentences sent so far.
    pub sent: Arc<AtomicUsize>,
}

impl Scenario {
    fn input(&self) -> String {
        format!("{}-in", self.application)
    }

    fn output(&self) -> String {
        format!("{}-out", self.application)
    }

    /// Deletes the group, internal and own topics of an earlier run and creates the topics
    /// afresh with the brokers' default replication (every node).
    pub async fn prepare(&self) -> Result<(), String> {
        let bootstrap = self.cluster.bootstrap();
        let settings = ClientSettings::new(&bootstrap);
        let started = Instant::now();
        while let Err(e) = reset_application(&settings, &self.application).await {
            if started.elapsed() > Duration::from_secs(90) {
                return Err(format!("resetting {}: {e}", self.application));
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        let admin: AdminClient<DefaultClientContext> = ClientConfig::new()
            .set("bootstrap.servers", &bootstrap)
            .create()
            .map_err(|e| e.to_string())?;
        let (input, output) = (self.input(), self.output());
        let _ = admin
            .delete_topics(&[&input, &output], &AdminOptions::new())
            .await;
        let topics = [
            NewTopic::new(&input, INPUT_PARTITIONS, TopicReplication::Fixed(3)),
            NewTopic::new(&output, 3, TopicReplication::Fixed(3)),
        ];
        let started = Instant::now();
        loop {
            let created = admin.create_topics(&topics, &AdminOptions::new()).await;
            let all = created.is_ok_and(|results| results.iter().all(Result::is_ok));
            if all {
                return Ok(());
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("cannot create {input} and {output}"));
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Starts the instances and the producer.
    pub fn start(&self) -> Run {
        self.start_with(|_| InstanceSettings::default())
    }

    /// The bootstrap list and client properties of [`security`](Self::security).
    pub fn client(&self) -> Client {
        Client {
            bootstrap: self.cluster.bootstrap_for(self.security),
            properties: self.cluster.client_properties(self.security),
        }
    }

    /// [`start`](Self::start), instance `i` with `settings(i)` (and the scenario's
    /// [`security`](Self::security)).
    pub fn start_with(&self, settings: impl Fn(usize) -> InstanceSettings) -> Run {
        std::fs::create_dir_all(&self.log_dir).expect("log directory");
        let client = self.client();
        let instances = (0..self.instances)
            .map(|i| {
                let mut settings = settings(i);
                settings
                    .properties
                    .extend(client.properties.iter().cloned());
                Instance::start_with(
                    &self.binary,
                    &self.application,
                    &client.bootstrap,
                    &self.log_dir.join(format!("{}-{i}.log", self.application)),
                    settings,
                )
            })
            .collect();
        let sent = Arc::new(AtomicUsize::new(0));
        let producer = {
            let (topic, sent) = (self.input(), sent.clone());
            let (n, seed, over) = (self.sentences, self.seed, self.produce_over);
            std::thread::spawn(move || produce(&client, &topic, n, seed, over, &sent))
        };
        Run {
            scenario: self.clone(),
            instances,
            producer: Some(producer),
            sent,
        }
    }
}

impl Run {
    /// Waits until the producer has sent `fraction` of the input (the "mid-run" point).
    pub fn await_sent(&self, fraction: f64) {
        let target = (self.scenario.sentences as f64 * fraction) as usize;
        while self.sent.load(Ordering::Relaxed) < target {
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (up to `limit`) until every instance runs tasks as a member of the group (see
    /// [`Instance::await_running`]); whether they all got there.
    pub fn await_running(&mut self, limit: Duration) -> bool {
        let deadline = std::time::Instant::now() + limit;
        self.instances.iter_mut().all(|instance| {
            instance.await_running(deadline.saturating_duration_since(std::time::Instant::now()))
        })
    }

    /// Waits for the producer, checks exactly-once output with the independent reader, and
    /// stops the instances.
    pub fn finish(self, timeout: Duration) -> Result<Outcome, String> {
        self.finish_checking(timeout, verify::problems)
    }

    /// [`finish`](Self::finish) with another check of the updates against the input's counts
    /// (for at-least-once, [`verify::losses`]).
    pub fn finish_checking(
        mut self,
        timeout: Duration,
        check: fn(&verify::Updates, &HashMap<String, i64>) -> Vec<String>,
    ) -> Result<Outcome, String> {
        let produced = self
            .producer
            .take()
            .map(|p| p.join().map_err(|_| "the producer panicked".to_owned())?)
            .unwrap_or(Ok(0))?;
        let client = self.scenario.client();
        let expected = verify::count_input(&client, &self.scenario.input(), timeout)?;
        let updates = verify::read_counts(&client, &self.scenario.output(), &expected, timeout)?;
        let problems = check(&updates, &expected);
        if !problems.is_empty() {
            // Where everything stood while the output was still wrong: each instance's thread
            // stacks and the brokers' logs, into the run's log directory.
            for (i, instance) in self.instances.iter_mut().enumerate() {
                if instance.exited().is_none() {
                    let to = self.scenario.log_dir.join(format!("stacks-{i}.txt"));
                    if let Err(e) = instance.dump_stacks(&to) {
                        eprintln!("instance {i}: no stacks: {e}");
                    }
                }
            }
            self.scenario
                .cluster
                .save_broker_logs(&self.scenario.log_dir);
        }
        let mut exited = Vec::new();
        for (i, instance) in self.instances.iter_mut().enumerate() {
            if let Some(status) = instance.exited() {
                exited.push(format!(
                    "instance {i} exited by itself: {status}: {}",
                    instance.exit_reason()
                ));
            }
        }
        for instance in self.instances {
            let _ = instance.terminate();
        }
        Ok(Outcome {
            produced,
            words: expected.len(),
            problems,
            exited,
        })
    }
}

/// Where and how a plain rdkafka client of the harness connects.
#[derive(Debug, Clone)]
pub struct Client {
    /// The bootstrap list.
    pub bootstrap: String,
    /// Properties besides `bootstrap.servers` (security).
    pub properties: Vec<(&'static str, String)>,
}

impl Client {
    /// A librdkafka configuration with the bootstrap list and the properties.
    pub fn config(&self) -> ClientConfig {
        let mut config = ClientConfig::new();
        config.set("bootstrap.servers", &self.bootstrap);
        for (name, value) in &self.properties {
            config.set(*name, value);
        }
        config
    }
}

/// Produces `n` sentences (keys `s0`, `s1`, …) to `topic`, evenly over `over`, with an
/// idempotent producer that waits for every in-sync replica; counts them in `sent`.
fn produce(
    client: &Client,
    topic: &str,
    n: usize,
    seed: u64,
    over: Duration,
    sent: &AtomicUsize,
) -> Result<usize, String> {
    let producer: ThreadedProducer<DefaultProducerContext> = client
        .config()
        .set("enable.idempotence", "true")
        .set("acks", "all")
        .set("linger.ms", "5")
        .set("message.timeout.ms", "300000")
        .create()
        .map_err(|e| format!("producer: {e}"))?;
    let input = sentences(n, 300, seed);
    let batches = 50;
    let per_batch = n.div_ceil(batches);
    let started = Instant::now();
    for (b, batch) in input.chunks(per_batch).enumerate() {
        for (i, sentence) in batch.iter().enumerate() {
            let key = format!("s{}", b * per_batch + i);
            let mut record = BaseRecord::to(topic).key(&key).payload(sentence);
            loop {
                match producer.send(record) {
                    Ok(()) => break,
                    Err((_, r)) => {
                        // Queue full (brokers down): wait for room.
                        record = r;
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
            }
            sent.fetch_add(1, Ordering::Relaxed);
        }
        let due = over.mul_f64((b + 1) as f64 / batches as f64);
        if let Some(wait) = due.checked_sub(started.elapsed()) {
            std::thread::sleep(wait);
        }
    }
    producer
        .flush(Duration::from_secs(300))
        .map_err(|e| format!("input not acknowledged: {e}"))?;
    Ok(n)
}
