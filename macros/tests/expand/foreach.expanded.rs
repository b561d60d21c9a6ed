#[doc = " Amounts."]
#[derive(Debug, Clone, Copy, Default)]
pub struct Audit;
impl Audit {
    #[doc = "Topic `amounts` (read as a stream), with its serdes."]
    pub const AMOUNTS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, I64>("amounts");
    #[doc = "Topic `big-amounts` (written), with its serdes."]
    pub const BIG_AMOUNTS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, I64>("big-amounts");
}
const _: () = {
    impl Audit {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`Audit`], over store backend `B`."]
    pub enum __AuditTask<B> {
        S0(__AuditSub0<B>),
    }
    pub struct __AuditSub0<B> {
        __partition: i32,
        __stream_time: i64,
        __late: u64,
        __skipped: u64,
        __dropped: u64,
        __invalid_ts: u64,
        __kbuf: ::std::vec::Vec<u8>,
        __vbuf: ::std::vec::Vec<u8>,
        __win: ::dekaf_streams::__private::WindowScratch,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __AuditSub0<B> {
        fn __create<F: ::dekaf_streams::__private::BackendFactory<Backend = B>>(
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self, ::dekaf_streams::__private::TaskError> {
            let mut __dk_task = Self {
                __partition: partition,
                __stream_time: i64::MIN,
                __late: 0,
                __skipped: 0,
                __dropped: 0,
                __invalid_ts: 0,
                __kbuf: ::std::vec::Vec::with_capacity(64),
                __vbuf: ::std::vec::Vec::with_capacity(64),
                __win: ::dekaf_streams::__private::WindowScratch::new(),
                __marker: ::core::marker::PhantomData,
            };
            Ok(__dk_task)
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __source_0<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.key) {
                if ::dekaf_streams::__private::is_absent::<I64>(__dk_record.value) {
                    {
                        return Err(::dekaf_streams::__private::RecordError::new(
                            ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                            "KSTREAM-FOREACH-0000000001",
                            ::std::string::String::from(
                                "a record with a null key reached foreach (KSTREAM-FOREACH-0000000001), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                            ),
                        ));
                    }
                    {
                        return Err(::dekaf_streams::__private::RecordError::new(
                            ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                            "KSTREAM-FILTER-0000000002",
                            ::std::string::String::from(
                                "a record with a null key reached filter (KSTREAM-FILTER-0000000002), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                            ),
                        ));
                    }
                } else {
                    let __vn0 = ::dekaf_streams::__private::de_value_at::<I64>(
                        "amounts",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000000",
                    )?;
                    let __vn0 = &__vn0;
                    {
                        return Err(::dekaf_streams::__private::RecordError::new(
                            ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                            "KSTREAM-FOREACH-0000000001",
                            ::std::string::String::from(
                                "a record with a null key reached foreach (KSTREAM-FOREACH-0000000001), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                            ),
                        ));
                    }
                    {
                        return Err(::dekaf_streams::__private::RecordError::new(
                            ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                            "KSTREAM-FILTER-0000000002",
                            ::std::string::String::from(
                                "a record with a null key reached filter (KSTREAM-FILTER-0000000002), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                            ),
                        ));
                    }
                }
            } else if ::dekaf_streams::__private::is_absent::<I64>(__dk_record.value) {
                let __kn0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "amounts",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __kn0 = &__kn0;
                {
                    return Err(::dekaf_streams::__private::RecordError::new(
                        ::dekaf_streams::__private::ErrorKind::ValueDeserialization,
                        "KSTREAM-FOREACH-0000000001",
                        ::std::string::String::from(
                            "a record with a null value reached foreach (KSTREAM-FOREACH-0000000001), whose closure takes the value; its serde has no null: read the topic with Nullable::<S> to handle null values",
                        ),
                    ));
                }
                {
                    return Err(::dekaf_streams::__private::RecordError::new(
                        ::dekaf_streams::__private::ErrorKind::ValueDeserialization,
                        "KSTREAM-FILTER-0000000002",
                        ::std::string::String::from(
                            "a record with a null value reached filter (KSTREAM-FILTER-0000000002), whose closure takes the value; its serde has no null: read the topic with Nullable::<S> to handle null values",
                        ),
                    ));
                }
            } else {
                let __k0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "amounts",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __v0 = ::dekaf_streams::__private::de_value_at::<I64>(
                    "amounts",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __kr0 = &__k0;
                let __vr0 = &__v0;
                {
                    ::dekaf_streams::__private::peek(__kr0, __vr0, |key, amount| {
                        println!("{key} {amount}")
                    });
                }
                {
                    if ::dekaf_streams::__private::filter(&__k0, &__v0, |_key, amount| {
                        *amount >= 10
                    }) {
                        let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                            "big-amounts",
                            &__k0,
                            &mut self.__kbuf,
                            "KSTREAM-SINK-0000000003",
                        )?;
                        let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                            "big-amounts",
                            &__v0,
                            &mut self.__vbuf,
                            "KSTREAM-SINK-0000000003",
                        )?;
                        ::dekaf_streams::__private::send(
                            __dk_sink,
                            "big-amounts",
                            ::dekaf_streams::__private::TopicKind::Sink,
                            ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                            ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                            __dk_record.timestamp,
                            __dk_record.headers,
                        )?;
                    }
                }
            }
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __AuditSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<Audit as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["amounts"]
        }
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            let (__dk_result, __dk_topic, __dk_node) = match __dk_record.source {
                0usize => {
                    if __dk_record.timestamp > self.__stream_time {
                        self.__stream_time = __dk_record.timestamp;
                    }
                    (
                        ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                            self.__source_0(__dk_record, __dk_sink)
                        })),
                        "amounts",
                        "KSTREAM-SOURCE-0000000000",
                    )
                }
                other => return Err(::dekaf_streams::__private::TaskError::UnknownSource(other)),
            };
            let __dk_result = match __dk_result {
                Ok(r) => r,
                Err(payload) => Err(::dekaf_streams::__private::panicked(__dk_node, payload)),
            };
            match __dk_result {
                Ok(()) => {}
                Err(e) => ::dekaf_streams::__private::handle_error(
                    e,
                    __dk_topic,
                    __dk_record,
                    Audit::__on_error,
                    &mut self.__skipped,
                    __dk_sink,
                )?,
            }
            Ok(())
        }
        #[allow(unused_variables)]
        fn restore(
            &mut self,
            changelog_topic: &str,
            key: &[u8],
            value: Option<&[u8]>,
            timestamp: i64,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match changelog_topic {
                other => Err(::dekaf_streams::__private::TaskError::UnknownChangelog(
                    other.to_owned(),
                )),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            self.__stream_time = i64::MIN;
            Ok(())
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            let mut __dk_kept = true;
            if !__dk_kept {
                return Ok(false);
            }
            Ok(true)
        }
        fn needs_full_restore(&self) -> bool {
            false
        }
        fn stream_time(&self) -> i64 {
            self.__stream_time
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            self.__stream_time = stream_time;
        }
        fn late_records_dropped(&self) -> u64 {
            self.__late
        }
        fn records_skipped(&self) -> u64 {
            self.__skipped
        }
        fn null_records_dropped(&self) -> u64 {
            self.__dropped
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            self.__invalid_ts
        }
        #[allow(unused_variables)]
        fn store(&self, name: &str) -> Option<&B> {
            match name {
                _ => None,
            }
        }
        #[allow(unused_variables, unused_mut)]
        fn for_each_store<E>(
            &mut self,
            mut __dk_f: impl FnMut(
                &'static ::dekaf_streams::__private::StoreInfo,
                &mut B,
            ) -> ::core::result::Result<(), E>,
        ) -> ::core::result::Result<(), E> {
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __AuditTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __AuditTask::S0(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __AuditTask::S0(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __AuditTask::S0(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.process(record, sink),
            }
        }
        fn restore(
            &mut self,
            changelog_topic: &str,
            key: &[u8],
            value: Option<&[u8]>,
            timestamp: i64,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __AuditTask::S0(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __AuditTask::S0(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __AuditTask::S0(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __AuditTask::S0(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __AuditTask::S0(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __AuditTask::S0(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __AuditTask::S0(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __AuditTask::S0(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __AuditTask::S0(t) => t.history(name),
            }
        }
        fn for_each_store<E>(
            &mut self,
            f: impl FnMut(
                &'static ::dekaf_streams::__private::StoreInfo,
                &mut B,
            ) -> ::core::result::Result<(), E>,
        ) -> ::core::result::Result<(), E> {
            match self {
                __AuditTask::S0(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __AuditTask::S0(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __AuditTask::S0(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __AuditTask::S0(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __AuditTask::S0(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __AuditTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for Audit {
        const APPLICATION_ID: &'static str = "foreach-audit";
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "foreach-audit",
                subtopologies: &[::dekaf_streams::__private::SubtopologyInfo {
                    id: "0",
                    source_topics: &["amounts"],
                    repartition_source_topics: &[],
                    repartition_sink_topics: &[],
                    state_changelog_topics: &[],
                    sink_topics: &["big-amounts"],
                    copartition_groups: &[],
                    stores: &[],
                }],
            };
        const DESCRIPTION: &'static str = "Topology: Audit (application id foreach-audit)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [amounts])\n      --> KSTREAM-FOREACH-0000000001, KSTREAM-FILTER-0000000002\n    Processor: KSTREAM-FOREACH-0000000001 (stores: [])\n      --> none\n      <-- KSTREAM-SOURCE-0000000000\n    Processor: KSTREAM-FILTER-0000000002 (stores: [])\n      --> KSTREAM-SINK-0000000003\n      <-- KSTREAM-SOURCE-0000000000\n    Sink: KSTREAM-SINK-0000000003 (topic: big-amounts)\n      <-- KSTREAM-FILTER-0000000002\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [amounts]\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n  Every internal topic is named after a name given in this topology: a Java application declaring the above matches.\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] = &[];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __AuditTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__AuditTask::S0(__AuditSub0::__create(partition, stores)?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
