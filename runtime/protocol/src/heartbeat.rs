//! StreamsGroupHeartbeat (api key 88), versions 0 and 1, from
//! `clients/src/main/resources/common/message/StreamsGroupHeartbeat{Request,Response}.json`
//! of Apache Kafka 4.4. Flexible encoding from version 0. Version 1 of the request equals
//! version 0; it lets the broker answer with version 1 of the response, which carries
//! `AcceptableRecoveryLag` as an `int64` and `TopologyDescriptionRequired`.

use super::common::{Endpoint, KeyValue, TaskIds, TaskOffset, TopicInfo};
use super::wire::{DecodeError, Reader, Writer};

/// The api key of StreamsGroupHeartbeat.
pub const API_KEY: i16 = 88;
/// The oldest version this codec speaks.
pub const MIN_VERSION: i16 = 0;
/// The newest version this codec speaks.
pub const MAX_VERSION: i16 = 1;

fn check_version(message: &'static str, version: i16) -> Result<(), DecodeError> {
    if (MIN_VERSION..=MAX_VERSION).contains(&version) {
        Ok(())
    } else {
        Err(DecodeError::UnsupportedVersion { message, version })
    }
}

/// A member's heartbeat: joins (epoch 0), keeps the membership, reports owned tasks, leaves
/// (epoch -1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsGroupHeartbeatRequest {
    /// The group id (the application id).
    pub group_id: String,
    /// The member id, chosen by the member and kept for its lifetime.
    pub member_id: String,
    /// 0 to join, -1 to leave, -2 for a static member's temporary leave, else the current epoch.
    pub member_epoch: i32,
    /// The latest endpoint-information epoch the member received.
    pub endpoint_information_epoch: i32,
    /// Static membership instance id.
    pub instance_id: Option<String>,
    /// The member's rack.
    pub rack_id: Option<String>,
    /// How long the coordinator waits for revoked tasks; -1 when unchanged.
    pub rebalance_timeout_ms: i32,
    /// The topology; only on join.
    pub topology: Option<Topology>,
    /// Active tasks owned; null when unchanged. All three task lists are null or all set.
    pub active_tasks: Option<Vec<TaskIds>>,
    /// Standby tasks owned; null when unchanged.
    pub standby_tasks: Option<Vec<TaskIds>>,
    /// Warm-up tasks owned; null when unchanged.
    pub warmup_tasks: Option<Vec<TaskIds>>,
    /// The identity of the process (shared by the members of one instance).
    pub process_id: Option<String>,
    /// Endpoint for interactive queries.
    pub user_endpoint: Option<Endpoint>,
    /// Client tags for rack-aware assignment.
    pub client_tags: Option<Vec<KeyValue>>,
    /// Cumulative changelog offsets of tasks.
    pub task_offsets: Option<Vec<TaskOffset>>,
    /// Changelog end offsets of tasks.
    pub task_end_offsets: Option<Vec<TaskOffset>>,
    /// Ask every member of the application to shut down.
    pub shutdown_application: bool,
}

impl Default for StreamsGroupHeartbeatRequest {
    fn default() -> Self {
        StreamsGroupHeartbeatRequest {
            group_id: String::new(),
            member_id: String::new(),
            member_epoch: 0,
            endpoint_information_epoch: 0,
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1,
            topology: None,
            active_tasks: None,
            standby_tasks: None,
            warmup_tasks: None,
            process_id: None,
            user_endpoint: None,
            client_tags: None,
            task_offsets: None,
            task_end_offsets: None,
            shutdown_application: false,
        }
    }
}

/// The topology a member sends when it joins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topology {
    /// The topology epoch.
    pub epoch: i32,
    /// The subtopologies.
    pub subtopologies: Vec<Subtopology>,
}

/// One subtopology of a [`Topology`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Subtopology {
    /// Its id (`"0"`, `"1"`, …).
    pub subtopology_id: String,
    /// User topics it reads.
    pub source_topics: Vec<String>,
    /// Regular expressions of topics it reads (not supported by the 4.4 coordinator).
    pub source_topic_regex: Vec<String>,
    /// Changelog topics of its stores.
    pub state_changelog_topics: Vec<TopicInfo>,
    /// Repartition topics it writes.
    pub repartition_sink_topics: Vec<String>,
    /// Repartition topics it reads.
    pub repartition_source_topics: Vec<TopicInfo>,
    /// Groups of topics that must be co-partitioned.
    pub copartition_groups: Vec<CopartitionGroup>,
}

/// Topics that must have the same partition count, as indices into the subtopology's lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopartitionGroup {
    /// Indices into `source_topics`.
    pub source_topics: Vec<i16>,
    /// Indices into `source_topic_regex`.
    pub source_topic_regex: Vec<i16>,
    /// Indices into `repartition_source_topics`.
    pub repartition_source_topics: Vec<i16>,
}

/// The coordinator's answer to a heartbeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamsGroupHeartbeatResponse {
    /// How long the request was throttled.
    pub throttle_time_ms: i32,
    /// The error code, 0 for none.
    pub error_code: i16,
    /// The error message.
    pub error_message: Option<String>,
    /// The member id.
    pub member_id: String,
    /// The member epoch.
    pub member_epoch: i32,
    /// How often to heartbeat.
    pub heartbeat_interval_ms: i32,
    /// Maximal lag of a caught-up warm-up task (an `int32` in v0, an `int64` in v1; -1 when a v1
    /// broker does not say).
    pub acceptable_recovery_lag: i64,
    /// How often to report task offsets.
    pub task_offset_interval_ms: i32,
    /// Statuses of the group; null when unchanged.
    pub status: Option<Vec<Status>>,
    /// Assigned active tasks; null when unchanged.
    pub active_tasks: Option<Vec<TaskIds>>,
    /// Assigned standby tasks; null when unchanged.
    pub standby_tasks: Option<Vec<TaskIds>>,
    /// Assigned warm-up tasks; null when unchanged.
    pub warmup_tasks: Option<Vec<TaskIds>>,
    /// (v1) The broker wants a topology description (StreamsGroupTopologyDescriptionUpdate).
    pub topology_description_required: bool,
    /// The endpoint-information epoch.
    pub endpoint_information_epoch: i32,
    /// Partitions per user endpoint, for interactive queries; null when unchanged.
    pub partitions_by_user_endpoint: Option<Vec<EndpointToPartitions>>,
}

/// A status of the group, as reported in a heartbeat response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    /// The code (`dekaf_streams::group::StatusCode` names them).
    pub status_code: i8,
    /// What it is about, in words.
    pub status_detail: String,
}

/// The partitions served by one user endpoint.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EndpointToPartitions {
    /// The endpoint.
    pub user_endpoint: Endpoint,
    /// Source partitions of its active tasks.
    pub active_partitions: Vec<TopicPartitions>,
    /// Source partitions of its standby and warm-up tasks.
    pub standby_partitions: Vec<TopicPartitions>,
}

/// A topic and some of its partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicPartitions {
    /// The topic.
    pub topic: String,
    /// The partitions.
    pub partitions: Vec<i32>,
}

fn write_tasks(w: &mut Writer, tasks: Option<&[TaskIds]>) {
    w.nullable_array(tasks, |w, t| t.write(w));
}

fn write_offsets(w: &mut Writer, offsets: Option<&[TaskOffset]>) {
    w.nullable_array(offsets, |w, t| t.write(w));
}

impl StreamsGroupHeartbeatRequest {
    /// Encodes the body (without the request header).
    pub fn encode(&self, version: i16) -> Result<Vec<u8>, DecodeError> {
        check_version("StreamsGroupHeartbeatRequest", version)?;
        let mut w = Writer::new();
        w.string(&self.group_id);
        w.string(&self.member_id);
        w.i32(self.member_epoch);
        w.i32(self.endpoint_information_epoch);
        w.nullable_string(self.instance_id.as_deref());
        w.nullable_string(self.rack_id.as_deref());
        w.i32(self.rebalance_timeout_ms);
        w.nullable_struct(self.topology.as_ref(), |w, t| t.write(w));
        write_tasks(&mut w, self.active_tasks.as_deref());
        write_tasks(&mut w, self.standby_tasks.as_deref());
        write_tasks(&mut w, self.warmup_tasks.as_deref());
        w.nullable_string(self.process_id.as_deref());
        w.nullable_struct(self.user_endpoint.as_ref(), |w, e| e.write(w));
        w.nullable_array(self.client_tags.as_deref(), |w, kv| kv.write(w));
        write_offsets(&mut w, self.task_offsets.as_deref());
        write_offsets(&mut w, self.task_end_offsets.as_deref());
        w.bool(self.shutdown_application);
        w.tagged_fields();
        Ok(w.into_bytes())
    }

    /// Decodes a body (the broker's side; used by tests and the fuzz target).
    pub fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version("StreamsGroupHeartbeatRequest", version)?;
        let mut r = Reader::new(bytes);
        let out = StreamsGroupHeartbeatRequest {
            group_id: r.string("GroupId")?,
            member_id: r.string("MemberId")?,
            member_epoch: r.i32()?,
            endpoint_information_epoch: r.i32()?,
            instance_id: r.nullable_string()?,
            rack_id: r.nullable_string()?,
            rebalance_timeout_ms: r.i32()?,
            topology: r.nullable_struct(Topology::read)?,
            active_tasks: r.nullable_array(TaskIds::read)?,
            standby_tasks: r.nullable_array(TaskIds::read)?,
            warmup_tasks: r.nullable_array(TaskIds::read)?,
            process_id: r.nullable_string()?,
            user_endpoint: r.nullable_struct(Endpoint::read)?,
            client_tags: r.nullable_array(KeyValue::read)?,
            task_offsets: r.nullable_array(TaskOffset::read)?,
            task_end_offsets: r.nullable_array(TaskOffset::read)?,
            shutdown_application: r.bool()?,
        };
        r.tagged_fields()?;
        r.finish()?;
        Ok(out)
    }
}

impl Topology {
    fn write(&self, w: &mut Writer) {
        w.i32(self.epoch);
        w.array_of(&self.subtopologies, |w, s| s.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Topology {
            epoch: r.i32()?,
            subtopologies: r.array_of("Subtopologies", Subtopology::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl Subtopology {
    fn write(&self, w: &mut Writer) {
        w.string(&self.subtopology_id);
        w.array_of(&self.source_topics, |w, s| w.string(s));
        w.array_of(&self.source_topic_regex, |w, s| w.string(s));
        w.array_of(&self.state_changelog_topics, |w, t| t.write(w));
        w.array_of(&self.repartition_sink_topics, |w, s| w.string(s));
        w.array_of(&self.repartition_source_topics, |w, t| t.write(w));
        w.array_of(&self.copartition_groups, |w, g| g.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Subtopology {
            subtopology_id: r.string("SubtopologyId")?,
            source_topics: r.array_of("SourceTopics", |r| r.string("SourceTopics[]"))?,
            source_topic_regex: r
                .array_of("SourceTopicRegex", |r| r.string("SourceTopicRegex[]"))?,
            state_changelog_topics: r.array_of("StateChangelogTopics", TopicInfo::read)?,
            repartition_sink_topics: r.array_of("RepartitionSinkTopics", |r| {
                r.string("RepartitionSinkTopics[]")
            })?,
            repartition_source_topics: r.array_of("RepartitionSourceTopics", TopicInfo::read)?,
            copartition_groups: r.array_of("CopartitionGroups", CopartitionGroup::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl CopartitionGroup {
    fn write(&self, w: &mut Writer) {
        w.array_of(&self.source_topics, |w, i| w.i16(*i));
        w.array_of(&self.source_topic_regex, |w, i| w.i16(*i));
        w.array_of(&self.repartition_source_topics, |w, i| w.i16(*i));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = CopartitionGroup {
            source_topics: r.array_of("SourceTopics", Reader::i16)?,
            source_topic_regex: r.array_of("SourceTopicRegex", Reader::i16)?,
            repartition_source_topics: r.array_of("RepartitionSourceTopics", Reader::i16)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl StreamsGroupHeartbeatResponse {
    /// Decodes a body (after the response header).
    pub fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version("StreamsGroupHeartbeatResponse", version)?;
        let mut r = Reader::new(bytes);
        let throttle_time_ms = r.i32()?;
        let error_code = r.i16()?;
        let error_message = r.nullable_string()?;
        let member_id = r.string("MemberId")?;
        let member_epoch = r.i32()?;
        let heartbeat_interval_ms = r.i32()?;
        let mut acceptable_recovery_lag = -1;
        if version == 0 {
            acceptable_recovery_lag = i64::from(r.i32()?);
        }
        let task_offset_interval_ms = r.i32()?;
        if version >= 1 {
            acceptable_recovery_lag = r.i64()?;
        }
        let status = r.nullable_array(Status::read)?;
        let active_tasks = r.nullable_array(TaskIds::read)?;
        let standby_tasks = r.nullable_array(TaskIds::read)?;
        let warmup_tasks = r.nullable_array(TaskIds::read)?;
        let topology_description_required = if version >= 1 { r.bool()? } else { false };
        let endpoint_information_epoch = r.i32()?;
        let partitions_by_user_endpoint = r.nullable_array(EndpointToPartitions::read)?;
        r.tagged_fields()?;
        r.finish()?;
        Ok(StreamsGroupHeartbeatResponse {
            throttle_time_ms,
            error_code,
            error_message,
            member_id,
            member_epoch,
            heartbeat_interval_ms,
            acceptable_recovery_lag,
            task_offset_interval_ms,
            status,
            active_tasks,
            standby_tasks,
            warmup_tasks,
            topology_description_required,
            endpoint_information_epoch,
            partitions_by_user_endpoint,
        })
    }

    /// Encodes a body (the broker's side; used by tests and the fuzz target). In v0 the
    /// recovery lag is truncated to `int32`.
    pub fn encode(&self, version: i16) -> Result<Vec<u8>, DecodeError> {
        check_version("StreamsGroupHeartbeatResponse", version)?;
        let mut w = Writer::new();
        w.i32(self.throttle_time_ms);
        w.i16(self.error_code);
        w.nullable_string(self.error_message.as_deref());
        w.string(&self.member_id);
        w.i32(self.member_epoch);
        w.i32(self.heartbeat_interval_ms);
        if version == 0 {
            w.i32(i32::try_from(self.acceptable_recovery_lag).unwrap_or(i32::MAX));
        }
        w.i32(self.task_offset_interval_ms);
        if version >= 1 {
            w.i64(self.acceptable_recovery_lag);
        }
        w.nullable_array(self.status.as_deref(), |w, s| s.write(w));
        write_tasks(&mut w, self.active_tasks.as_deref());
        write_tasks(&mut w, self.standby_tasks.as_deref());
        write_tasks(&mut w, self.warmup_tasks.as_deref());
        if version >= 1 {
            w.bool(self.topology_description_required);
        }
        w.i32(self.endpoint_information_epoch);
        w.nullable_array(self.partitions_by_user_endpoint.as_deref(), |w, e| {
            e.write(w)
        });
        w.tagged_fields();
        Ok(w.into_bytes())
    }
}

impl Status {
    fn write(&self, w: &mut Writer) {
        w.i8(self.status_code);
        w.string(&self.status_detail);
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Status {
            status_code: r.i8()?,
            status_detail: r.string("StatusDetail")?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl TopicPartitions {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.topic);
        w.array_of(&self.partitions, |w, p| w.i32(*p));
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = TopicPartitions {
            topic: r.string("Topic")?,
            partitions: r.array_of("Partitions", Reader::i32)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl EndpointToPartitions {
    fn write(&self, w: &mut Writer) {
        self.user_endpoint.write(w);
        w.array_of(&self.active_partitions, |w, t| t.write(w));
        w.array_of(&self.standby_partitions, |w, t| t.write(w));
        w.tagged_fields();
    }

    fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = EndpointToPartitions {
            user_endpoint: Endpoint::read(r)?,
            active_partitions: r.array_of("ActivePartitions", TopicPartitions::read)?,
            standby_partitions: r.array_of("StandbyPartitions", TopicPartitions::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}
