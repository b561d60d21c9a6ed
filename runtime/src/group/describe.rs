//! Describing a streams group (StreamsGroupDescribe): its state, topology and members.

use super::connection::error_name;
use super::coordinator::{CoordinatorConfig, connect_to_coordinator};
use super::error::GroupError;
use crate::protocol::describe::{
    self, DescribedGroup, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse,
};

/// Asks the coordinator of `group_id` to describe the streams group: state, epochs, the stored
/// topology (with the partition counts of its internal topics) and every member's assignment.
pub async fn describe_streams_group(
    config: &CoordinatorConfig,
    group_id: &str,
) -> Result<DescribedGroup, GroupError> {
    let mut conn = connect_to_coordinator(config, group_id).await?;
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
    let group = response
        .groups
        .into_iter()
        .find(|g| g.group_id == group_id)
        .ok_or_else(|| GroupError::Rejected {
            api: "StreamsGroupDescribe",
            group: group_id.to_owned(),
            code: "NONE (0)".into(),
            message: "the response did not describe the group".into(),
        })?;
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
