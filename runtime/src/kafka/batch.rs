//! Consuming in batches: one librdkafka call hands over up to [`BATCH`] fetched records.
//!
//! `BaseConsumer::poll` returns one record per call, and each call reads the clock several
//! times (rdkafka's deadline, librdkafka's poll bookkeeping), takes the queue lock and wraps the
//! record in an event. [`BatchConsumer::fill`] takes every fetched record that is there, up to
//! [`BATCH`], with one `rd_kafka_consume_batch_queue`: one lock, no event per record.
//!
//! # What each queue carries, and who serves it
//!
//! A consumer made with a `group.id` has two queues the application serves. The *consumer
//! queue* receives the fetched records of every assigned partition (librdkafka forwards each
//! partition's fetch queue to it when the partition's fetcher starts) and the partition-level
//! consumer errors (a fetch error, a partition EOF). The *main queue* receives everything else:
//! global errors (authentication, all brokers down), logs (rdkafka sets `log.queue`), statistics
//! and the OAUTHBEARER token refresh. rdkafka forwards the main queue to the consumer queue
//! (`rd_kafka_poll_set_consumer`) and `BaseConsumer::poll` reads both kinds as events.
//!
//! `rd_kafka_consume_batch_queue` does not return events: it serves whatever is not a record
//! with librdkafka's callbacks, and rdkafka sets none (it asked for events instead). On the
//! forwarded consumer queue it would log a global error instead of returning it (an
//! authentication failure that stops the application today would be retried forever), drop
//! the OAUTHBEARER token refresh (the token would expire) and drop librdkafka's logs.
//! [`BatchConsumer::new`] therefore undoes that forwarding: records and partition errors stay
//! on the consumer queue, which the batch call reads, and the main queue's events are served by
//! [`BatchConsumer::next_error`] as rdkafka serves them (logs and statistics to the context,
//! token refreshes answered by the context's token provider, errors returned). The partition
//! fetch queues are left forwarded by librdkafka itself: forwarding them elsewhere would have
//! to be redone after every fetcher restart (a fetch stop clears a partition queue's
//! forwarding, and a queue the application forwarded is not re-forwarded at the next start).
//!
//! Why the main queue must not stay forwarded: its global errors, logs and token refreshes
//! would go through the batch call's callbacks, where an error is logged instead of returned.
//! Serving them separately keeps each event's own handling: an authentication failure stops the
//! application, a token refresh reaches the provider, logs reach `tracing`.
//!
//! # Records in a batch
//!
//! A batch is taken out of librdkafka at once, so librdkafka's own filters (records fetched
//! before a seek or an unassignment are outdated and dropped) apply when the batch is taken,
//! not when each record is processed; and librdkafka moves the consumer's position past every
//! record of the batch at once. The caller must therefore route a whole batch before anything
//! that reads positions or changes the assignment, and drop the rest of a batch
//! ([`BatchConsumer::discard`]) when it moves the consumer (a rewind after an aborted
//! interval): see the processing loop ([`crate::streams`]).

use std::ffi::{CStr, CString, c_char, c_void};
use std::marker::PhantomData;
use std::ops::Deref;
use std::ptr::{self, NonNull};
use std::time::Duration;

use rdkafka::bindings as rd;
use rdkafka::config::RDKafkaLogLevel;
use rdkafka::consumer::{BaseConsumer, Consumer, ConsumerContext};
use rdkafka::error::KafkaError;

/// The most records one batch takes: the processing loop looks at the clock (commit,
/// punctuation, held-back records) after this many records, so a batch never delays that.
pub const BATCH: usize = 64;

/// How many events already on the consumer queue [`BatchConsumer::new`] serves at most.
const MAX_EARLY_EVENTS: usize = 1024;

/// A consumer read in batches (see the module's doc). Everything else of the consumer (assign,
/// seek, positions, metadata) is reached through `Deref`.
pub struct BatchConsumer<C: ConsumerContext + 'static> {
    /// The consumer queue: records and partition errors.
    queue: NonNull<rd::rd_kafka_queue_t>,
    /// The main queue, no longer forwarded to the consumer queue: errors, logs, statistics,
    /// token refreshes.
    events: NonNull<rd::rd_kafka_queue_t>,
    /// The messages of the current batch: the first `len` are live, owned here.
    slots: Box<[*mut rd::rd_kafka_message_t; BATCH]>,
    len: usize,
    /// Dropped after the queue handles (`Drop` destroys them first).
    consumer: BaseConsumer<C>,
}

impl<C: ConsumerContext + 'static> BatchConsumer<C> {
    /// Wraps `consumer`, which must have a `group.id` (it has a consumer queue then), and
    /// stops forwarding its main queue to its consumer queue. Events already on the consumer
    /// queue (made before: the first token refresh) are served through `BaseConsumer::poll`.
    pub fn new(consumer: BaseConsumer<C>) -> Result<Self, KafkaError> {
        let rk = consumer.client().native_ptr();
        // SAFETY: `rk` is the live handle owned by `consumer`. Each call returns a new handle
        // holding its own reference to the queue (NULL for the consumer queue of a consumer
        // without a group), destroyed exactly once in `Drop`, before `consumer` is.
        let (queue, events) = unsafe {
            (
                rd::rd_kafka_queue_get_consumer(rk),
                rd::rd_kafka_queue_get_main(rk),
            )
        };
        let Some(events) = NonNull::new(events) else {
            if let Some(queue) = NonNull::new(queue) {
                // SAFETY: as above; not used again.
                unsafe { rd::rd_kafka_queue_destroy(queue.as_ptr()) };
            }
            return Err(KafkaError::ClientCreation(
                "librdkafka has no main queue for the consumer".to_owned(),
            ));
        };
        let Some(queue) = NonNull::new(queue) else {
            // SAFETY: as above; not used again.
            unsafe { rd::rd_kafka_queue_destroy(events.as_ptr()) };
            return Err(KafkaError::ClientCreation(
                "the consumer has no consumer queue (no group.id)".to_owned(),
            ));
        };
        // SAFETY: both handles are live. From now on new main-queue ops stay on the main queue
        // (served by `next_error`); ops already moved to the consumer queue stay there.
        unsafe { rd::rd_kafka_queue_forward(events.as_ptr(), ptr::null_mut()) };
        // The partitions are not assigned yet, so whatever is on the consumer queue is an event
        // (rdkafka forwarded the main queue at creation): served by rdkafka, as before.
        for _ in 0..MAX_EARLY_EVENTS {
            // SAFETY: the handle is live.
            if unsafe { rd::rd_kafka_queue_length(queue.as_ptr()) } == 0 {
                break;
            }
            if let Some(Err(error)) = consumer.poll(Duration::ZERO) {
                tracing::warn!(%error, "consumer error before the first assignment");
            }
        }
        Ok(BatchConsumer {
            queue,
            events,
            slots: Box::new([ptr::null_mut(); BATCH]),
            len: 0,
            consumer,
        })
    }

    /// Destroys the current batch, then takes the fetched records and partition errors that
    /// are there, at most [`BATCH`]; when there are none, waits up to `timeout` for one (and
    /// then takes those that came with it). Returns how many entries the new batch has: read
    /// them with [`entry`](Self::entry).
    ///
    /// Never waits once it has an entry: librdkafka's batch call with a timeout waits until the
    /// batch is full, which would hold a live record (and the loop's commit) for the whole
    /// timeout. The wait is for one entry only.
    pub fn fill(&mut self, timeout: Duration) -> usize {
        self.discard();
        let mut n = self.consume(0, 0, BATCH);
        if n == 0 && !timeout.is_zero() {
            let ms = i32::try_from(timeout.as_micros().div_ceil(1000)).unwrap_or(i32::MAX);
            n = self.consume(0, ms, 1);
            if n == 1 {
                n += self.consume(1, 0, BATCH - 1);
            }
        }
        self.len = n;
        n
    }

    /// Takes up to `max` entries into the slots from `at`, waiting up to `timeout_ms` for
    /// `max` of them.
    fn consume(&mut self, at: usize, timeout_ms: i32, max: usize) -> usize {
        let max = max.min(BATCH - at);
        // SAFETY: the slots from `at` have room for `max` pointers, which librdkafka fills with
        // messages it hands over (destroyed by `discard`); the queue handle is live.
        let n = unsafe {
            rd::rd_kafka_consume_batch_queue(
                self.queue.as_ptr(),
                timeout_ms,
                self.slots.as_mut_ptr().add(at),
                max,
            )
        };
        // -1 is an error of the call itself (none for a consumer queue): nothing taken.
        usize::try_from(n).unwrap_or(0).min(max)
    }

    /// Destroys the messages of the current batch: those not read yet are dropped (the caller
    /// moved the consumer, or gives up).
    pub fn discard(&mut self) {
        for slot in &mut self.slots[..self.len] {
            if !slot.is_null() {
                // SAFETY: librdkafka handed this message over and it was not destroyed yet:
                // destroyed exactly once, the slot is nulled. No `Entry` borrows it (`discard`
                // takes `&mut self`, entries borrow `self`).
                unsafe { rd::rd_kafka_message_destroy(*slot) };
                *slot = ptr::null_mut();
            }
        }
        self.len = 0;
    }

    /// Entry `i` of the current batch.
    #[inline]
    pub fn entry(&self, i: usize) -> Option<Entry<'_>> {
        let message = *self.slots[..self.len].get(i)?;
        // SAFETY: a live message of the batch (see `consume`), destroyed only by `discard` or
        // `Drop`, which need `&mut self` and so outlive the returned borrow.
        let m = unsafe { message.as_ref()? };
        if m.err != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
            // As rdkafka's `poll` reports a message carrying an error.
            return Some(Entry::Error(
                if m.err == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR__PARTITION_EOF {
                    KafkaError::PartitionEOF(m.partition)
                } else {
                    KafkaError::MessageConsumption(m.err.into())
                },
            ));
        }
        Some(Entry::Record(Record { m }))
    }

    /// The partition's start and end as the consumer last learned them from a fetch response
    /// (librdkafka's `rd_kafka_get_watermark_offsets`: no request, never blocks; the end of a
    /// `read_committed` consumer is the last stable offset). `None` before the first fetch of
    /// the partition.
    pub fn cached_watermarks(&self, topic: &str, partition: i32) -> Option<(i64, i64)> {
        super::watermarks::cached_watermarks(&self.consumer, topic, partition)
    }

    /// Serves the main queue's events that are there (never waits): logs and statistics go to
    /// the consumer's context, token refreshes are answered by it, and the first error is
    /// returned (call again for the next). `None`: no error is waiting.
    pub fn next_error(&self) -> Option<KafkaError> {
        loop {
            // SAFETY: the handle is live; a returned event is destroyed below, once.
            let event = unsafe { rd::rd_kafka_queue_poll(self.events.as_ptr(), 0) };
            if event.is_null() {
                return None;
            }
            let error = self.serve(event);
            // SAFETY: the event came from `rd_kafka_queue_poll` and nothing borrows it now.
            unsafe { rd::rd_kafka_event_destroy(event) };
            if error.is_some() {
                return error;
            }
        }
    }

    /// Serves one main-queue event as rdkafka's poll does.
    fn serve(&self, event: *mut rd::rd_kafka_event_t) -> Option<KafkaError> {
        let context = self.consumer.context();
        // SAFETY (every call below): `event` is a live event of the type just read; strings
        // librdkafka returns for it are NUL-terminated and live as long as the event.
        match unsafe { rd::rd_kafka_event_type(event) } {
            rd::RD_KAFKA_EVENT_LOG => {
                let (mut fac, mut text, mut level) = (ptr::null(), ptr::null(), 0);
                if unsafe { rd::rd_kafka_event_log(event, &mut fac, &mut text, &mut level) } == 0 {
                    let fac = unsafe { cstr(fac) };
                    let text = unsafe { cstr(text) };
                    context.log(log_level(level), fac.trim(), text.trim());
                }
                None
            }
            rd::RD_KAFKA_EVENT_STATS => {
                let json = unsafe { rd::rd_kafka_event_stats(event) };
                if !json.is_null() {
                    context.stats_raw(unsafe { CStr::from_ptr(json) }.to_bytes());
                }
                None
            }
            rd::RD_KAFKA_EVENT_ERROR => {
                let code = unsafe { rd::rd_kafka_event_error(event) };
                if code == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                    return None;
                }
                let reason = unsafe { cstr(rd::rd_kafka_event_error_string(event)) };
                context.error(KafkaError::Global(code.into()), reason.trim());
                Some(
                    if unsafe { rd::rd_kafka_event_error_is_fatal(event) } != 0 {
                        KafkaError::MessageConsumptionFatal(code.into())
                    } else {
                        KafkaError::MessageConsumption(code.into())
                    },
                )
            }
            rd::RD_KAFKA_EVENT_OAUTHBEARER_TOKEN_REFRESH => {
                if C::ENABLE_REFRESH_OAUTH_TOKEN {
                    let config = unsafe { rd::rd_kafka_event_config_string(event) };
                    let config = (!config.is_null()).then(|| unsafe { cstr(config) });
                    let set = context
                        .generate_oauth_token(config.as_deref())
                        .map_err(|e| e.to_string())
                        .and_then(|token| super::oauth::set_token(self.consumer.client(), &token));
                    if let Err(why) = set {
                        tracing::debug!(%why, "no OAUTHBEARER token for the consumer");
                        let why = CString::new(why.replace('\0', " ")).unwrap_or_default();
                        // SAFETY: live client handle; librdkafka copies the NUL-terminated text.
                        unsafe {
                            rd::rd_kafka_oauthbearer_set_token_failure(
                                self.consumer.client().native_ptr(),
                                why.as_ptr(),
                            )
                        };
                    }
                }
                None
            }
            other => {
                let name = unsafe { cstr(rd::rd_kafka_event_name(event)) };
                tracing::warn!(event = %name, kind = other, "ignored librdkafka event");
                None
            }
        }
    }
}

/// A NUL-terminated string from librdkafka ("" for NULL), copied when it is not UTF-8.
///
/// # Safety
///
/// `text` is NULL or NUL-terminated and outlives the returned borrow.
unsafe fn cstr<'a>(text: *const c_char) -> std::borrow::Cow<'a, str> {
    if text.is_null() {
        return "".into();
    }
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(text) }.to_string_lossy()
}

/// librdkafka's syslog level as rdkafka's.
fn log_level(level: i32) -> RDKafkaLogLevel {
    match level {
        0 => RDKafkaLogLevel::Emerg,
        1 => RDKafkaLogLevel::Alert,
        2 => RDKafkaLogLevel::Critical,
        3 => RDKafkaLogLevel::Error,
        4 => RDKafkaLogLevel::Warning,
        5 => RDKafkaLogLevel::Notice,
        6 => RDKafkaLogLevel::Info,
        _ => RDKafkaLogLevel::Debug,
    }
}

impl<C: ConsumerContext + 'static> Deref for BatchConsumer<C> {
    type Target = BaseConsumer<C>;
    fn deref(&self) -> &BaseConsumer<C> {
        &self.consumer
    }
}

impl<C: ConsumerContext + 'static> Drop for BatchConsumer<C> {
    fn drop(&mut self) {
        self.discard();
        // SAFETY: the client is alive (the consumer is dropped after this body). The main queue
        // is forwarded to the consumer queue again, with what it holds, so the consumer's close
        // serves its events as rdkafka expects; then each handle is destroyed once.
        unsafe {
            rd::rd_kafka_poll_set_consumer(self.consumer.client().native_ptr());
            rd::rd_kafka_queue_destroy(self.events.as_ptr());
            rd::rd_kafka_queue_destroy(self.queue.as_ptr());
        }
    }
}

/// One entry of a batch.
pub enum Entry<'a> {
    /// A fetched record.
    Record(Record<'a>),
    /// An error the consumer reported for a partition, as `BaseConsumer::poll` reports it.
    Error(KafkaError),
}

/// A fetched record, borrowed from its batch: key, value and headers are librdkafka's bytes.
#[derive(Clone, Copy)]
pub struct Record<'a> {
    m: &'a rd::rd_kafka_message_t,
}

impl<'a> Record<'a> {
    /// Its topic.
    #[inline]
    pub fn topic(&self) -> &'a str {
        if self.m.rkt.is_null() {
            return "";
        }
        // SAFETY: the message keeps a reference to its topic handle, whose name is a
        // NUL-terminated string living as long as the handle.
        unsafe { CStr::from_ptr(rd::rd_kafka_topic_name(self.m.rkt)) }
            .to_str()
            .unwrap_or("")
    }

    /// Its partition.
    #[inline]
    pub fn partition(&self) -> i32 {
        self.m.partition
    }

    /// Its offset.
    #[inline]
    pub fn offset(&self) -> i64 {
        self.m.offset
    }

    /// Its key (`None`: null).
    #[inline]
    pub fn key(&self) -> Option<&'a [u8]> {
        // SAFETY: `key` is NULL or `key_len` bytes owned by the live message.
        unsafe { bytes(self.m.key, self.m.key_len) }
    }

    /// Its value (`None`: null).
    #[inline]
    pub fn payload(&self) -> Option<&'a [u8]> {
        // SAFETY: `payload` is NULL or `len` bytes owned by the live message.
        unsafe { bytes(self.m.payload, self.m.len) }
    }

    /// Its timestamp in milliseconds (create or log-append time), `None` when it has none
    /// (as rdkafka's `Timestamp::to_millis`).
    #[inline]
    pub fn timestamp(&self) -> Option<i64> {
        let mut kind = rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
        // SAFETY: a live message; `kind` is written.
        let ts = unsafe { rd::rd_kafka_message_timestamp(self.m, &mut kind) };
        (kind != rd::rd_kafka_timestamp_type_t::RD_KAFKA_TIMESTAMP_NOT_AVAILABLE && ts != -1)
            .then_some(ts)
    }

    /// Its headers in order, name and value (`None`: null value).
    #[inline]
    pub fn headers(&self) -> HeaderIter<'a> {
        let mut headers: *mut rd::rd_kafka_headers_t = ptr::null_mut();
        // SAFETY: a live message; librdkafka parses its headers into a list the message owns.
        let found = unsafe { rd::rd_kafka_message_headers(self.m, &mut headers) };
        HeaderIter {
            headers: if found == rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR {
                headers
            } else {
                ptr::null_mut()
            },
            next: 0,
            _message: PhantomData,
        }
    }
}

/// The headers of a [`Record`].
pub struct HeaderIter<'a> {
    headers: *mut rd::rd_kafka_headers_t,
    next: usize,
    _message: PhantomData<&'a rd::rd_kafka_message_t>,
}

impl HeaderIter<'_> {
    /// Whether the record has no header.
    #[inline]
    pub fn is_empty(&self) -> bool {
        // SAFETY: NULL-checked; the list is owned by the live message.
        self.headers.is_null() || unsafe { rd::rd_kafka_header_cnt(self.headers) } == 0
    }
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = (&'a str, Option<&'a [u8]>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.headers.is_null() {
            return None;
        }
        let (mut name, mut value, mut size): (*const c_char, *const c_void, usize) =
            (ptr::null(), ptr::null(), 0);
        // SAFETY: the list is owned by the live message; librdkafka writes pointers into it
        // (a NUL-terminated name, `size` value bytes or NULL for a null value).
        let found = unsafe {
            rd::rd_kafka_header_get_all(self.headers, self.next, &mut name, &mut value, &mut size)
        };
        if found != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR || name.is_null() {
            return None;
        }
        self.next += 1;
        // SAFETY: as above. A name that is not UTF-8 reads as "" (Kafka's are strings).
        let name = unsafe { CStr::from_ptr(name) }.to_str().unwrap_or("");
        Some((name, unsafe { bytes(value, size) }))
    }
}

/// The bytes of a key, value or header value, `None` for NULL.
///
/// # Safety
///
/// `data` is NULL or points to `len` readable bytes that outlive `'a`.
#[inline]
unsafe fn bytes<'a>(data: *const c_void, len: usize) -> Option<&'a [u8]> {
    if data.is_null() {
        None
    } else {
        // SAFETY: the caller's contract.
        Some(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
    }
}
