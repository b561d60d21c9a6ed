//! Partition counts from the cluster's metadata: one lookup, shared by the partitioners' counts,
//! the sources of several topics and the queries' task counts.

use std::time::Duration;

use rdkafka::client::{Client, ClientContext};
use rdkafka::error::KafkaResult;

/// The partition count of `topic` (a blocking metadata request): `None` when the cluster does
/// not know the topic or it has no partitions.
pub(crate) fn partition_count<C: ClientContext>(
    client: &Client<C>,
    topic: &str,
    timeout: Duration,
) -> KafkaResult<Option<u32>> {
    let metadata = client.fetch_metadata(Some(topic), timeout)?;
    Ok(metadata
        .topics()
        .iter()
        .find(|t| t.name() == topic && t.error().is_none())
        .and_then(|t| u32::try_from(t.partitions().len()).ok())
        .filter(|n| *n > 0))
}
