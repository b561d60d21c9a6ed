//! Structures shared by the streams-group messages (`commonStructs` of their schemas).

use super::wire::{DecodeError, Reader, Writer};

/// A topic configuration entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
}

/// An internal topic (changelog or repartition) the coordinator creates when missing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicInfo {
    /// The topic's name.
    pub name: String,
    /// Partition count; 0 lets the coordinator decide (always 0 for changelogs).
    pub partitions: i32,
    /// Replication factor; 0 or -1 means the broker's default.
    pub replication_factor: i16,
    /// Topic configurations.
    pub topic_configs: Vec<KeyValue>,
}

/// A host and port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Endpoint {
    /// The host.
    pub host: String,
    /// The port (`uint16`).
    pub port: u16,
}

/// Tasks of one subtopology: its id and the partitions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskIds {
    /// The subtopology id.
    pub subtopology_id: String,
    /// The partitions (one task each).
    pub partitions: Vec<i32>,
}

/// A changelog offset of a task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskOffset {
    /// The subtopology id.
    pub subtopology_id: String,
    /// The partition.
    pub partition: i32,
    /// The offset.
    pub offset: i64,
}

impl KeyValue {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.key);
        w.string(&self.value);
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = KeyValue {
            key: r.string("Key")?,
            value: r.string("Value")?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl TopicInfo {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.name);
        w.i32(self.partitions);
        w.i16(self.replication_factor);
        w.array_of(&self.topic_configs, |w, kv| kv.write(w));
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = TopicInfo {
            name: r.string("Name")?,
            partitions: r.i32()?,
            replication_factor: r.i16()?,
            topic_configs: r.array_of("TopicConfigs", KeyValue::read)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl Endpoint {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.host);
        w.u16(self.port);
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = Endpoint {
            host: r.string("Host")?,
            port: r.u16()?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl TaskIds {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.subtopology_id);
        w.array_of(&self.partitions, |w, p| w.i32(*p));
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = TaskIds {
            subtopology_id: r.string("SubtopologyId")?,
            partitions: r.array_of("Partitions", Reader::i32)?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}

impl TaskOffset {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.string(&self.subtopology_id);
        w.i32(self.partition);
        w.i64(self.offset);
        w.tagged_fields();
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> Result<Self, DecodeError> {
        let out = TaskOffset {
            subtopology_id: r.string("SubtopologyId")?,
            partition: r.i32()?,
            offset: r.i64()?,
        };
        r.tagged_fields()?;
        Ok(out)
    }
}
