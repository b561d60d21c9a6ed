//! Consuming in batches: one librdkafka call hands over up to [`BATCH`] fetched messages.
//!
//! `BaseConsumer::poll` returns one message per call, and each call reads the clock three or
//! four times (rdkafka's own deadline, librdkafka's poll deadline and its `max.poll.interval.ms`
//! bookkeeping at the start and end of the poll), takes the queue lock and allocates the event
//! that carries the message. Measured on 600,000 fetched messages (2-core machine), `poll` cost
//! 400–570 ns of the consuming thread per message and `rd_kafka_consume_batch_queue` 230–300 ns.
//!
//! [`BatchConsumer`] owns the consumer and a handle of its queue, and lends out one
//! [`Batch`] at a time; a batch destroys its messages when it is dropped. Everything else of
//! the consumer (assign, committed offsets, metadata) is reached through `Deref`.

use std::ffi::CStr;
use std::ops::Deref;
use std::os::raw::{c_char, c_void};
use std::ptr::{self, NonNull};
use std::time::Duration;

use rdkafka::bindings as rd;
use rdkafka::consumer::{BaseConsumer, Consumer};

use crate::task::Headers;

/// The most messages one batch takes.
pub const BATCH: usize = 256;

/// A consumer read in batches. The queue handle is destroyed before the consumer.
pub struct BatchConsumer {
    queue: NonNull<rd::rd_kafka_queue_t>,
    slots: Vec<*mut rd::rd_kafka_message_t>,
    consumer: BaseConsumer,
}

impl BatchConsumer {
    /// Wraps `consumer` (made with a `group.id`, so its main queue is redirected to its consumer
    /// queue, which is what `BaseConsumer::poll` reads too). `None` if librdkafka has no
    /// consumer queue for it.
    pub fn new(consumer: BaseConsumer) -> Option<Self> {
        // SAFETY: `native_ptr` is the live handle of `consumer`; the returned queue handle holds
        // its own reference to the queue and is destroyed exactly once, in `Drop`, before
        // `consumer` (see `Drop for BatchConsumer`).
        let queue = unsafe { rd::rd_kafka_queue_get_consumer(consumer.client().native_ptr()) };
        Some(BatchConsumer {
            queue: NonNull::new(queue)?,
            slots: vec![ptr::null_mut(); BATCH],
            consumer,
        })
    }

    /// The messages fetched so far, at most [`BATCH`]; when there are none, waits up to
    /// `timeout` for one. (A batch never waits for more messages once it has one: librdkafka's
    /// batch call would wait until the batch is full, which delayed a live record by the whole
    /// timeout.) Errors the consumer reports instead of a message are in the batch too
    /// ([`Polled::Error`]).
    pub fn next_batch(&mut self, timeout: Duration) -> Batch<'_> {
        let mut n = self.consume(0, self.slots.len());
        if n == 0 {
            n = self.consume(i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX), 1);
        }
        Batch {
            messages: &mut self.slots[..n],
        }
    }

    /// Takes up to `max` messages into the first slots, waiting up to `timeout_ms` until there
    /// are `max`.
    fn consume(&mut self, timeout_ms: i32, max: usize) -> usize {
        let max = max.min(self.slots.len());
        // SAFETY: `slots` has room for `max` message pointers, which librdkafka fills; the queue
        // handle is live (owned by `self`).
        let n = unsafe {
            rd::rd_kafka_consume_batch_queue(
                self.queue.as_ptr(),
                timeout_ms,
                self.slots.as_mut_ptr(),
                max,
            )
        };
        usize::try_from(n).unwrap_or(0).min(max)
    }
}

impl Deref for BatchConsumer {
    type Target = BaseConsumer;
    fn deref(&self) -> &BaseConsumer {
        &self.consumer
    }
}

impl Drop for BatchConsumer {
    fn drop(&mut self) {
        // SAFETY: the handle came from `rd_kafka_queue_get_consumer` and is destroyed once, here,
        // while the consumer (dropped after this body) is still alive.
        unsafe { rd::rd_kafka_queue_destroy(self.queue.as_ptr()) }
    }
}

/// Messages handed over by one [`BatchConsumer::next_batch`]; destroyed when dropped.
pub struct Batch<'a> {
    messages: &'a mut [*mut rd::rd_kafka_message_t],
}

/// One entry of a [`Batch`].
pub enum Polled<'a> {
    /// A message.
    Message(RawMessage<'a>),
    /// An error the consumer reported (for example a fetch error); the partition goes on.
    Error(String),
}

/// A fetched message, borrowed from its batch.
pub struct RawMessage<'a> {
    /// Its topic.
    pub topic: &'a str,
    /// Its partition.
    pub partition: i32,
    /// Its offset.
    pub offset: i64,
    /// Key bytes.
    pub key: Option<&'a [u8]>,
    /// Value bytes.
    pub value: Option<&'a [u8]>,
    /// Its timestamp (create or log-append time), if it has one.
    pub timestamp: Option<i64>,
    message: *const rd::rd_kafka_message_t,
}

impl RawMessage<'_> {
    /// Copies its headers into `out` (cleared first); leaves it empty for a message without.
    pub fn headers_into(&self, out: &mut Headers) {
        *out = Headers::new();
        let mut hdrs: *mut rd::rd_kafka_headers_t = ptr::null_mut();
        // SAFETY: `message` is live while the batch is (it borrows the batch); the header list
        // belongs to the message and is only read here. Names are NUL-terminated; values are
        // `size` bytes (or null for a null value).
        unsafe {
            if rd::rd_kafka_message_headers(self.message, &mut hdrs)
                != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
                || hdrs.is_null()
            {
                return;
            }
            let mut idx = 0;
            loop {
                let mut name: *const c_char = ptr::null();
                let mut value: *const c_void = ptr::null();
                let mut size = 0usize;
                if rd::rd_kafka_header_get_all(hdrs, idx, &mut name, &mut value, &mut size)
                    != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
                    || name.is_null()
                {
                    return;
                }
                let name = CStr::from_ptr(name).to_string_lossy();
                let value = (!value.is_null())
                    .then(|| std::slice::from_raw_parts(value.cast::<u8>(), size));
                out.add(name, value);
                idx += 1;
            }
        }
    }
}

/// The bytes of a key or payload, `None` for a null pointer.
///
/// # Safety
///
/// `data` is null or points to `len` readable bytes that outlive `'a`.
unsafe fn bytes<'a>(data: *const c_void, len: usize) -> Option<&'a [u8]> {
    if data.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
    }
}

impl Batch<'_> {
    /// How many entries it has.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether it has none (the wait timed out).
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// The `i`-th entry.
    pub fn get(&self, i: usize) -> Option<Polled<'_>> {
        let &message = self.messages.get(i)?;
        if message.is_null() {
            return None;
        }
        // SAFETY: librdkafka filled the first `len` slots with live messages, destroyed only
        // when the batch is dropped; the returned borrows end before that. A topic name is a
        // NUL-terminated string owned by the topic handle the message keeps.
        unsafe {
            let m = &*message;
            if m.err != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                let text = CStr::from_ptr(rd::rd_kafka_err2str(m.err)).to_string_lossy();
                return Some(Polled::Error(text.into_owned()));
            }
            let topic = if m.rkt.is_null() {
                ""
            } else {
                CStr::from_ptr(rd::rd_kafka_topic_name(m.rkt))
                    .to_str()
                    .unwrap_or("")
            };
            let mut kind = rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
            let ts = rd::rd_kafka_message_timestamp(message, &mut kind);
            Some(Polled::Message(RawMessage {
                topic,
                partition: m.partition,
                offset: m.offset,
                key: bytes(m.key, m.key_len),
                value: bytes(m.payload, m.len),
                timestamp: (kind
                    != rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE)
                    .then_some(ts),
                message,
            }))
        }
    }
}

impl Drop for Batch<'_> {
    fn drop(&mut self) {
        for slot in self.messages.iter_mut() {
            if !slot.is_null() {
                // SAFETY: each filled slot holds a message librdkafka handed over, destroyed
                // exactly once (the slot is nulled).
                unsafe { rd::rd_kafka_message_destroy(*slot) };
                *slot = ptr::null_mut();
            }
        }
    }
}
