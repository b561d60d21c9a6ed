#[doc = " Sources with timestamp extractors: a closure, and a built-in."]
#[derive(Debug, Clone, Copy, Default)]
pub struct Stamps;
impl Stamps {
    #[doc = "Topic `events` (read as a stream), with its serdes."]
    pub const EVENTS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, I64>("events");
    #[doc = "Topic `pings` (read as a stream), with its serdes."]
    pub const PINGS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("pings");
    #[doc = "Topic `pongs` (written), with its serdes."]
    pub const PONGS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("pongs");
    #[doc = "Key-value store `counts` (changelog `timestamp-extractors-counts-changelog`)."]
    pub const COUNTS: ::dekaf_streams::__private::StoreRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <::dekaf_streams::serdes::I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::StoreRef::timestamped::<Utf8, ::dekaf_streams::serdes::I64>(
        "counts",
    );
}
const _: () = {
    impl Stamps {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`Stamps`], over store backend `B`."]
    pub enum __StampsTask<B> {
        S0(__StampsSub0<B>),
        S1(__StampsSub1<B>),
    }
    pub struct __StampsSub0<B> {
        __partition: i32,
        __stream_time: i64,
        __late: u64,
        __skipped: u64,
        __dropped: u64,
        __invalid_ts: u64,
        __kbuf: ::std::vec::Vec<u8>,
        __vbuf: ::std::vec::Vec<u8>,
        __win: ::dekaf_streams::__private::WindowScratch,
        __store_0: B,
        __cache_max: usize,
        __fkbuf: ::std::vec::Vec<u8>,
        __fvbuf: ::std::vec::Vec<u8>,
        __fobuf: ::std::vec::Vec<u8>,
        __obuf: ::std::vec::Vec<u8>,
        __cache_1: ::dekaf_streams::__private::DirtyKeys,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __StampsSub0<B> {
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
                __store_0: stores.open(
                    "timestamp-extractors",
                    "0",
                    partition,
                    &::dekaf_streams::__private::StoreInfo {
                        name: "counts",
                        changelog_topic: "timestamp-extractors-counts-changelog",
                        logged: true,
                        in_memory: false,
                        kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                    },
                )?,
                __cache_max: 0,
                __fkbuf: ::std::vec::Vec::new(),
                __fvbuf: ::std::vec::Vec::new(),
                __fobuf: ::std::vec::Vec::new(),
                __obuf: ::std::vec::Vec::new(),
                __cache_1: ::dekaf_streams::__private::DirtyKeys::new(),
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
            if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.key)
                || ::dekaf_streams::__private::is_absent::<I64>(__dk_record.value)
            {
                let __dk_ts: i64 = __dk_record.timestamp;
                if __dk_ts < 0 {
                    self.__invalid_ts += 1;
                    ::dekaf_streams::__private::event_time::skipped(
                        "events",
                        __dk_record.partition,
                        __dk_record.offset,
                        __dk_ts,
                    );
                    return Ok(());
                }
                if __dk_ts > self.__stream_time {
                    self.__stream_time = __dk_ts;
                }
                let __dk_stamped = ::dekaf_streams::__private::InputRecord {
                    timestamp: __dk_ts,
                    ..*__dk_record
                };
                let __dk_record = &__dk_stamped;
            }
            if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.key) {
                if ::dekaf_streams::__private::is_absent::<I64>(__dk_record.value) {
                    self.__dropped += 1;
                } else {
                    let __vn0 = ::dekaf_streams::__private::de_value_at::<I64>(
                        "events",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000000",
                    )?;
                    self.__dropped += 1;
                }
            } else if ::dekaf_streams::__private::is_absent::<I64>(__dk_record.value) {
                let __kn0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "events",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                self.__dropped += 1;
            } else {
                let __k0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "events",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __v0 = ::dekaf_streams::__private::de_value_at::<I64>(
                    "events",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __dk_ts: i64 = ::dekaf_streams::__private::event_time::extract(
                    &__k0,
                    &__v0,
                    __dk_record.timestamp,
                    ::dekaf_streams::__private::event_time::partition_time(self.__stream_time),
                    |_key: &String, value: &i64, _record_ts, _partition_time| *value,
                );
                if __dk_ts < 0 {
                    self.__invalid_ts += 1;
                    ::dekaf_streams::__private::event_time::skipped(
                        "events",
                        __dk_record.partition,
                        __dk_record.offset,
                        __dk_ts,
                    );
                    return Ok(());
                }
                if __dk_ts > self.__stream_time {
                    self.__stream_time = __dk_ts;
                }
                let __dk_stamped = ::dekaf_streams::__private::InputRecord {
                    timestamp: __dk_ts,
                    ..*__dk_record
                };
                let __dk_record = &__dk_stamped;
                let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                    &__k0,
                    &mut self.__kbuf,
                    "KSTREAM-AGGREGATE-0000000001",
                )?;
                let __dk_skey: &[u8] = &self.__kbuf;
                if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present)
                    && !__dk_record.value.is_none()
                {
                    let (__v1, __dk_present, __dk_existed, __dk_ts) =
                        ::dekaf_streams::__private::store_update_stamped::<
                            ::dekaf_streams::serdes::I64,
                            _,
                            _,
                            _,
                        >(
                            &mut self.__store_0,
                            __dk_skey,
                            &mut self.__vbuf,
                            __dk_sink,
                            "timestamp-extractors-counts-changelog",
                            self.__partition,
                            __dk_record.timestamp,
                            "KSTREAM-AGGREGATE-0000000001",
                            |__dk_old| match __dk_old {
                                Some(c) => i64::saturating_add(c, 1),
                                None => 1i64,
                            },
                        )?;
                    let __dk_arec = ::dekaf_streams::__private::InputRecord {
                        timestamp: __dk_ts,
                        ..*__dk_record
                    };
                    let __dk_record = &__dk_arec;
                    if self.__cache_max != 0 {
                        self.__cache_1.mark(
                            __dk_skey,
                            ::dekaf_streams::__private::Update {
                                value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                                source: __dk_record.source,
                                timestamp: __dk_record.timestamp,
                                offset: __dk_record.offset,
                                existed: __dk_existed,
                            },
                        );
                    } else {
                    }
                } else {
                    self.__dropped += 1;
                }
            }
            Ok(())
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __forward_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_skey: &[u8] = __dk_record.key.unwrap_or_default();
            let __k1 = ::dekaf_streams::__private::de_key::<Utf8>(
                Some(__dk_skey),
                "KSTREAM-AGGREGATE-0000000001",
            )?;
            let __v1 = ::dekaf_streams::__private::de_value::<::dekaf_streams::serdes::I64>(
                __dk_record.value,
                "KSTREAM-AGGREGATE-0000000001",
            )?;
            Ok(())
        }
        #[doc = r" Forwards the current result of every dirty key of this aggregation, then"]
        #[doc = r" forgets the keys (also when it fails)."]
        #[inline(never)]
        fn __flush_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            if self.__cache_1.is_empty() {
                return Ok(());
            }
            let mut __dk_fk = ::core::mem::take(&mut self.__fkbuf);
            let mut __dk_fv = ::core::mem::take(&mut self.__fvbuf);
            let mut __dk_fo = ::core::mem::take(&mut self.__fobuf);
            let mut __dk_out = Ok(());
            let mut __dk_i = 0usize;
            while let Some((__dk_key, __dk_entry)) = self.__cache_1.get(__dk_i) {
                __dk_i += 1;
                __dk_fk.clear();
                __dk_fk.extend_from_slice(__dk_key);
                __dk_fo.clear();
                let __dk_has_old = match self.__cache_1.old(&__dk_entry) {
                    Some(__dk_o) => {
                        __dk_fo.extend_from_slice(__dk_o);
                        true
                    }
                    None => false,
                };
                __dk_fv.clear();
                let __dk_present = match ::dekaf_streams::__private::StoreBackend::get(
                    &self.__store_0,
                    &__dk_fk,
                ) {
                    Ok(Some(__dk_v)) => {
                        __dk_fv.extend_from_slice(__dk_v.get(8..).unwrap_or_default());
                        true
                    }
                    Ok(None) => false,
                    Err(e) => {
                        __dk_out = Err(::dekaf_streams::__private::TaskError::Store(e));
                        break;
                    }
                };
                if !__dk_present && !__dk_entry.existed {
                    continue;
                }
                let __dk_record = ::dekaf_streams::__private::InputRecord {
                    source: __dk_entry.source,
                    partition: self.__partition,
                    offset: __dk_entry.offset,
                    key: Some(&__dk_fk),
                    value: if __dk_present { Some(&__dk_fv) } else { None },
                    timestamp: __dk_entry.timestamp,
                    headers: ::dekaf_streams::__private::Headers::empty(),
                };
                let __dk_result =
                    match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                        self.__forward_1(&__dk_record, __dk_sink)
                    })) {
                        Ok(r) => r,
                        Err(payload) => Err(::dekaf_streams::__private::panicked(
                            "KSTREAM-AGGREGATE-0000000001",
                            payload,
                        )),
                    };
                if let Err(e) = __dk_result {
                    let __dk_topic = ::dekaf_streams::__private::Task::source_topics(self)
                        .get(__dk_entry.source)
                        .copied()
                        .unwrap_or("");
                    if let Err(e) = ::dekaf_streams::__private::handle_error(
                        e,
                        __dk_topic,
                        &__dk_record,
                        Stamps::__on_error,
                        &mut self.__skipped,
                        __dk_sink,
                    ) {
                        __dk_out = Err(e);
                        break;
                    }
                }
            }
            self.__cache_1.clear();
            self.__fkbuf = __dk_fk;
            self.__fvbuf = __dk_fv;
            self.__fobuf = __dk_fo;
            __dk_out
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __StampsSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<Stamps as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["events"]
        }
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            let (__dk_result, __dk_topic, __dk_node) = match __dk_record.source {
                0usize => (
                    ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                        self.__source_0(__dk_record, __dk_sink)
                    })),
                    "events",
                    "KSTREAM-SOURCE-0000000000",
                ),
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
                    Stamps::__on_error,
                    &mut self.__skipped,
                    __dk_sink,
                )?,
            }
            if self.__cache_max != 0
                && ::dekaf_streams::__private::Task::cache_bytes(self) > self.__cache_max
            {
                ::dekaf_streams::__private::Task::flush_cache(self, __dk_sink)?;
            }
            Ok(())
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            self.__cache_max = bytes;
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            loop {
                self.__flush_1(__dk_sink)?;
                if self.__cache_1.is_empty() {
                    return Ok(());
                }
            }
        }
        fn cache_bytes(&self) -> usize {
            0 + self.__cache_1.bytes()
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
                "timestamp-extractors-counts-changelog" => {
                    ::dekaf_streams::__private::restore_table(
                        &mut self.__store_0,
                        key,
                        value,
                        timestamp,
                        &mut self.__vbuf,
                    )
                }
                other => Err(::dekaf_streams::__private::TaskError::UnknownChangelog(
                    other.to_owned(),
                )),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_0)?;
            self.__cache_1.clear();
            self.__stream_time = i64::MIN;
            Ok(())
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            let mut __dk_kept = true;
            __dk_kept &=
                ::dekaf_streams::__private::StoreBackend::discard_pending(&mut self.__store_0)?;
            if !__dk_kept {
                return Ok(false);
            }
            self.__cache_1.clear();
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
                "counts" => Some(&self.__store_0),
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
            __dk_f(
                &<Stamps as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[0usize],
                &mut self.__store_0,
            )?;
            Ok(())
        }
    }
    pub struct __StampsSub1<B> {
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
    impl<B: ::dekaf_streams::__private::StoreBackend> __StampsSub1<B> {
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
            let __dk_ts: i64 =
                ::dekaf_streams::__private::event_time::use_partition_time_on_invalid(
                    __dk_record.timestamp,
                    ::dekaf_streams::__private::event_time::partition_time(self.__stream_time),
                    "KSTREAM-SOURCE-0000000002",
                )?;
            if __dk_ts < 0 {
                self.__invalid_ts += 1;
                ::dekaf_streams::__private::event_time::skipped(
                    "pings",
                    __dk_record.partition,
                    __dk_record.offset,
                    __dk_ts,
                );
                return Ok(());
            }
            if __dk_ts > self.__stream_time {
                self.__stream_time = __dk_ts;
            }
            let __dk_stamped = ::dekaf_streams::__private::InputRecord {
                timestamp: __dk_ts,
                ..*__dk_record
            };
            let __dk_record = &__dk_stamped;
            if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.key) {
                if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "pongs",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::core::option::Option::None,
                        ::core::option::Option::None,
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                } else {
                    let __vn2 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "pings",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000002",
                    )?;
                    let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                        "pongs",
                        &__vn2,
                        &mut self.__vbuf,
                        "KSTREAM-SINK-0000000003",
                    )?;
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "pongs",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::core::option::Option::None,
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn2 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "pings",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000002",
                )?;
                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                    "pongs",
                    &__kn2,
                    &mut self.__kbuf,
                    "KSTREAM-SINK-0000000003",
                )?;
                ::dekaf_streams::__private::send(
                    __dk_sink,
                    "pongs",
                    ::dekaf_streams::__private::TopicKind::Sink,
                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                    ::core::option::Option::None,
                    __dk_record.timestamp,
                    __dk_record.headers,
                )?;
            } else {
                let __k2 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "pings",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000002",
                )?;
                let __v2 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                    "pings",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000002",
                )?;
                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                    "pongs",
                    &__k2,
                    &mut self.__kbuf,
                    "KSTREAM-SINK-0000000003",
                )?;
                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                    "pongs",
                    &__v2,
                    &mut self.__vbuf,
                    "KSTREAM-SINK-0000000003",
                )?;
                ::dekaf_streams::__private::send(
                    __dk_sink,
                    "pongs",
                    ::dekaf_streams::__private::TopicKind::Sink,
                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                    __dk_record.timestamp,
                    __dk_record.headers,
                )?;
            }
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __StampsSub1<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<Stamps as ::dekaf_streams::__private::Topology>::INFO.subtopologies[1usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["pings"]
        }
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            let (__dk_result, __dk_topic, __dk_node) = match __dk_record.source {
                0usize => (
                    ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                        self.__source_0(__dk_record, __dk_sink)
                    })),
                    "pings",
                    "KSTREAM-SOURCE-0000000002",
                ),
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
                    Stamps::__on_error,
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
        for __StampsTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __StampsTask::S0(t) => t.subtopology(),
                __StampsTask::S1(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __StampsTask::S0(t) => t.partition(),
                __StampsTask::S1(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __StampsTask::S0(t) => t.source_topics(),
                __StampsTask::S1(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.process(record, sink),
                __StampsTask::S1(t) => t.process(record, sink),
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
                __StampsTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
                __StampsTask::S1(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.clear(),
                __StampsTask::S1(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.discard_uncommitted(),
                __StampsTask::S1(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __StampsTask::S0(t) => t.needs_full_restore(),
                __StampsTask::S1(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __StampsTask::S0(t) => t.stream_time(),
                __StampsTask::S1(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __StampsTask::S0(t) => t.set_stream_time(stream_time),
                __StampsTask::S1(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __StampsTask::S0(t) => t.late_records_dropped(),
                __StampsTask::S1(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __StampsTask::S0(t) => t.records_skipped(),
                __StampsTask::S1(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __StampsTask::S0(t) => t.null_records_dropped(),
                __StampsTask::S1(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __StampsTask::S0(t) => t.invalid_timestamps_dropped(),
                __StampsTask::S1(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __StampsTask::S0(t) => t.store(name),
                __StampsTask::S1(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __StampsTask::S0(t) => t.history(name),
                __StampsTask::S1(t) => t.history(name),
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
                __StampsTask::S0(t) => t.for_each_store(f),
                __StampsTask::S1(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __StampsTask::S0(t) => t.set_cache_max_bytes(bytes),
                __StampsTask::S1(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.flush_cache(sink),
                __StampsTask::S1(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __StampsTask::S0(t) => t.cache_bytes(),
                __StampsTask::S1(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __StampsTask::S0(t) => t.attach_global_stores(globals),
                __StampsTask::S1(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.punctuate_stream_time(sink),
                __StampsTask::S1(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __StampsTask::S0(t) => t.wall_clock_due(now_ms),
                __StampsTask::S1(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __StampsTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
                __StampsTask::S1(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for Stamps {
        const APPLICATION_ID: &'static str = "timestamp-extractors";
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "timestamp-extractors",
                subtopologies: &[
                    ::dekaf_streams::__private::SubtopologyInfo {
                        id: "0",
                        source_topics: &["events"],
                        repartition_source_topics: &[],
                        repartition_sink_topics: &[],
                        state_changelog_topics: &[::dekaf_streams::__private::InternalTopicInfo {
                            name: "timestamp-extractors-counts-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        }],
                        sink_topics: &[],
                        copartition_groups: &[],
                        stores: &[::dekaf_streams::__private::StoreInfo {
                            name: "counts",
                            changelog_topic: "timestamp-extractors-counts-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                        }],
                    },
                    ::dekaf_streams::__private::SubtopologyInfo {
                        id: "1",
                        source_topics: &["pings"],
                        repartition_source_topics: &[],
                        repartition_sink_topics: &[],
                        state_changelog_topics: &[],
                        sink_topics: &["pongs"],
                        copartition_groups: &[],
                        stores: &[],
                    },
                ],
            };
        const DESCRIPTION: &'static str = "Topology: Stamps (application id timestamp-extractors)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [events])\n      --> KSTREAM-AGGREGATE-0000000001\n    Processor: KSTREAM-AGGREGATE-0000000001 (stores: [counts])\n      --> none\n      <-- KSTREAM-SOURCE-0000000000\n    Store: counts (key-value; changelog: timestamp-extractors-counts-changelog)\n\n   Sub-topology: 1\n    Source: KSTREAM-SOURCE-0000000002 (topics: [pings])\n      --> KSTREAM-SINK-0000000003\n    Sink: KSTREAM-SINK-0000000003 (topic: pongs)\n      <-- KSTREAM-SOURCE-0000000002\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [events]\n    Changelog topic: timestamp-extractors-counts-changelog (cleanup.policy=compact, message.timestamp.type=CreateTime)\n   Sub-topology: 1\n    Source topics: [pings]\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n    timestamp-extractors-counts-changelog: count(Materialized.as(\"counts\")), logging on (the default)\n  Every internal topic is named after a name given in this topology: a Java application declaring the above matches.\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] = &[];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __StampsTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__StampsTask::S0(__StampsSub0::__create(partition, stores)?)),
                "1" => Ok(__StampsTask::S1(__StampsSub1::__create(partition, stores)?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
