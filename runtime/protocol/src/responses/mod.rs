//! The responses of the classic APIs the runtime's own connections use (ApiVersions,
//! FindCoordinator, SASL, OffsetCommit, IncrementalAlterConfigs, InitProducerId, DeleteGroups), decoded by
//! this crate's bounds-checked reader.
//!
//! Their requests are encoded with the `kafka-protocol` crate, but its decoders reserve room
//! for as many elements as an array's length field claims before reading any
//! (`Vec::with_capacity(n)` with `n` up to 2³¹): a corrupt or hostile response of a few bytes
//! could make the process ask for tens of gigabytes and abort. Here a length longer than the
//! bytes left is a [`DecodeError`], and an array reserves room for at most a few hundred
//! elements before it reads them (the `protocol::wire` reader). Only the fields the runtime
//! reads are kept; the others are read past. Field layouts follow the JSON schemas of Apache
//! Kafka 4.4 (`clients/src/main/resources/common/message/*Response.json`).

use super::wire::{DecodeError, Reader};

/// A response this module decodes.
pub trait Response: Sized {
    /// The API's name, for errors.
    const NAME: &'static str;
    /// The first version with the flexible encoding (compact fields, tagged fields, response
    /// header v1).
    const FIRST_FLEXIBLE: i16;

    /// Decodes a response body of `version`: every byte must belong to it.
    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError>;

    /// The response header's version for a request of `version`.
    fn header_version(version: i16) -> i16 {
        i16::from(version >= Self::FIRST_FLEXIBLE)
    }
}

/// Reads a string in the encoding of the version: compact when flexible.
fn string(r: &mut Reader<'_>, flexible: bool, field: &'static str) -> Result<String, DecodeError> {
    if flexible {
        r.string(field)
    } else {
        r.classic_string(field)
    }
}

/// Reads a nullable string in the encoding of the version.
fn nullable_string(r: &mut Reader<'_>, flexible: bool) -> Result<Option<String>, DecodeError> {
    if flexible {
        r.nullable_string()
    } else {
        r.classic_nullable_string()
    }
}

/// Reads an array in the encoding of the version.
fn array_of<T>(
    r: &mut Reader<'_>,
    flexible: bool,
    field: &'static str,
    item: impl FnMut(&mut Reader<'_>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    if flexible {
        r.array_of(field, item)
    } else {
        r.classic_array_of(field, item)
    }
}

/// Ends a struct: its tagged fields when flexible.
fn end_struct(r: &mut Reader<'_>, flexible: bool) -> Result<(), DecodeError> {
    if flexible { r.tagged_fields() } else { Ok(()) }
}

fn check_version(name: &'static str, version: i16, max: i16) -> Result<(), DecodeError> {
    if (0..=max).contains(&version) {
        Ok(())
    } else {
        Err(DecodeError::UnsupportedVersion {
            message: name,
            version,
        })
    }
}

/// One API a broker serves, with its version range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiVersion {
    /// The API key.
    pub api_key: i16,
    /// The oldest version served.
    pub min_version: i16,
    /// The newest version served.
    pub max_version: i16,
}

/// ApiVersions (api key 18), v0-v3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiVersionsResponse {
    /// The top-level error code.
    pub error_code: i16,
    /// The APIs served.
    pub api_keys: Vec<ApiVersion>,
}

impl Response for ApiVersionsResponse {
    const NAME: &'static str = "ApiVersions";
    const FIRST_FLEXIBLE: i16 = 3;

    /// ApiVersions always answers with response header v0.
    fn header_version(_version: i16) -> i16 {
        0
    }

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 4)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        let error_code = r.i16()?;
        let api_keys = array_of(&mut r, flexible, "api_keys", |r| {
            let key = ApiVersion {
                api_key: r.i16()?,
                min_version: r.i16()?,
                max_version: r.i16()?,
            };
            end_struct(r, flexible)?;
            Ok(key)
        })?;
        if version >= 1 {
            let _throttle_time_ms = r.i32()?;
        }
        // The feature lists (SupportedFeatures, FinalizedFeatures) are tagged fields.
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(ApiVersionsResponse {
            error_code,
            api_keys,
        })
    }
}

/// The coordinator of one key (FindCoordinator v4 and later answer for several keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coordinator {
    /// The error code for this key.
    pub error_code: i16,
    /// Its message, if any.
    pub error_message: Option<String>,
    /// The coordinator's broker id.
    pub node_id: i32,
    /// Its host.
    pub host: String,
    /// Its port.
    pub port: i32,
}

/// FindCoordinator (api key 10), v0-v6: versions before 4 answer for one key, in the
/// top-level fields; later ones in `coordinators`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindCoordinatorResponse {
    /// The coordinator before v4.
    pub single: Option<Coordinator>,
    /// The coordinators from v4 on.
    pub coordinators: Vec<Coordinator>,
}

impl FindCoordinatorResponse {
    /// The coordinator of the (single) key asked for, whichever version answered.
    pub fn first(&self) -> Option<&Coordinator> {
        self.single.as_ref().or_else(|| self.coordinators.first())
    }
}

impl Response for FindCoordinatorResponse {
    const NAME: &'static str = "FindCoordinator";
    const FIRST_FLEXIBLE: i16 = 3;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 6)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        if version >= 1 {
            let _throttle_time_ms = r.i32()?;
        }
        let mut response = FindCoordinatorResponse {
            single: None,
            coordinators: Vec::new(),
        };
        if version < 4 {
            let error_code = r.i16()?;
            let error_message = if version >= 1 {
                nullable_string(&mut r, flexible)?
            } else {
                None
            };
            response.single = Some(Coordinator {
                error_code,
                error_message,
                node_id: r.i32()?,
                host: string(&mut r, flexible, "host")?,
                port: r.i32()?,
            });
        } else {
            response.coordinators = r.array_of("coordinators", |r| {
                let _key = r.string("key")?;
                let node_id = r.i32()?;
                let host = r.string("host")?;
                let port = r.i32()?;
                let error_code = r.i16()?;
                let error_message = r.nullable_string()?;
                r.tagged_fields()?;
                Ok(Coordinator {
                    error_code,
                    error_message,
                    node_id,
                    host,
                    port,
                })
            })?;
        }
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(response)
    }
}

/// SaslHandshake (api key 17), v0-v1 (never flexible).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslHandshakeResponse {
    /// The error code.
    pub error_code: i16,
    /// The mechanisms the broker offers.
    pub mechanisms: Vec<String>,
}

impl Response for SaslHandshakeResponse {
    const NAME: &'static str = "SaslHandshake";
    const FIRST_FLEXIBLE: i16 = i16::MAX;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 1)?;
        let mut r = Reader::new(bytes);
        let error_code = r.i16()?;
        let mechanisms = r.classic_array_of("mechanisms", |r| r.classic_string("mechanism"))?;
        r.finish()?;
        Ok(SaslHandshakeResponse {
            error_code,
            mechanisms,
        })
    }
}

/// SaslAuthenticate (api key 36), v0-v2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaslAuthenticateResponse {
    /// The error code.
    pub error_code: i16,
    /// Its message, if any.
    pub error_message: Option<String>,
    /// The mechanism's bytes from the broker.
    pub auth_bytes: Vec<u8>,
    /// How long the session lasts (0: no limit; v1 and later).
    pub session_lifetime_ms: i64,
}

impl Response for SaslAuthenticateResponse {
    const NAME: &'static str = "SaslAuthenticate";
    const FIRST_FLEXIBLE: i16 = 2;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 2)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        let error_code = r.i16()?;
        let error_message = nullable_string(&mut r, flexible)?;
        let auth_bytes = if flexible {
            r.compact_bytes()?
        } else {
            r.classic_bytes()?
        };
        let session_lifetime_ms = if version >= 1 { r.i64()? } else { 0 };
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(SaslAuthenticateResponse {
            error_code,
            error_message,
            auth_bytes,
            session_lifetime_ms,
        })
    }
}

/// One partition's result of an offset commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitPartition {
    /// The partition.
    pub partition_index: i32,
    /// Its error code.
    pub error_code: i16,
}

/// One topic's results of an offset commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitTopic {
    /// The topic.
    pub name: String,
    /// Its partitions.
    pub partitions: Vec<OffsetCommitPartition>,
}

/// OffsetCommit (api key 8), v8-v9 (the flexible versions before topic ids; streams groups
/// need v9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitResponse {
    /// The topics.
    pub topics: Vec<OffsetCommitTopic>,
}

impl Response for OffsetCommitResponse {
    const NAME: &'static str = "OffsetCommit";
    const FIRST_FLEXIBLE: i16 = 8;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        if !(8..=9).contains(&version) {
            return Err(DecodeError::UnsupportedVersion {
                message: Self::NAME,
                version,
            });
        }
        let mut r = Reader::new(bytes);
        let _throttle_time_ms = r.i32()?;
        let topics = r.array_of("topics", |r| {
            let name = r.string("name")?;
            let partitions = r.array_of("partitions", |r| {
                let p = OffsetCommitPartition {
                    partition_index: r.i32()?,
                    error_code: r.i16()?,
                };
                r.tagged_fields()?;
                Ok(p)
            })?;
            r.tagged_fields()?;
            Ok(OffsetCommitTopic { name, partitions })
        })?;
        r.tagged_fields()?;
        r.finish()?;
        Ok(OffsetCommitResponse { topics })
    }
}

/// One resource's result of IncrementalAlterConfigs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterConfigsResult {
    /// The error code.
    pub error_code: i16,
    /// Its message, if any.
    pub error_message: Option<String>,
    /// The resource's type.
    pub resource_type: i8,
    /// The resource's name.
    pub resource_name: String,
}

/// IncrementalAlterConfigs (api key 44), v0-v1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IncrementalAlterConfigsResponse {
    /// One result per resource.
    pub responses: Vec<AlterConfigsResult>,
}

impl Response for IncrementalAlterConfigsResponse {
    const NAME: &'static str = "IncrementalAlterConfigs";
    const FIRST_FLEXIBLE: i16 = 1;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 1)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        let _throttle_time_ms = r.i32()?;
        let responses = array_of(&mut r, flexible, "responses", |r| {
            let result = AlterConfigsResult {
                error_code: r.i16()?,
                error_message: nullable_string(r, flexible)?,
                resource_type: r.i8()?,
                resource_name: string(r, flexible, "resource_name")?,
            };
            end_struct(r, flexible)?;
            Ok(result)
        })?;
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(IncrementalAlterConfigsResponse { responses })
    }
}

/// InitProducerId (api key 22), v0-v5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InitProducerIdResponse {
    /// The error code.
    pub error_code: i16,
    /// The producer id.
    pub producer_id: i64,
    /// Its epoch.
    pub producer_epoch: i16,
}

impl Response for InitProducerIdResponse {
    const NAME: &'static str = "InitProducerId";
    const FIRST_FLEXIBLE: i16 = 2;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 5)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        let _throttle_time_ms = r.i32()?;
        let response = InitProducerIdResponse {
            error_code: r.i16()?,
            producer_id: r.i64()?,
            producer_epoch: r.i16()?,
        };
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(response)
    }
}

/// One group's result of a DeleteGroups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletableGroupResult {
    /// The group.
    pub group_id: String,
    /// The error code (0: deleted).
    pub error_code: i16,
}

/// DeleteGroups (api key 42), v0-v2.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeleteGroupsResponse {
    /// One result per group asked for.
    pub results: Vec<DeletableGroupResult>,
}

impl Response for DeleteGroupsResponse {
    const NAME: &'static str = "DeleteGroups";
    const FIRST_FLEXIBLE: i16 = 2;

    fn decode(bytes: &[u8], version: i16) -> Result<Self, DecodeError> {
        check_version(Self::NAME, version, 2)?;
        let flexible = version >= Self::FIRST_FLEXIBLE;
        let mut r = Reader::new(bytes);
        let _throttle_time_ms = r.i32()?;
        let results = array_of(&mut r, flexible, "results", |r| {
            let group_id = string(r, flexible, "group_id")?;
            let error_code = r.i16()?;
            end_struct(r, flexible)?;
            Ok(DeletableGroupResult {
                group_id,
                error_code,
            })
        })?;
        end_struct(&mut r, flexible)?;
        r.finish()?;
        Ok(DeleteGroupsResponse { results })
    }
}

#[cfg(test)]
mod tests;
