#[doc = " Counts the words of every sentence: stateless operators, a repartition and a cached count."]
#[derive(Debug, Clone, Copy, Default)]
pub struct WordCount;
impl WordCount {
    #[doc = "Topic `sentences` (read as a stream), with its serdes."]
    pub const SENTENCES: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("sentences");
    #[doc = "Topic `word-counts` (written), with its serdes."]
    pub const WORD_COUNTS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, I64>("word-counts");
    #[doc = "Key-value store `counts` (changelog `word-count-counts-changelog`)."]
    pub const COUNTS: ::dekaf_streams::__private::StoreRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <::dekaf_streams::serdes::I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::StoreRef::timestamped::<Utf8, ::dekaf_streams::serdes::I64>(
        "counts",
    );
}
const _: () = {
    impl WordCount {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`WordCount`], over store backend `B`."]
    pub enum __WordCountTask<B> {
        S0(__WordCountSub0<B>),
        S1(__WordCountSub1<B>),
    }
    pub struct __WordCountSub0<B> {
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
    impl<B: ::dekaf_streams::__private::StoreBackend> __WordCountSub0<B> {
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
                if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                    return Err(::dekaf_streams::__private::RecordError::new(
                        ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                        "KSTREAM-FILTER-0000000001",
                        ::std::string::String::from(
                            "a record with a null key reached filter (KSTREAM-FILTER-0000000001), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                        ),
                    ));
                } else {
                    let __vn0 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "sentences",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000000",
                    )?;
                    return Err(::dekaf_streams::__private::RecordError::new(
                        ::dekaf_streams::__private::ErrorKind::KeyDeserialization,
                        "KSTREAM-FILTER-0000000001",
                        ::std::string::String::from(
                            "a record with a null key reached filter (KSTREAM-FILTER-0000000001), whose closure takes the key; its serde has no null: read the topic with Nullable::<S> to handle null keys",
                        ),
                    ));
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "sentences",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                return Err(::dekaf_streams::__private::RecordError::new(
                    ::dekaf_streams::__private::ErrorKind::ValueDeserialization,
                    "KSTREAM-FILTER-0000000001",
                    ::std::string::String::from(
                        "a record with a null value reached filter (KSTREAM-FILTER-0000000001), whose closure takes the value; its serde has no null: read the topic with Nullable::<S> to handle null values",
                    ),
                ));
            } else {
                let __k0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "sentences",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __v0 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                    "sentences",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                if ::dekaf_streams::__private::filter(&__k0, &__v0, |_key, sentence| {
                    !sentence.is_empty()
                }) {
                    let __kb2 = &__k0;
                    for __v2 in ::dekaf_streams::__private::flat_map_values(&__v0, |sentence| {
                        sentence.split(' ').map(str::to_owned)
                    }) {
                        ::dekaf_streams::__private::peek(__kb2, &__v2, |_key, word| {
                            assert!(!word.is_empty())
                        });
                        let __k4 =
                            ::dekaf_streams::__private::select_key(__kb2, &__v2, |_key, word| {
                                word.clone()
                            });
                        let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                            "word-count-counts-repartition",
                            &__k4,
                            &mut self.__kbuf,
                            "counts-repartition-sink",
                        )?;
                        let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                            "word-count-counts-repartition",
                            &__v2,
                            &mut self.__vbuf,
                            "counts-repartition-sink",
                        )?;
                        ::dekaf_streams::__private::send(
                            __dk_sink,
                            "word-count-counts-repartition",
                            ::dekaf_streams::__private::TopicKind::Repartition,
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
        for __WordCountSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<WordCount as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["sentences"]
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
                        "sentences",
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
                    WordCount::__on_error,
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
    pub struct __WordCountSub1<B> {
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
        __cache_7: ::dekaf_streams::__private::DirtyKeys,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __WordCountSub1<B> {
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
                    "word-count",
                    "1",
                    partition,
                    &::dekaf_streams::__private::StoreInfo {
                        name: "counts",
                        changelog_topic: "word-count-counts-changelog",
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
                __cache_7: ::dekaf_streams::__private::DirtyKeys::new(),
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
                if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                    self.__dropped += 1;
                } else {
                    let __vn6 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "word-count-counts-repartition",
                        __dk_record.value,
                        "counts-repartition-source",
                    )?;
                    self.__dropped += 1;
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn6 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "word-count-counts-repartition",
                    __dk_record.key,
                    "counts-repartition-source",
                )?;
                self.__dropped += 1;
            } else {
                let __k6: ::core::option::Option<
                    <Utf8 as ::dekaf_streams::__private::Serde>::Value,
                > = if ::dekaf_streams::__private::keeps_key_bytes::<Utf8, Utf8>() {
                    ::dekaf_streams::__private::check_key_at::<Utf8>(
                        "word-count-counts-repartition",
                        __dk_record.key,
                        "counts-repartition-source",
                    )?;
                    None
                } else {
                    Some(::dekaf_streams::__private::de_key_at::<Utf8>(
                        "word-count-counts-repartition",
                        __dk_record.key,
                        "counts-repartition-source",
                    )?)
                };
                let __v6 = ::dekaf_streams::__private::check_value_at::<Utf8>(
                    "word-count-counts-repartition",
                    __dk_record.value,
                    "counts-repartition-source",
                )?;
                let (__dk_ke, __dk_skey) = match &__k6 {
                    None => ::dekaf_streams::__private::key_slice(__dk_record.key),
                    Some(__dk_k) => {
                        let __dk_e = ::dekaf_streams::__private::ser::<Utf8>(
                            __dk_k,
                            &mut self.__kbuf,
                            "KSTREAM-AGGREGATE-0000000007",
                        )?;
                        (__dk_e, self.__kbuf.as_slice())
                    }
                };
                if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present)
                    && !__dk_record.value.is_none()
                {
                    let (__v7, __dk_present, __dk_existed, __dk_ts) =
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
                            "word-count-counts-changelog",
                            self.__partition,
                            __dk_record.timestamp,
                            "KSTREAM-AGGREGATE-0000000007",
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
                        self.__cache_7.mark(
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
                        if ::core::any::TypeId::of::<Utf8>() == ::core::any::TypeId::of::<Utf8>()
                            && ::core::any::TypeId::of::<I64>()
                                == ::core::any::TypeId::of::<::dekaf_streams::serdes::I64>()
                        {
                            ::dekaf_streams::__private::send(
                                __dk_sink,
                                "word-counts",
                                ::dekaf_streams::__private::TopicKind::Sink,
                                Some(__dk_skey),
                                if __dk_present {
                                    self.__vbuf.get(8..)
                                } else {
                                    None
                                },
                                __dk_record.timestamp,
                                __dk_record.headers,
                            )?;
                        } else {
                            let __k6: <Utf8 as ::dekaf_streams::__private::Serde>::Value =
                                match __k6 {
                                    Some(__dk_k) => __dk_k,
                                    None => ::dekaf_streams::__private::de_key_at::<Utf8>(
                                        "word-count-counts-repartition",
                                        __dk_record.key,
                                        "counts-repartition-source",
                                    )?,
                                };
                            let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                "word-counts",
                                &__k6,
                                &mut self.__kbuf,
                                "KSTREAM-SINK-0000000009",
                            )?;
                            let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                                "word-counts",
                                &__v7,
                                &mut self.__vbuf,
                                "KSTREAM-SINK-0000000009",
                            )?;
                            ::dekaf_streams::__private::send(
                                __dk_sink,
                                "word-counts",
                                ::dekaf_streams::__private::TopicKind::Sink,
                                ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                __dk_record.timestamp,
                                __dk_record.headers,
                            )?;
                        }
                    }
                } else {
                    self.__dropped += 1;
                }
            }
            Ok(())
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __forward_7<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_skey: &[u8] = __dk_record.key.unwrap_or_default();
            if ::core::any::TypeId::of::<Utf8>() == ::core::any::TypeId::of::<Utf8>()
                && ::core::any::TypeId::of::<I64>()
                    == ::core::any::TypeId::of::<::dekaf_streams::serdes::I64>()
            {
                ::dekaf_streams::__private::send(
                    __dk_sink,
                    "word-counts",
                    ::dekaf_streams::__private::TopicKind::Sink,
                    Some(__dk_skey),
                    __dk_record.value,
                    __dk_record.timestamp,
                    __dk_record.headers,
                )?;
            } else {
                let __k7 = ::dekaf_streams::__private::de_key::<Utf8>(
                    Some(__dk_skey),
                    "KSTREAM-AGGREGATE-0000000007",
                )?;
                let __v7 = ::dekaf_streams::__private::de_value::<::dekaf_streams::serdes::I64>(
                    __dk_record.value,
                    "KSTREAM-AGGREGATE-0000000007",
                )?;
                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                    "word-counts",
                    &__k7,
                    &mut self.__kbuf,
                    "KSTREAM-SINK-0000000009",
                )?;
                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                    "word-counts",
                    &__v7,
                    &mut self.__vbuf,
                    "KSTREAM-SINK-0000000009",
                )?;
                ::dekaf_streams::__private::send(
                    __dk_sink,
                    "word-counts",
                    ::dekaf_streams::__private::TopicKind::Sink,
                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                    __dk_record.timestamp,
                    __dk_record.headers,
                )?;
            }
            Ok(())
        }
        #[doc = r" Forwards the current result of every dirty key of this aggregation, then"]
        #[doc = r" forgets the keys (also when it fails)."]
        #[inline(never)]
        fn __flush_7<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            if self.__cache_7.is_empty() {
                return Ok(());
            }
            let mut __dk_fk = ::core::mem::take(&mut self.__fkbuf);
            let mut __dk_fv = ::core::mem::take(&mut self.__fvbuf);
            let mut __dk_fo = ::core::mem::take(&mut self.__fobuf);
            let mut __dk_out = Ok(());
            let mut __dk_i = 0usize;
            while let Some((__dk_key, __dk_entry)) = self.__cache_7.get(__dk_i) {
                __dk_i += 1;
                __dk_fk.clear();
                __dk_fk.extend_from_slice(__dk_key);
                __dk_fo.clear();
                let __dk_has_old = match self.__cache_7.old(&__dk_entry) {
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
                        self.__forward_7(&__dk_record, __dk_sink)
                    })) {
                        Ok(r) => r,
                        Err(payload) => Err(::dekaf_streams::__private::panicked(
                            "KSTREAM-AGGREGATE-0000000007",
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
                        WordCount::__on_error,
                        &mut self.__skipped,
                        __dk_sink,
                    ) {
                        __dk_out = Err(e);
                        break;
                    }
                }
            }
            self.__cache_7.clear();
            self.__fkbuf = __dk_fk;
            self.__fvbuf = __dk_fv;
            self.__fobuf = __dk_fo;
            __dk_out
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __WordCountSub1<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<WordCount as ::dekaf_streams::__private::Topology>::INFO.subtopologies[1usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["word-count-counts-repartition"]
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
                        "word-count-counts-repartition",
                        "counts-repartition-source",
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
                    WordCount::__on_error,
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
                self.__flush_7(__dk_sink)?;
                if self.__cache_7.is_empty() {
                    return Ok(());
                }
            }
        }
        fn cache_bytes(&self) -> usize {
            0 + self.__cache_7.bytes()
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
                "word-count-counts-changelog" => ::dekaf_streams::__private::restore_table(
                    &mut self.__store_0,
                    key,
                    value,
                    timestamp,
                    &mut self.__vbuf,
                ),
                other => Err(::dekaf_streams::__private::TaskError::UnknownChangelog(
                    other.to_owned(),
                )),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_0)?;
            self.__cache_7.clear();
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
            self.__cache_7.clear();
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
                &<WordCount as ::dekaf_streams::__private::Topology>::INFO.subtopologies[1usize]
                    .stores[0usize],
                &mut self.__store_0,
            )?;
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __WordCountTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __WordCountTask::S0(t) => t.subtopology(),
                __WordCountTask::S1(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __WordCountTask::S0(t) => t.partition(),
                __WordCountTask::S1(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __WordCountTask::S0(t) => t.source_topics(),
                __WordCountTask::S1(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.process(record, sink),
                __WordCountTask::S1(t) => t.process(record, sink),
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
                __WordCountTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
                __WordCountTask::S1(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.clear(),
                __WordCountTask::S1(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.discard_uncommitted(),
                __WordCountTask::S1(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __WordCountTask::S0(t) => t.needs_full_restore(),
                __WordCountTask::S1(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __WordCountTask::S0(t) => t.stream_time(),
                __WordCountTask::S1(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __WordCountTask::S0(t) => t.set_stream_time(stream_time),
                __WordCountTask::S1(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __WordCountTask::S0(t) => t.late_records_dropped(),
                __WordCountTask::S1(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __WordCountTask::S0(t) => t.records_skipped(),
                __WordCountTask::S1(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __WordCountTask::S0(t) => t.null_records_dropped(),
                __WordCountTask::S1(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __WordCountTask::S0(t) => t.invalid_timestamps_dropped(),
                __WordCountTask::S1(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __WordCountTask::S0(t) => t.store(name),
                __WordCountTask::S1(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __WordCountTask::S0(t) => t.history(name),
                __WordCountTask::S1(t) => t.history(name),
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
                __WordCountTask::S0(t) => t.for_each_store(f),
                __WordCountTask::S1(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __WordCountTask::S0(t) => t.set_cache_max_bytes(bytes),
                __WordCountTask::S1(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.flush_cache(sink),
                __WordCountTask::S1(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __WordCountTask::S0(t) => t.cache_bytes(),
                __WordCountTask::S1(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __WordCountTask::S0(t) => t.attach_global_stores(globals),
                __WordCountTask::S1(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.punctuate_stream_time(sink),
                __WordCountTask::S1(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __WordCountTask::S0(t) => t.wall_clock_due(now_ms),
                __WordCountTask::S1(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __WordCountTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
                __WordCountTask::S1(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for WordCount {
        const APPLICATION_ID: &'static str = "word-count";
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "word-count",
                subtopologies: &[
                    ::dekaf_streams::__private::SubtopologyInfo {
                        id: "0",
                        source_topics: &["sentences"],
                        repartition_source_topics: &[],
                        repartition_sink_topics: &["word-count-counts-repartition"],
                        state_changelog_topics: &[],
                        sink_topics: &[],
                        copartition_groups: &[],
                        stores: &[],
                    },
                    ::dekaf_streams::__private::SubtopologyInfo {
                        id: "1",
                        source_topics: &[],
                        repartition_source_topics: &[
                            ::dekaf_streams::__private::InternalTopicInfo {
                                name: "word-count-counts-repartition",
                                partitions: 0,
                                configs: &[
                                    ("cleanup.policy", "delete"),
                                    ("message.timestamp.type", "CreateTime"),
                                    ("retention.ms", "-1"),
                                    ("segment.bytes", "52428800"),
                                ],
                                store_configs: &[],
                                derived: ::dekaf_streams::__private::DerivedConfig::None,
                            },
                        ],
                        repartition_sink_topics: &[],
                        state_changelog_topics: &[::dekaf_streams::__private::InternalTopicInfo {
                            name: "word-count-counts-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        }],
                        sink_topics: &["word-counts"],
                        copartition_groups: &[],
                        stores: &[::dekaf_streams::__private::StoreInfo {
                            name: "counts",
                            changelog_topic: "word-count-counts-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                        }],
                    },
                ],
            };
        const DESCRIPTION: &'static str = "Topology: WordCount (application id word-count)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [sentences])\n      --> KSTREAM-FILTER-0000000001\n    Processor: KSTREAM-FILTER-0000000001 (stores: [])\n      --> KSTREAM-FLATMAPVALUES-0000000002\n      <-- KSTREAM-SOURCE-0000000000\n    Processor: KSTREAM-FLATMAPVALUES-0000000002 (stores: [])\n      --> KSTREAM-PEEK-0000000003\n      <-- KSTREAM-FILTER-0000000001\n    Processor: KSTREAM-PEEK-0000000003 (stores: [])\n      --> KSTREAM-KEY-SELECT-0000000004\n      <-- KSTREAM-FLATMAPVALUES-0000000002\n    Processor: KSTREAM-KEY-SELECT-0000000004 (stores: [])\n      --> counts-repartition-sink\n      <-- KSTREAM-PEEK-0000000003\n    Sink: counts-repartition-sink (topic: word-count-counts-repartition)\n      <-- KSTREAM-KEY-SELECT-0000000004\n\n   Sub-topology: 1\n    Source: counts-repartition-source (topics: [word-count-counts-repartition])\n      --> KSTREAM-AGGREGATE-0000000007\n    Processor: KSTREAM-AGGREGATE-0000000007 (stores: [counts])\n      --> KTABLE-TOSTREAM-0000000008\n      <-- counts-repartition-source\n    Processor: KTABLE-TOSTREAM-0000000008 (stores: [])\n      --> KSTREAM-SINK-0000000009\n      <-- KSTREAM-AGGREGATE-0000000007\n    Sink: KSTREAM-SINK-0000000009 (topic: word-counts)\n      <-- KTABLE-TOSTREAM-0000000008\n    Store: counts (key-value; changelog: word-count-counts-changelog)\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [sentences]\n    Repartition sink topics: [word-count-counts-repartition]\n   Sub-topology: 1\n    Repartition source topic: word-count-counts-repartition (partitions: unset, the coordinator derives them; cleanup.policy=delete, message.timestamp.type=CreateTime, retention.ms=-1, segment.bytes=52428800)\n    Changelog topic: word-count-counts-changelog (cleanup.policy=compact, message.timestamp.type=CreateTime)\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n    word-count-counts-repartition: groupBy(..)/groupByKey() after a key change, without Grouped.as (or with Grouped.as(\"counts\")), aggregated with Materialized.as(\"counts\")\n    word-count-counts-changelog: count(Materialized.as(\"counts\")), logging on (the default)\n  Every internal topic is named after a name given in this topology: a Java application declaring the above matches.\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] = &[];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __WordCountTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__WordCountTask::S0(__WordCountSub0::__create(
                    partition, stores,
                )?)),
                "1" => Ok(__WordCountTask::S1(__WordCountSub1::__create(
                    partition, stores,
                )?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
