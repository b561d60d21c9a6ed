//! Describing a streams group (StreamsGroupDescribe): its state, topology and members.

use super::connection::{BrokerConnection, error_name};
use super::coordinator::{CoordinatorConfig, connect_to_coordinator};
use super::error::GroupError;
use crate::protocol::describe::{
    self, DescribedGroup, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse,
};

/// GROUP_ID_NOT_FOUND: no streams group of that id.
const GROUP_ID_NOT_FOUND: i16 = 69;
/// COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: ask again.
const RETRIABLE: [i16; 3] = [14, 15, 16];

/// Asks the coordinator of `group_id` to describe the streams group: state, epochs, the stored
/// topology (with the partition counts of its internal topics) and every member's assignment.
pub async fn describe_streams_group(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<DescribedGroup, GroupError> {
    let group = describe_once(config, group_id).await?;
    check(group_id, group)
}

/// As [`describe_streams_group`], but `None` when there is no streams group `group_id`
/// (GROUP_ID_NOT_FOUND: never created, deleted, or a group of another type). Asks again while
/// the coordinator moves or loads, until `config.connect_timeout` has passed.
pub async fn describe_streams_group_if_exists(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<Option<DescribedGroup>, GroupError> {
    let deadline = std::time::Instant::now() + config.connect_timeout;
    let mut backoff = super::coordinator::Backoff::new();
    loop {
        let group = describe_once(config, group_id).await?;
        match group.error_code {
            GROUP_ID_NOT_FOUND => return Ok(None),
            code if RETRIABLE.contains(&code) && std::time::Instant::now() < deadline => {
                tokio::time::sleep(backoff.next_delay()).await;
            }
            _ => return check(group_id, group).map(Some),
        }
    }
}

/// The group's description, or its error.
fn check(group_id: &str, group: DescribedGroup) -> Result<DescribedGroup, GroupError> {
    if group.error_code != 0 {
        return Err(GroupError::Rejected {
            api: "StreamsGroupDescribe",
            group: group_id.to_owned(),
            code: error_name(group.error_code),
            message: group.error_message.unwrap_or_default(),
        });
    }
    Ok(group)
}

/// One StreamsGroupDescribe of `group_id` at its coordinator; the group's error code unchecked.
async fn describe_once(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<DescribedGroup, GroupError> {
    let mut conn = connect_to_coordinator(config, group_id).await?;
    describe_on(&mut conn, group_id).await
}

/// One StreamsGroupDescribe of `group_id` on `conn` (a connection to its coordinator); the
/// group's error code unchecked.
pub(crate) async fn describe_on(
    conn: &mut BrokerConnection,
    group_id: &str,
) -> Result<DescribedGroup, GroupError> {
    let request = StreamsGroupDescribeRequest {
        group_ids: vec![group_id.to_owned()],
        include_authorized_operations: false,
    };
    let body = request
        .encode(describe::VERSION)
        .map_err(|e| conn.decode_error("StreamsGroupDescribe", e))?;
    let bytes = conn
        .send_flexible(
            describe::API_KEY,
            describe::VERSION,
            &body,
            "StreamsGroupDescribe",
        )
        .await?;
    let response = StreamsGroupDescribeResponse::decode(&bytes, describe::VERSION)
        .map_err(|e| conn.decode_error("StreamsGroupDescribe", e))?;
    response
        .groups
        .into_iter()
        .find(|g| g.group_id == group_id)
        .ok_or_else(|| GroupError::Rejected {
            api: "StreamsGroupDescribe",
            group: group_id.to_owned(),
            code: "NONE (0)".into(),
            message: "the response did not describe the group".into(),
        })
}
