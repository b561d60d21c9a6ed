//! Deleting a group (DeleteGroups) at its coordinator, over this crate's own connection.
//!
//! librdkafka's `DeleteGroups` is a coordinator request whose error path can abort the whole
//! process (`rd_kafka_enq_once_del_source_return: Assertion 'eonce->refcnt > 0' failed`, when
//! the coordinator connection drops mid-request: librdkafka issue #4605, fix proposed in PR
//! #5397). The clean-clone CI hit it once in `reset_application`, so the reset deletes the
//! group itself.

use std::time::{Duration, Instant};

use kafka_protocol::messages::{DeleteGroupsRequest, GroupId};
use kafka_protocol::protocol::StrBytes;

use super::coordinator::{Backoff, CoordinatorConfig, connect_to_coordinator};
use super::error::GroupError;
use crate::protocol::responses::DeleteGroupsResponse;

/// DeleteGroups' API key.
const DELETE_GROUPS: i16 = 42;
/// GROUP_ID_NOT_FOUND.
const GROUP_ID_NOT_FOUND: i16 = 69;
/// NON_EMPTY_GROUP.
const NON_EMPTY_GROUP: i16 = 68;
/// COORDINATOR_LOAD_IN_PROGRESS, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR: ask again.
const RETRIABLE: [i16; 3] = [14, 15, 16];

/// What a group deletion found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deletion {
    /// The group was deleted.
    Deleted,
    /// There was no such group.
    NotFound,
    /// Members are still in the group.
    NotEmpty,
}

/// Deletes the group `group_id` at its coordinator. Asks again, with backoff, while the
/// coordinator moves or loads or a connection fails, until `timeout` has passed.
pub async fn delete_group(
    config: &CoordinatorConfig,
    group_id: &str,
    timeout: Duration,
) -> Result<Deletion, GroupError> {
    let deadline = Instant::now() + timeout;
    let mut backoff = Backoff::new();
    loop {
        let outcome = delete_once(config, group_id).await;
        let retry = match &outcome {
            Ok(code) => RETRIABLE.contains(code),
            Err(e) => e.is_transient(),
        };
        if !retry || Instant::now() >= deadline {
            return match outcome? {
                0 => Ok(Deletion::Deleted),
                GROUP_ID_NOT_FOUND => Ok(Deletion::NotFound),
                NON_EMPTY_GROUP => Ok(Deletion::NotEmpty),
                code => Err(GroupError::Rejected {
                    api: "DeleteGroups",
                    group: group_id.to_owned(),
                    code: super::connection::error_name(code),
                    message: String::new(),
                }),
            };
        }
        tokio::time::sleep(backoff.next_delay()).await;
    }
}

/// One DeleteGroups of `group_id` at its coordinator: the group's error code.
async fn delete_once(config: &CoordinatorConfig, group_id: &str) -> Result<i16, GroupError> {
    let mut conn = connect_to_coordinator(config, group_id).await?;
    let Some(version) = conn.pick_version(DELETE_GROUPS, (0, 2)) else {
        return Err(GroupError::Rejected {
            api: "DeleteGroups",
            group: group_id.to_owned(),
            code: "UNSUPPORTED_VERSION".into(),
            message: "the coordinator serves no DeleteGroups version this client speaks".into(),
        });
    };
    let request = DeleteGroupsRequest::default()
        .with_groups_names(vec![GroupId(StrBytes::from_string(group_id.to_owned()))]);
    let response: DeleteGroupsResponse = conn
        .send(DELETE_GROUPS, version, &request, "DeleteGroups")
        .await?;
    Ok(response
        .results
        .iter()
        .find(|r| r.group_id == group_id)
        .map_or(GROUP_ID_NOT_FOUND, |r| r.error_code))
}
