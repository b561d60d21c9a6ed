//! At-least-once offset commits on behalf of a streams-group member.
//!
//! A streams group accepts a plain OffsetCommit only from a current member: version 9 or later,
//! with the member id and epoch (a "simple" commit without a member is refused while the group
//! has members). librdkafka cannot send that for a member it did not join itself, so the commit
//! goes over the runtime's own connection to the group coordinator.

use kafka_protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use kafka_protocol::messages::{GroupId, OffsetCommitRequest, TopicName};
use kafka_protocol::protocol::StrBytes;
use rdkafka::{Offset, TopicPartitionList};

use kafka_protocol::ResponseError;

use super::refusal::MemberRefusal;
use crate::group::GroupError;
use crate::group::connection::{BrokerConnection, error_name};
use crate::group::coordinator::{CoordinatorConfig, connect_to_coordinator};
use crate::protocol::responses::OffsetCommitResponse;

/// Api key of OffsetCommit.
const OFFSET_COMMIT: i16 = 8;
/// The first version that carries a member epoch.
const MIN_VERSION: i16 = 9;

/// Why offsets were not committed.
#[derive(Debug, thiserror::Error)]
pub enum OffsetCommitError {
    /// The coordinator refused the member's epoch: stale (it moved on, commit again) or fenced
    /// (its tasks may have moved; the member drops them and rejoins).
    #[error(
        "the coordinator refused the offsets of member {member_id} at epoch {epoch}: {code}; \
         the member commits again with its current epoch (stale) or drops its tasks and rejoins (fenced)"
    )]
    MemberRefused {
        /// The member.
        member_id: String,
        /// The epoch it used.
        epoch: i32,
        /// The error's name.
        code: String,
        /// Stale or fenced.
        refusal: MemberRefusal,
    },
    /// The coordinator refused the commit for another reason.
    #[error("committing offsets of {topic}[{partition}] failed: {code}")]
    Refused {
        /// The topic.
        topic: String,
        /// The partition.
        partition: i32,
        /// The error's name.
        code: String,
    },
    /// The coordinator kept answering that it moved or is not ready, also after it was looked
    /// up again (a broker restarting): the commit is tried again after a pause.
    #[error(
        "the group coordinator is moving or not ready ({code}, also after finding it again); \
         the commit is tried again"
    )]
    CoordinatorUnavailable {
        /// The error's name.
        code: String,
    },
    /// The coordinator could not be reached or does not serve OffsetCommit v9.
    #[error(transparent)]
    Group(#[from] GroupError),
}

impl OffsetCommitError {
    /// Whether (and how) the coordinator refused the member's epoch: not an application
    /// failure.
    pub(crate) fn refusal(&self) -> Option<MemberRefusal> {
        match self {
            OffsetCommitError::MemberRefused { refusal, .. } => Some(*refusal),
            _ => None,
        }
    }

    /// Whether a later attempt may succeed: the coordinator moving, loading or unreachable.
    pub(crate) fn is_transient(&self) -> bool {
        match self {
            OffsetCommitError::CoordinatorUnavailable { .. } => true,
            OffsetCommitError::Group(e) => {
                e.is_transient() || matches!(e, GroupError::NoBroker { .. })
            }
            _ => false,
        }
    }
}

/// Commits offsets to the group coordinator for one member.
#[derive(Debug)]
pub(crate) struct OffsetCommitter {
    config: CoordinatorConfig,
    group_id: String,
    connection: Option<BrokerConnection>,
}

impl OffsetCommitter {
    pub(crate) fn new(config: CoordinatorConfig, group_id: &str) -> Self {
        OffsetCommitter {
            config,
            group_id: group_id.to_owned(),
            connection: None,
        }
    }

    /// Commits `offsets` (next offsets to read, metadata per partition) as `member_id` at
    /// `epoch`. Retries once through a coordinator move.
    pub(crate) async fn commit(
        &mut self,
        member_id: &str,
        epoch: i32,
        offsets: &TopicPartitionList,
    ) -> Result<(), OffsetCommitError> {
        if offsets.count() == 0 {
            return Ok(());
        }
        let request = request(&self.group_id, member_id, epoch, offsets);
        for attempt in 0..2 {
            let connection = match self.connection.as_mut() {
                Some(c) => c,
                None => self
                    .connection
                    .insert(connect_to_coordinator(&self.config, &self.group_id).await?),
            };
            let Some(version) = connection.pick_version(OFFSET_COMMIT, (MIN_VERSION, 9)) else {
                return Err(OffsetCommitError::Refused {
                    topic: String::new(),
                    partition: -1,
                    code:
                        "the coordinator does not serve OffsetCommit v9, which streams groups need"
                            .into(),
                });
            };
            let response: Result<OffsetCommitResponse, GroupError> = connection
                .send(OFFSET_COMMIT, version, &request, "OffsetCommit")
                .await;
            let response = match response {
                Ok(r) => r,
                Err(e) if attempt == 0 && e.is_transient() => {
                    self.connection = None;
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            match check(&response, member_id, epoch) {
                Err(Check::Retry(_)) if attempt == 0 => {
                    self.connection = None;
                    continue;
                }
                Err(Check::Retry(code)) => {
                    return Err(OffsetCommitError::CoordinatorUnavailable { code });
                }
                Err(Check::Failed(e)) => return Err(e),
                Ok(()) => return Ok(()),
            }
        }
        Ok(())
    }
}

enum Check {
    /// The coordinator moved, is loading or did not answer in time: find it and ask again.
    Retry(String),
    Failed(OffsetCommitError),
}

fn check(response: &OffsetCommitResponse, member_id: &str, epoch: i32) -> Result<(), Check> {
    for topic in &response.topics {
        for p in &topic.partitions {
            let code = p.error_code;
            if code == 0 {
                continue;
            }
            let refused = |refusal| {
                Check::Failed(OffsetCommitError::MemberRefused {
                    member_id: member_id.to_owned(),
                    epoch,
                    code: error_name(code),
                    refusal,
                })
            };
            return Err(match ResponseError::try_from_code(code) {
                Some(
                    ResponseError::NotCoordinator
                    | ResponseError::CoordinatorNotAvailable
                    | ResponseError::CoordinatorLoadInProgress
                    | ResponseError::RequestTimedOut
                    | ResponseError::NetworkException,
                ) => Check::Retry(error_name(code)),
                Some(ResponseError::StaleMemberEpoch | ResponseError::IllegalGeneration) => {
                    refused(MemberRefusal::Stale)
                }
                Some(ResponseError::UnknownMemberId | ResponseError::FencedMemberEpoch) => {
                    refused(MemberRefusal::Fenced)
                }
                _ => Check::Failed(OffsetCommitError::Refused {
                    topic: topic.name.clone(),
                    partition: p.partition_index,
                    code: error_name(code),
                }),
            });
        }
    }
    Ok(())
}

fn request(
    group_id: &str,
    member_id: &str,
    epoch: i32,
    offsets: &TopicPartitionList,
) -> OffsetCommitRequest {
    let mut topics: Vec<OffsetCommitRequestTopic> = Vec::new();
    for elem in offsets.elements() {
        let Offset::Offset(offset) = elem.offset() else {
            continue;
        };
        let partition = OffsetCommitRequestPartition::default()
            .with_partition_index(elem.partition())
            .with_committed_offset(offset)
            .with_committed_leader_epoch(-1)
            .with_committed_metadata(Some(StrBytes::from_string(elem.metadata().to_owned())));
        match topics.iter_mut().find(|t| t.name.as_str() == elem.topic()) {
            Some(t) => t.partitions.push(partition),
            None => topics.push(
                OffsetCommitRequestTopic::default()
                    .with_name(TopicName(StrBytes::from_string(elem.topic().to_owned())))
                    .with_partitions(vec![partition]),
            ),
        }
    }
    OffsetCommitRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(group_id.to_owned())))
        .with_generation_id_or_member_epoch(epoch)
        .with_member_id(StrBytes::from_string(member_id.to_owned()))
        .with_retention_time_ms(-1)
        .with_topics(topics)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::responses::{OffsetCommitPartition, OffsetCommitTopic};

    fn answer(code: ResponseError) -> Result<(), Check> {
        let response = OffsetCommitResponse {
            topics: vec![OffsetCommitTopic {
                name: "t".into(),
                partitions: vec![OffsetCommitPartition {
                    partition_index: 3,
                    error_code: code.code(),
                }],
            }],
        };
        check(&response, "m", 7)
    }

    #[test]
    fn the_member_epoch_errors_are_told_apart_by_code() {
        let refusal = |code| match answer(code) {
            Err(Check::Failed(e)) => e.refusal(),
            _ => panic!("{code:?} is a failure"),
        };
        for code in [
            ResponseError::StaleMemberEpoch,
            ResponseError::IllegalGeneration,
        ] {
            assert_eq!(refusal(code), Some(MemberRefusal::Stale), "{code:?}");
        }
        for code in [
            ResponseError::FencedMemberEpoch,
            ResponseError::UnknownMemberId,
        ] {
            assert_eq!(refusal(code), Some(MemberRefusal::Fenced), "{code:?}");
        }
        for code in [
            ResponseError::NotCoordinator,
            ResponseError::CoordinatorNotAvailable,
            ResponseError::CoordinatorLoadInProgress,
            ResponseError::RequestTimedOut,
        ] {
            assert!(matches!(answer(code), Err(Check::Retry(_))), "{code:?}");
        }
        match answer(ResponseError::GroupAuthorizationFailed) {
            Err(Check::Failed(OffsetCommitError::Refused {
                topic, partition, ..
            })) => {
                assert_eq!((topic.as_str(), partition), ("t", 3));
            }
            _ => panic!("an authorization failure is refused for good"),
        }
    }
}
