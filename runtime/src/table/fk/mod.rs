//! Foreign-key table-table joins (KIP-213): `left.join_on_foreign_key(right, |lv| fk, joiner)`
//! and `left_join_on_foreign_key`, as Kafka Streams 4.4's `foreignkeyjoin` package runs them,
//! with its topics, store and wire formats, so a Java peer of the same application reads ours.
//!
//! 1. **Subscribe** (`SubscriptionSendProcessorSupplier`, the left table's task): every change
//!    of a left row sends a [`Subscription`] to the subscription topic, keyed by the foreign key
//!    (so it lands with the right table's row): the left key, the 128-bit murmur3 hash of the
//!    new left value's bytes ([`murmur3::hash128`]), the left task's partition and an
//!    [`Instruction`]. A changed foreign key first unsubscribes from the old one.
//! 2. **Register and answer** (`SubscriptionReceiveProcessorSupplier` and
//!    `SubscriptionJoinProcessorSupplier`, the right table's task): the subscription is stored
//!    (or deleted) in the subscription store under `[fk length: i32][fk][left key]`, and
//!    answered with a [`Response`] carrying the hash and the right row's current value, to the
//!    response topic, keyed by the left key, to the left task's partition.
//! 3. **Right-side changes** (`ForeignTableJoinProcessorSupplier`): a change of a right row
//!    answers every subscription of its key (a prefix scan of the subscription store).
//! 4. **Resolve** (`ResponseJoinProcessorSupplier`, the left table's task): a response is joined
//!    only if its hash equals the hash of the left row's current value: a response to an older
//!    version of the row (its foreign key changed since) is stale and dropped, so no result of an
//!    outdated foreign key is ever emitted.
//!
//! Everything here works on bytes, in buffers the task keeps ([`FkScratch`]): a subscription is
//! never deserialized on the right side, a right value never on its way back.

// Support for generated code (re-exported by `__private`): the task's buffers and stores are passed one by one.
#![allow(clippy::too_many_arguments)]

pub(crate) mod murmur3;
mod wire;

use std::ops::Bound;

pub(crate) use wire::{Instruction, Response, Subscription};

use crate::record::{Headers, InputRecord, OutgoingRecord, Partitioning, RecordSink, TopicKind};
use crate::record_error::record as record_err;
use crate::record_error::{RecordError, store_error};
use crate::store::StoreBackend;
use crate::table::timestamped::get_timestamped_bytes;
use crate::task::ErrorKind;

/// The buffers of one foreign-key join in a task.
#[derive(Debug, Default)]
pub struct FkScratch {
    /// The old row's foreign key (left side), or the stored key (right side).
    pub old_fk: Vec<u8>,
    /// The new row's foreign key.
    pub new_fk: Vec<u8>,
    /// The left key.
    pub pk: Vec<u8>,
    /// A value's bytes, to hash.
    pub value: Vec<u8>,
    /// The record being written.
    pub wire: Vec<u8>,
}

impl FkScratch {
    /// Empty buffers.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The hash of a left value's bytes, as a subscription carries it.
#[inline]
pub fn fk_hash(value: &[u8]) -> [u64; 2] {
    murmur3::hash128(value)
}

/// Fixes the type of a foreign-key extractor: `|left_value: &V| foreign_key`.
#[inline(always)]
pub fn fk_extract<V, K, F: FnOnce(&V) -> K>(value: &V, f: F) -> K {
    f(value)
}

/// Fixes the type of an inner foreign-key joiner: `|left: &V, right: &VO| result`.
#[inline(always)]
pub fn fk_join<V, VO, R, F: FnOnce(&V, &VO) -> R>(left: &V, right: &VO, f: F) -> R {
    f(left, right)
}

/// Fixes the type of a left foreign-key joiner: `|left: &V, right: Option<&VO>| result`.
#[inline(always)]
pub fn fk_left_join<V, VO, R, F: FnOnce(&V, Option<&VO>) -> R>(
    left: &V,
    right: Option<&VO>,
    f: F,
) -> R {
    f(left, right)
}

/// Fixes the type of a foreign-key extractor that also takes the left row's key (KIP-1104):
/// `|left_key: &K, left_value: &V| foreign_key`.
#[inline(always)]
pub fn fk_extract_with_key<K, V, KO, F: FnOnce(&K, &V) -> KO>(key: &K, value: &V, f: F) -> KO {
    f(key, value)
}

/// Fixes the type of an inner foreign-key joiner that also takes the left row's key:
/// `|left_key: &K, left: &V, right: &VO| result`.
#[inline(always)]
pub fn fk_join_with_key<K, V, VO, R, F: FnOnce(&K, &V, &VO) -> R>(
    key: &K,
    left: &V,
    right: &VO,
    f: F,
) -> R {
    f(key, left, right)
}

/// Fixes the type of a left foreign-key joiner that also takes the left row's key:
/// `|left_key: &K, left: &V, right: Option<&VO>| result`.
#[inline(always)]
pub fn fk_left_join_with_key<K, V, VO, R, F: FnOnce(&K, &V, Option<&VO>) -> R>(
    key: &K,
    left: &V,
    right: Option<&VO>,
    f: F,
) -> R {
    f(key, left, right)
}

/// What one change of a left row sends (Kafka Streams' `SubscriptionSendProcessorSupplier`),
/// given whether its old and new value have a foreign key (`scratch.old_fk`, `scratch.new_fk`:
/// no value, or a key that serializes to null, has none), its key (`scratch.pk`) and the hash
/// of its new value. An inner join does not subscribe with a null foreign
/// key (the change is dropped, as Kafka Streams logs "Skipping record due to null foreign
/// key"), a left join subscribes with a null key so the row still gets its `None` result.
pub fn fk_subscribe<S: RecordSink>(
    sink: &mut S,
    topic: &'static str,
    left_join: bool,
    old_present: bool,
    new_present: bool,
    old_has_fk: bool,
    new_has_fk: bool,
    hash: Option<[u64; 2]>,
    partition: i32,
    timestamp: i64,
    headers: &Headers,
    scratch: &mut FkScratch,
) -> Result<(), RecordError> {
    let FkScratch {
        old_fk,
        new_fk,
        pk,
        wire: scratch,
        ..
    } = scratch;
    let old_fk = old_has_fk.then_some(old_fk.as_slice());
    let new_fk = new_has_fk.then_some(new_fk.as_slice());
    let pk = pk.as_slice();
    let mut send = |fk: Option<&[u8]>, instruction: Instruction| -> Result<(), RecordError> {
        scratch.clear();
        Subscription {
            hash,
            instruction,
            primary_key: pk,
            primary_partition: Some(partition),
        }
        .write(scratch);
        sink.send(OutgoingRecord {
            topic,
            kind: TopicKind::Repartition,
            partitioning: Partitioning::ByKey,
            key: fk,
            value: Some(scratch),
            timestamp,
            headers,
        })?;
        Ok(())
    };
    if left_join {
        if !old_present && !new_present {
            return Ok(());
        }
        if old_fk.is_some() && old_fk != new_fk {
            send(old_fk, Instruction::DeleteKeyNoPropagate)?;
        }
        return send(new_fk, Instruction::PropagateNullIfNoFkValAvailable);
    }
    if new_present {
        match (old_fk, new_fk) {
            (Some(old), None) => send(Some(old), Instruction::DeleteKeyAndPropagate),
            (None, None) => Ok(()),
            (Some(old), Some(new)) if old != new => {
                send(Some(old), Instruction::DeleteKeyNoPropagate)?;
                send(Some(new), Instruction::PropagateNullIfNoFkValAvailable)
            }
            (_, Some(new)) => send(Some(new), Instruction::PropagateOnlyIfFkValAvailable),
        }
    } else if let Some(old) = old_fk {
        send(Some(old), Instruction::DeleteKeyAndPropagate)
    } else {
        Ok(())
    }
}

/// Sends a response to the left task: keyed by the left key, to the partition the subscription
/// came from (Kafka Streams' `DefaultForeignResponseSinkPartitioner`).
fn respond<S: RecordSink>(
    sink: &mut S,
    topic: &'static str,
    pk: &[u8],
    hash: Option<[u64; 2]>,
    foreign: Option<&[u8]>,
    partition: Option<i32>,
    timestamp: i64,
    headers: &Headers,
    scratch: &mut Vec<u8>,
) -> Result<(), RecordError> {
    scratch.clear();
    Response { hash, foreign }.write(scratch);
    sink.send(OutgoingRecord {
        topic,
        kind: TopicKind::Repartition,
        partitioning: partition.map_or(Partitioning::ByKey, Partitioning::Exact),
        key: Some(pk),
        value: Some(scratch),
        timestamp,
        headers,
    })?;
    Ok(())
}

/// `[fk length: i32 big-endian][fk]`: Kafka Streams' `CombinedKeySchema#prefixBytes`.
fn prefix(out: &mut Vec<u8>, fk: &[u8]) {
    out.clear();
    out.extend_from_slice(&(fk.len() as i32).to_be_bytes());
    out.extend_from_slice(fk);
}

/// A subscription record on the right table's task (Kafka Streams'
/// `SubscriptionReceiveProcessorSupplier` then `SubscriptionJoinProcessorSupplier`): stores or
/// deletes it in `subscriptions` (writing the changelog), and answers it with the right row's
/// current value from `right` (a table's timestamped store), stamped with the larger of the
/// subscription's and the right row's timestamps (the subscription's when there is no row).
pub fn fk_receive<B: StoreBackend, S: RecordSink>(
    subscriptions: &mut B,
    right: &B,
    record: &InputRecord<'_>,
    changelog: &'static str,
    response_topic: &'static str,
    partition: i32,
    scratch: &mut FkScratch,
    sink: &mut S,
    node: &'static str,
) -> Result<(), RecordError> {
    let bytes = record.value.ok_or_else(|| {
        record_error(
            node,
            "a subscription record has no value; only this foreign-key join (or a Kafka Streams peer of the same application) may write its subscription topic",
        )
    })?;
    let sub = Subscription::read(bytes)
        .map_err(|e| record_err(ErrorKind::ValueDeserialization, node, e))?;
    let fk = record.key;
    let Some(fk) = fk else {
        if sub.instruction != Instruction::PropagateNullIfNoFkValAvailable {
            // Kafka Streams drops it ("Skipping record due to null foreign key").
            return Ok(());
        }
        return respond(
            sink,
            response_topic,
            sub.primary_key,
            sub.hash,
            None,
            sub.primary_partition,
            record.timestamp,
            record.headers,
            &mut scratch.wire,
        );
    };
    let key = &mut scratch.old_fk;
    prefix(key, fk);
    key.extend_from_slice(sub.primary_key);
    let value = match sub.instruction {
        Instruction::DeleteKeyAndPropagate | Instruction::DeleteKeyNoPropagate => {
            subscriptions
                .delete(key)
                .map_err(|e| store_error(node, e))?;
            None
        }
        _ => {
            subscriptions
                .put(key, bytes)
                .map_err(|e| store_error(node, e))?;
            Some(bytes)
        }
    };
    sink.send(OutgoingRecord::changelog(
        changelog,
        partition,
        key,
        value,
        record.timestamp,
    ))?;
    let (foreign, timestamp) = match get_timestamped_bytes(right, fk, node)? {
        Some((value, ts)) => (Some(value), record.timestamp.max(ts)),
        None => (None, record.timestamp),
    };
    let answer = match sub.instruction {
        Instruction::DeleteKeyNoPropagate => return Ok(()),
        Instruction::DeleteKeyAndPropagate => None,
        Instruction::PropagateNullIfNoFkValAvailable => foreign,
        Instruction::PropagateOnlyIfFkValAvailable => match foreign {
            Some(v) => Some(v),
            None => return Ok(()),
        },
    };
    respond(
        sink,
        response_topic,
        sub.primary_key,
        sub.hash,
        answer,
        sub.primary_partition,
        timestamp,
        record.headers,
        &mut scratch.wire,
    )
}

/// A change of the right row whose key is in `scratch.new_fk` (Kafka Streams'
/// `ForeignTableJoinProcessorSupplier`): every subscription of it is answered with the row's
/// value now in `right` (`None`: deleted), stamped with the change's `timestamp` (Kafka Streams
/// 4.4 forwards the right record's timestamp here, not the larger of both sides').
pub fn fk_foreign_change<B: StoreBackend, S: RecordSink>(
    subscriptions: &B,
    right: &B,
    response_topic: &'static str,
    timestamp: i64,
    headers: &Headers,
    scratch: &mut FkScratch,
    sink: &mut S,
    node: &'static str,
) -> Result<(), RecordError> {
    let foreign = get_timestamped_bytes(right, &scratch.new_fk, node)?.map(|(value, _)| value);
    prefix(&mut scratch.old_fk, &scratch.new_fk);
    let from = scratch.old_fk.as_slice();
    let entries = subscriptions
        .range(Bound::Included(from), Bound::Unbounded)
        .map_err(|e| store_error(node, e))?;
    for entry in entries {
        let (key, value) = entry.map_err(|e| store_error(node, e))?;
        if !key.starts_with(from) {
            break;
        }
        let sub =
            Subscription::read(value).map_err(|e| record_err(ErrorKind::Serialization, node, e))?;
        respond(
            sink,
            response_topic,
            &key[from.len()..],
            sub.hash,
            foreign,
            sub.primary_partition,
            timestamp,
            headers,
            &mut scratch.wire,
        )?;
    }
    Ok(())
}

/// A response that is current: the left row's key and value, and the right row's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Resolved<'a> {
    /// The left key's bytes.
    pub pk: &'a [u8],
    /// The left row's current value (`None`: deleted).
    pub left: Option<&'a [u8]>,
    /// The right row's value the response carries (`None`: none).
    pub foreign: Option<&'a [u8]>,
}

/// A response on the left table's task (Kafka Streams' `ResponseJoinProcessorSupplier`): `None`
/// when it is stale (the hash it carries is not the hash of the left row's current value: the
/// row changed since it subscribed), or has no key.
pub fn fk_resolve<'a, B: StoreBackend>(
    left: &'a B,
    record: &InputRecord<'a>,
    node: &'static str,
) -> Result<Option<Resolved<'a>>, RecordError> {
    let Some(pk) = record.key else {
        return Ok(None);
    };
    let bytes = record.value.ok_or_else(|| {
        record_error(
            node,
            "a subscription response has no value; only this foreign-key join (or a Kafka Streams peer of the same application) may write its response topic",
        )
    })?;
    let response =
        Response::read(bytes).map_err(|e| record_err(ErrorKind::ValueDeserialization, node, e))?;
    let current = get_timestamped_bytes(left, pk, node)?.map(|(value, _)| value);
    if current.map(fk_hash) != response.hash {
        return Ok(None);
    }
    Ok(Some(Resolved {
        pk,
        left: current,
        foreign: response.foreign,
    }))
}

fn record_error(node: &'static str, message: &str) -> RecordError {
    record_err(ErrorKind::ValueDeserialization, node, message)
}

#[cfg(test)]
mod tests;
