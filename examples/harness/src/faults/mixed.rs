//! The mixed fault plan of the `fault-kill-loop --mixed` runs: instance SIGKILLs and SIGKILLs of
//! the broker leading an input partition, of the group coordinator's broker and of a
//! transaction coordinator's broker, in random order and timing, each killed broker started
//! again a few seconds later and caught up before the next broker fault (at most one broker
//! down at a time, as `min.insync.replicas=2` of three allows).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::cluster::Cluster;
use super::scenario::Run;

/// One kind of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// SIGKILL of an instance, started again at once.
    Instance,
    /// SIGKILL of the broker leading a random input partition.
    InputLeader,
    /// SIGKILL of the broker coordinating the streams group.
    GroupCoordinator,
    /// SIGKILL of the broker coordinating the transactions of a random processing thread.
    TransactionCoordinator,
}

impl Fault {
    /// Every kind, for drawing one.
    pub const ALL: [Fault; 4] = [
        Fault::Instance,
        Fault::InputLeader,
        Fault::GroupCoordinator,
        Fault::TransactionCoordinator,
    ];

    /// A short name for the reports.
    pub fn name(self) -> &'static str {
        match self {
            Fault::Instance => "instance",
            Fault::InputLeader => "input leader",
            Fault::GroupCoordinator => "group coordinator",
            Fault::TransactionCoordinator => "transaction coordinator",
        }
    }
}

/// How many faults of each kind landed, and on which brokers.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// Faults per kind.
    pub faults: BTreeMap<Fault, usize>,
    /// Broker kills per node.
    pub nodes: BTreeMap<u16, usize>,
    /// Faults drawn that could not land (their victim could not be found), per kind.
    pub missed: BTreeMap<Fault, usize>,
}

impl Tally {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Tally) {
        for (k, n) in &other.faults {
            *self.faults.entry(*k).or_default() += n;
        }
        for (k, n) in &other.nodes {
            *self.nodes.entry(*k).or_default() += n;
        }
        for (k, n) in &other.missed {
            *self.missed.entry(*k).or_default() += n;
        }
    }

    /// `instance 3, input leader 1, …; nodes 1:2 3:1`.
    pub fn summary(&self) -> String {
        let faults: Vec<String> = self
            .faults
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        let nodes: Vec<String> = self.nodes.iter().map(|(k, n)| format!("{k}:{n}")).collect();
        let missed: Vec<String> = self
            .missed
            .iter()
            .map(|(k, n)| format!("{} {n}", k.name()))
            .collect();
        let missed = if missed.is_empty() {
            String::new()
        } else {
            format!("; not landed: {}", missed.join(", "))
        };
        format!(
            "{}; broker kills per node {}{missed}",
            faults.join(", "),
            nodes.join(" ")
        )
    }
}

/// The `__transaction_state` partition of `transactional_id` among `partitions`, as Kafka's
/// `TransactionStateManager.partitionFor` computes it: `Utils.abs(id.hashCode()) % partitions`.
pub fn transaction_state_partition(transactional_id: &str, partitions: i32) -> i32 {
    let hash = transactional_id
        .encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)));
    let abs = if hash == i32::MIN { 0 } else { hash.abs() };
    abs % partitions.max(1)
}

/// Lands `fault` on `run`, drawing its victim with `random`; returns what it did, or why it
/// could not (then nothing happened). A broker fault returns once the broker is back and every
/// partition of the run's topics and of Kafka's internal topics is fully in sync.
pub fn land(
    fault: Fault,
    run: &mut Run,
    binary: &Path,
    threads: usize,
    random: &mut impl FnMut(u64) -> u64,
) -> Result<(String, Option<u16>), String> {
    let cluster: Cluster = run.scenario.cluster.clone();
    let application = run.scenario.application.clone();
    let input = format!("{application}-in");
    let node = match fault {
        Fault::Instance => {
            let victim = random(run.instances.len() as u64) as usize;
            run.instances[victim].kill_and_restart(binary);
            return Ok((format!("SIGKILL of instance {victim}"), None));
        }
        Fault::InputLeader => {
            let partition = random(super::scenario::INPUT_PARTITIONS as u64) as i32;
            cluster.leader_of(&input, partition)?
        }
        Fault::GroupCoordinator => {
            tokio::runtime::Handle::current().block_on(cluster.coordinator_of(&application))?
        }
        Fault::TransactionCoordinator => {
            let victim = random(run.instances.len() as u64) as usize;
            let thread = random(threads.max(1) as u64);
            let process_id = run.instances[victim]
                .process_id()
                .ok_or_else(|| format!("instance {victim} has not logged its process id yet"))?;
            let id = format!("{application}-{process_id}-{thread}");
            let partitions = cluster.partition_count("__transaction_state")?;
            let partition = transaction_state_partition(&id, partitions);
            cluster.leader_of("__transaction_state", partition)?
        }
    };
    cluster.kill_node(node)?;
    let down = Duration::from_millis(2_000 + random(4_000));
    std::thread::sleep(down);
    cluster.start_node(node)?;
    let topics = [
        input.as_str(),
        &format!("{application}-out"),
        "__consumer_offsets",
        "__transaction_state",
    ];
    cluster.await_in_sync(&topics, Duration::from_secs(120))?;
    tokio::runtime::Handle::current().block_on(cluster.await_quorum(Duration::from_secs(120)))?;
    Ok((
        format!("SIGKILL of node {node} ({}), down {down:.1?}", fault.name()),
        Some(node),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transaction_state_partitions_follow_javas_string_hash() {
        // "a".hashCode() = 97; "ab".hashCode() = 3105; "polygenelubricants".hashCode() =
        // Integer.MIN_VALUE, which Utils.abs maps to 0.
        assert_eq!(transaction_state_partition("a", 50), 97 % 50);
        assert_eq!(transaction_state_partition("ab", 3), 3105 % 3);
        assert_eq!(transaction_state_partition("polygenelubricants", 50), 0);
    }
}
