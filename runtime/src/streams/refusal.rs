//! How the group coordinator refuses a member's offsets because of its epoch, in both kinds of
//! commit: offsets added to a transaction ([`commit`](super::commit)) and the at-least-once
//! OffsetCommit ([`offset_commit`](super::offset_commit)).

use rdkafka::types::RDKafkaErrorCode;

/// How the group coordinator refused the offsets of a commit because of the member's epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberRefusal {
    /// The coordinator knows the member but holds another epoch: the epoch moved on between
    /// reading it and the commit (a heartbeat brought a new assignment). Kafka 4.4's streams
    /// group answers `STALE_MEMBER_EPOCH` to any epoch mismatch of a known member
    /// (`StreamsGroup.validateOffsetCommit`), and a TxnOffsetCommit gets it as
    /// `ILLEGAL_GENERATION` (checked on the broker: `runtime/tests/streams_group.rs`). The member
    /// still owns its tasks: redo the interval and commit with the current epoch.
    Stale,
    /// `UNKNOWN_MEMBER_ID`, `FENCED_MEMBER_EPOCH`: the coordinator no longer counts this member
    /// as the owner of its tasks. Drop them all and rejoin, as Kafka Streams does after a
    /// `TaskMigratedException` (`handleLostAll`, then rejoin).
    Fenced,
}

/// Whether `code` is the coordinator refusing the member's epoch, and how.
pub(crate) fn member_refusal(code: RDKafkaErrorCode) -> Option<MemberRefusal> {
    match code {
        RDKafkaErrorCode::StaleMemberEpoch | RDKafkaErrorCode::IllegalGeneration => {
            Some(MemberRefusal::Stale)
        }
        RDKafkaErrorCode::FencedMemberEpoch | RDKafkaErrorCode::UnknownMemberId => {
            Some(MemberRefusal::Fenced)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_epoch_is_redone_and_a_fenced_member_rejoins() {
        for code in [
            RDKafkaErrorCode::StaleMemberEpoch,
            RDKafkaErrorCode::IllegalGeneration,
        ] {
            assert_eq!(member_refusal(code), Some(MemberRefusal::Stale), "{code:?}");
        }
        for code in [
            RDKafkaErrorCode::FencedMemberEpoch,
            RDKafkaErrorCode::UnknownMemberId,
        ] {
            assert_eq!(
                member_refusal(code),
                Some(MemberRefusal::Fenced),
                "{code:?}"
            );
        }
        for code in [
            RDKafkaErrorCode::NotCoordinator,
            RDKafkaErrorCode::GroupAuthorizationFailed,
            RDKafkaErrorCode::ConcurrentTransactions,
        ] {
            assert_eq!(member_refusal(code), None, "{code:?}");
        }
    }
}
