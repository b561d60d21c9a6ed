//! StreamsGroupDescribe (api key 89), version 0, from
//! `clients/src/main/resources/common/message/StreamsGroupDescribe{Request,Response}.json`
//! of Apache Kafka 4.4 (flexible encoding). Version 1 adds the topology description of a
//! broker-side plugin, which this crate does not use.

use super::common::{Endpoint, KeyValue, TaskIds, TaskOffset, TopicInfo};
use super::wire::{DecodeError, Reader, Writer};

/// The api key of StreamsGroupDescribe.
pub const API_KEY: i16 = 89;
/// The only version this codec speaks.
pub const VERSION: i16 = 0;

fn check_version(message: &'static str, version: i16) -> Result<(), DecodeError> {
    if version == VERSION {
        Ok(())
    } else {
        Err(DecodeError::UnsupportedVersion { message, version })
    }
}

/// Asks the coordinator to describe streams groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamsGroupDescribeRequest {
    /// The groups.
    pub group_ids: Vec<String>,
    /// Whether to include the authorized operations.
    pub include_authorized_operations: bool,
}

/// The description of streams groups.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamsGroupDescribeResponse {
    /// How long the request was throttled.
    pub throttle_time_ms: i32,
    /// One entry per group asked for.
    pub groups: Vec<DescribedGroup>,
}

/// One described group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribedGroup {
    /// The error code, 0 for none.
    pub error_code: i16,
    /// The error message.
    pub error_message: Option<String>,
    /// The group id.
    pub group_id: String,
    /// The group state (`Empty`, `NotReady`, `Assigning`, `Reconciling`, `Stable`, `Dead`).
    pub group_state: String,
    /// The group epoch.
    pub group_epoch: i32,
    /// The assignment epoch.
    pub assignment_epoch: i32,
    /// The topology the group was initialised with.
    pub topology: Option<DescribedTopology>,
    /// The members.
    pub members: Vec<Member>,
    /// Authorized operations (a bit field), `i32::MIN` when not asked for.
    pub authorized_operations: i32,
}

/// The topology stored for a group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribedTopology {
    /// The topology epoch.
    pub epoch: i32,
    /// The subtopologies; null when the topology is not configured yet.
    pub subtopologies: Option<Vec<DescribedSubtopology>>,
}

/// A subtopology as the coordinator stored it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DescribedSubtopology {
    /// The id.
    pub subtopology_id: String,
    /// User source topics.
    pub source_topics: Vec<String>,
    /// Repartition topics written.
    pub repartition_sink_topics: Vec<String>,
    /// Changelog topics.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Repartition topics read.
    pub repartition_source_topics: Vec<TopicInfo>,
}

/// A member of a described group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Member {
    /// The member id.
    pub member_id: String,
    /// The member epoch.
    pub member_epoch: i32,
    /// Static instance id.
    pub instance_id: Option<String>,
    /// Rack id.
    pub rack_id: Option<String>,
    /// Client id of its connection.
    pub client_id: String,
    /// Host of its connection.
    pub client_host: String,
    /// The topology epoch it runs.
    pub topology_epoch: i32,
    /// Its process id.
    pub process_id: String,
    /// Its endpoint for interactive queries.
    pub user_endpoint: Option<Endpoint>,
    /// Its client tags.
    pub client_tags: Vec<KeyValue>,
    /// Its reported changelog offsets.
    pub task_offsets: Vec<TaskOffset>,
    /// Its reported changelog end offsets.
    pub task_end_offsets: Vec<TaskOffset>,
    /// What it owns now.
    pub assignment: Assignment,
    /// What the coordinator wants it to own.
    pub target_assignment: Assignment,
    /// Whether it uses the classic protocol.
    pub is_classic: bool,
}

/// Tasks of a member.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Assignment {
    /// Active tasks.
    pub active_tasks: Vec<TaskIds>,
    /// Standby tasks.
    pub standby_tasks: Vec<TaskIds>,
    /// Warm-up tasks.
    pub warmup_tasks: Vec<TaskIds>,
}

impl StreamsGroupDescribeRequest {
    /// Encodes the body (without the request header).
    pub fn encode(&self, version: i16) -> Result<Vec<u8>, DecodeError> {
        check_version("StreamsGroupDescribeRequest", version)?;
        let mut w = Writer::new();
        w.array_of(&self.group_ids, |w, g| w.string(g));
        w.bool(self.include_authorized_operations);
        w.tagged_fields();
        Ok(w.into_bytes())
    }

    /// Decodes a body (the broker's side; used by tests and the fuzz target).
    pub fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version("StreamsGroupDescribeRequest", version)?;
        let mut r = Reader::new(bytes);
        let out = StreamsGroupDescribeRequest {
            group_ids: r.array_of("GroupIds", |r| r.string("GroupIds[]"))?,
            include_authorized_operations: r.bool()?,
        };
        r.tagged_fields()?;
        r.finish()?;
        Ok(out)
    }
}

impl StreamsGroupDescribeResponse {
    /// Decodes a body (after the response header).
    pub fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version("StreamsGroupDescribeResponse", version)?;
        let mut r = Reader::new(bytes);
        let out = StreamsGroupDescribeResponse {
            throttle_time_ms: r.i32()?,
            groups: r.array_of("Groups", DescribedGroup::read)?,
        };
        r.tagged_fields()?;
        r.finish()?;
        Ok(out)
    }

    /// Encodes a body (the broker's side; used by tests and the fuzz target).
    pub fn encode(&self, version: i16) -> Result<Vec<u8>, DecodeError> {
        check_version("StreamsGroupDescribeResponse", version)?;
        let mut w = Writer::new();
        w.i32(self.throttle_time_ms);
        w.array_of(&self.groups, |w, g| g.write(w));
        w.tagged_fields();
        Ok(w.into_bytes())
    }
}

impl DescribedGroup {
    fn write(&self, w: &mut Writer) {
        w.i16(self.error_code);
        w.nullable_string(self.error_message.as_deref());
        w.string(&self.group_id);
        w.string(&self.group_state);
        w.i32(self.group_epoch);
        w.i32(self.assignment_epoch);
        w.nullable_struct(self.topology.as_ref(), |w, t| t.write(w));
        w.array_of(&self.members, |w, m| m.write(w));
        w.i32(self.authorized_operations);
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = DescribedGroup {
            error_code: r.i16()?,
            error_message: r.nullable_string()?,
            group_id: r.string("GroupId")?,
            group_state: r.string("GroupState")?,
            group_epoch: r.i32()?,
            assignment_epoch: r.i32()?,
            topology: r.nullable_struct(DescribedTopology::read)?,
            members: r.array_of("Members", Member::read)?,
            authorized_operations: r.i32()?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl DescribedTopology {
    fn write(&self, w: &mut Writer) {
        w.i32(self.epoch);
        w.nullable_array(self.subtopologies.as_deref(), |w, s| s.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = DescribedTopology {
            epoch: r.i32()?,
            subtopologies: r.nullable_array(DescribedSubtopology::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl DescribedSubtopology {
    fn write(&self, w: &mut Writer) {
        w.string(&self.subtopology_id);
        w.array_of(&self.source_topics, |w, s| w.string(s));
        w.array_of(&self.repartition_sink_topics, |w, s| w.string(s));
        w.array_of(&self.state_changelog_topics, |w, t| t.write(w));
        w.array_of(&self.repartition_source_topics, |w, t| t.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = DescribedSubtopology {
            subtopology_id: r.string("SubtopologyId")?,
            source_topics: r.array_of("SourceTopics", |r| r.string("SourceTopics[]"))?,
            repartition_sink_topics: r.array_of("RepartitionSinkTopics", |r| {
                r.string("RepartitionSinkTopics[]")
            })?,
            state_changelog_topics: r.array_of("StateChangelogTopics", TopicInfo::read)?,
            repartition_source_topics: r.array_of("RepartitionSourceTopics", TopicInfo::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl Member {
    fn write(&self, w: &mut Writer) {
        w.string(&self.member_id);
        w.i32(self.member_epoch);
        w.nullable_string(self.instance_id.as_deref());
        w.nullable_string(self.rack_id.as_deref());
        w.string(&self.client_id);
        w.string(&self.client_host);
        w.i32(self.topology_epoch);
        w.string(&self.process_id);
        w.nullable_struct(self.user_endpoint.as_ref(), |w, e| e.write(w));
        w.array_of(&self.client_tags, |w, kv| kv.write(w));
        w.array_of(&self.task_offsets, |w, o| o.write(w));
        w.array_of(&self.task_end_offsets, |w, o| o.write(w));
        self.assignment.write(w);
        self.target_assignment.write(w);
        w.bool(self.is_classic);
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Member {
            member_id: r.string("MemberId")?,
            member_epoch: r.i32()?,
            instance_id: r.nullable_string()?,
            rack_id: r.nullable_string()?,
            client_id: r.string("ClientId")?,
            client_host: r.string("ClientHost")?,
            topology_epoch: r.i32()?,
            process_id: r.string("ProcessId")?,
            user_endpoint: r.nullable_struct(Endpoint::read)?,
            client_tags: r.array_of("ClientTags", KeyValue::read)?,
            task_offsets: r.array_of("TaskOffsets", TaskOffset::read)?,
            task_end_offsets: r.array_of("TaskEndOffsets", TaskOffset::read)?,
            assignment: Assignment::read(r)?,
            target_assignment: Assignment::read(r)?,
            is_classic: r.bool()?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl Assignment {
    fn write(&self, w: &mut Writer) {
        w.array_of(&self.active_tasks, |w, t| t.write(w));
        w.array_of(&self.standby_tasks, |w, t| t.write(w));
        w.array_of(&self.warmup_tasks, |w, t| t.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Assignment {
            active_tasks: r.array_of("ActiveTasks", TaskIds::read)?,
            standby_tasks: r.array_of("StandbyTasks", TaskIds::read)?,
            warmup_tasks: r.array_of("WarmupTasks", TaskIds::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}
