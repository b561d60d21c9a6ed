//! Topic handles of a processing thread's producer (see [`TopicHandles`]).

/// The librdkafka topic handles of one producer, one per topic name it was asked to send to.
///
/// `BaseProducer::send` names the topic of every record as a C string: it allocates the string,
/// and librdkafka looks the topic up by name under the client's lock and takes a reference on
/// it, for every record. A handle made once per topic (`rd_kafka_topic_new`) and passed with
/// each record (`RD_KAFKA_VTYPE_RKT`) spares all three. Topic names are the topology's
/// `&'static str`s, so a name is found by its address and length: a few pointer comparisons.
///
/// One of the crate's small `unsafe` wrappers over librdkafka (see `kafka::oauth`): the handles
/// are valid from `rd_kafka_topic_new` until their `rd_kafka_topic_destroy` on drop, which comes
/// before the client's (field order of `StreamsProducer`); librdkafka's topic handles may be
/// used from any thread.
#[derive(Default)]
pub(crate) struct TopicHandles {
    handles: std::cell::RefCell<Vec<TopicHandle>>,
}

/// One topic handle, and the name (address and length) it was made for.
struct TopicHandle {
    name: (usize, usize),
    rkt: std::ptr::NonNull<rdkafka::bindings::rd_kafka_topic_t>,
}

// SAFETY: a librdkafka topic handle is reference counted and thread-safe; it is only passed to
// librdkafka calls.
unsafe impl Send for TopicHandle {}

impl Drop for TopicHandle {
    fn drop(&mut self) {
        // SAFETY: the handle came from `rd_kafka_topic_new` and is destroyed once, here.
        unsafe { rdkafka::bindings::rd_kafka_topic_destroy(self.rkt.as_ptr()) };
    }
}

impl TopicHandles {
    /// The handle of `topic` on client `rk`, made on first use; `None` when librdkafka refuses
    /// the name (the caller sends by name and reports librdkafka's error).
    pub(crate) fn get(
        &self,
        rk: *mut rdkafka::bindings::rd_kafka_t,
        topic: &'static str,
    ) -> Option<*mut rdkafka::bindings::rd_kafka_topic_t> {
        let name = (topic.as_ptr() as usize, topic.len());
        let mut handles = self.handles.borrow_mut();
        if let Some(h) = handles.iter().find(|h| h.name == name) {
            return Some(h.rkt.as_ptr());
        }
        let c_name = std::ffi::CString::new(topic).ok()?;
        // SAFETY: `rk` is the producer's live client; the name is NUL-terminated and only read
        // during the call; a null configuration means the client's default topic configuration,
        // what sending by name uses.
        let rkt = unsafe {
            rdkafka::bindings::rd_kafka_topic_new(rk, c_name.as_ptr(), std::ptr::null_mut())
        };
        let rkt = std::ptr::NonNull::new(rkt)?;
        handles.push(TopicHandle { name, rkt });
        Some(rkt.as_ptr())
    }
}
