#[doc = " Session windows: a count and an aggregation with a merger, suppressed until closed."]
#[derive(Debug, Clone, Copy, Default)]
pub struct Sessions;
impl Sessions {
    #[doc = "Topic `clicks` (read as a stream), with its serdes."]
    pub const CLICKS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("clicks");
    #[doc = "Topic `session-clicks` (written), with its serdes."]
    pub const SESSION_CLICKS: ::dekaf_streams::__private::TopicRef<
        <SessionWindowed<Utf8> as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<SessionWindowed<Utf8>, I64>("session-clicks");
    #[doc = "Session-window store `clicks-per-session` (changelog `sessions-clicks-per-session-changelog`)."]
    pub const CLICKS_PER_SESSION: ::dekaf_streams::__private::SessionStoreRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <::dekaf_streams::serdes::I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::SessionStoreRef::new::<Utf8, ::dekaf_streams::serdes::I64>(
        "clicks-per-session",
    );
}
const _: () = {
    impl Sessions {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`Sessions`], over store backend `B`."]
    pub enum __SessionsTask<B> {
        S0(__SessionsSub0<B>),
    }
    pub struct __SessionsSub0<B> {
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
        __store_1: B,
        __purge_0: i64,
        __max_0: i64,
        __index_0: ::dekaf_streams::__private::TimeIndex,
        __cache_max: usize,
        __fkbuf: ::std::vec::Vec<u8>,
        __fvbuf: ::std::vec::Vec<u8>,
        __fobuf: ::std::vec::Vec<u8>,
        __obuf: ::std::vec::Vec<u8>,
        __cache_1: ::dekaf_streams::__private::DirtyKeys,
        __sup_2: ::dekaf_streams::__private::SuppressState,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __SessionsSub0<B> {
        fn __create<F: ::dekaf_streams::__private::BackendFactory<Backend = B>>(
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self, ::dekaf_streams::__private::TaskError> {
            let mut __dk_task = Self { __partition : partition , __stream_time : i64 :: MIN , __late : 0 , __skipped : 0 , __dropped : 0 , __invalid_ts : 0 , __kbuf : :: std :: vec :: Vec :: with_capacity (64) , __vbuf : :: std :: vec :: Vec :: with_capacity (64) , __win : :: dekaf_streams :: __private :: WindowScratch :: new () , __store_0 : stores . open ("sessions" , "0" , partition , & :: dekaf_streams :: __private :: StoreInfo { name : "clicks-per-session" , changelog_topic : "sessions-clicks-per-session-changelog" , logged : true , in_memory : false , kind : :: dekaf_streams :: __private :: StoreKind :: Session { gap_ms : 10i64 , grace_ms : 0i64 } , }) ? , __store_1 : stores . open ("sessions" , "0" , partition , & :: dekaf_streams :: __private :: StoreInfo { name : "KTABLE-SUPPRESS-STATE-STORE-0000000003" , changelog_topic : "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog" , logged : true , in_memory : false , kind : :: dekaf_streams :: __private :: StoreKind :: KeyValue , }) ? , __purge_0 : i64 :: MIN , __max_0 : i64 :: MIN , __index_0 : :: dekaf_streams :: __private :: TimeIndex :: new (16) , __cache_max : 0 , __fkbuf : :: std :: vec :: Vec :: new () , __fvbuf : :: std :: vec :: Vec :: new () , __fobuf : :: std :: vec :: Vec :: new () , __obuf : :: std :: vec :: Vec :: new () , __cache_1 : :: dekaf_streams :: __private :: DirtyKeys :: new () , __sup_2 : :: dekaf_streams :: __private :: SuppressState :: new () , __marker : :: core :: marker :: PhantomData , } ;
            __dk_task.__index_0.rebuild(&__dk_task.__store_0)?;
            __dk_task.__max_0 = __dk_task.__index_0.latest();
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
                    let __vn0 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "clicks",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000000",
                    )?;
                    self.__dropped += 1;
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "clicks",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __dk_null_value1 = ();
                if __dk_record.timestamp < 0 {
                    return Err(::dekaf_streams::__private::timestamp_error(
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                        __dk_record.timestamp,
                    ));
                }
                if self.__stream_time >= self.__purge_0 {
                    self.__index_0.expire(
                        &mut self.__store_0,
                        self.__stream_time.saturating_sub(10i64),
                        Some(&self.__cache_1),
                        __dk_sink,
                        "sessions-clicks-per-session-changelog",
                        self.__partition,
                        __dk_record.timestamp,
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                    )?;
                    self.__purge_0 = self.__stream_time.saturating_add(5i64);
                }
                let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                    &__kn0,
                    &mut self.__kbuf,
                    "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                )?;
                if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present) {
                    let __dk_t = __dk_record.timestamp;
                    let __dk_close = self
                        .__stream_time
                        .saturating_sub(0i64)
                        .saturating_sub(10i64);
                    let __dk_span = ::dekaf_streams::__private::session_find(
                        &self.__store_0,
                        &self.__kbuf,
                        __dk_t,
                        10i64,
                        self.__max_0.saturating_sub(10i64).saturating_add(1),
                        &mut self.__win.sessions,
                        &mut self.__win.lo,
                        &mut self.__win.hi,
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                    )?;
                    if __dk_span.end < __dk_close {
                        self.__late += 1;
                    } else {
                        let __dk_remove = __dk_span
                            != ::dekaf_streams::__private::SessionSpan {
                                start: __dk_t,
                                end: __dk_t,
                            };
                        let __dk_old : :: core :: option :: Option < < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value > = :: dekaf_streams :: __private :: session_merge :: < :: dekaf_streams :: serdes :: I64 , _ , _ , _ > (& mut self . __store_0 , & mut self . __index_0 , & mut self . __kbuf , & self . __win . sessions , __dk_remove , __dk_sink , "sessions-clicks-per-session-changelog" , self . __partition , __dk_t , "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001" , | __dk_a : :: core :: option :: Option < < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value > , __dk_b : < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value | -> < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value { match __dk_a { Some (a) => i64 :: saturating_add (a , __dk_b) , None => __dk_b , } } ,) ? ;
                        if __dk_remove {
                            let __dk_klen = self.__kbuf.len();
                            for __dk_i in 0..self.__win.sessions.len() {
                                let (__dk_s, __dk_e) = self.__win.sessions[__dk_i];
                                if self.__cache_max != 0 {
                                    ::dekaf_streams::__private::session_key(
                                        &mut self.__kbuf,
                                        __dk_s,
                                        __dk_e,
                                    );
                                    self.__cache_1.mark(
                                        &self.__kbuf,
                                        ::dekaf_streams::__private::Update {
                                            value_len: 0,
                                            source: __dk_record.source,
                                            timestamp: __dk_e,
                                            offset: __dk_record.offset,
                                            existed: true,
                                        },
                                    );
                                    self.__kbuf.truncate(__dk_klen);
                                } else {
                                    ::dekaf_streams::__private::session_key(
                                        &mut self.__kbuf,
                                        __dk_s,
                                        __dk_e,
                                    );
                                    let __dk_dropped = ::dekaf_streams::__private::buffer_put(
                                        &mut self.__store_1,
                                        &self.__kbuf,
                                        __dk_e,
                                        None,
                                        __dk_record.timestamp,
                                        &mut self.__sup_2,
                                        &mut self.__win,
                                        __dk_sink,
                                        "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                        self.__partition,
                                        "KTABLE-SUPPRESS-0000000002",
                                    );
                                    self.__kbuf.truncate(__dk_klen);
                                    __dk_dropped?;
                                }
                            }
                        }
                        let __v1 : < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value = match __dk_old { Some (c) => i64 :: saturating_add (c , 1) , None => 1i64 } ;
                        ::dekaf_streams::__private::session_key(
                            &mut self.__kbuf,
                            __dk_span.start,
                            __dk_span.end,
                        );
                        let __dk_present = ::dekaf_streams::__private::store_put::<
                            ::dekaf_streams::serdes::I64,
                            _,
                            _,
                        >(
                            &mut self.__store_0,
                            &self.__kbuf,
                            &__v1,
                            &mut self.__vbuf,
                            __dk_sink,
                            "sessions-clicks-per-session-changelog",
                            self.__partition,
                            __dk_t,
                            "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                        )?;
                        self.__max_0 = ::core::cmp::max(self.__max_0, __dk_span.end);
                        if __dk_present {
                            self.__index_0.insert(&self.__kbuf);
                        }
                        if self.__cache_max != 0 {
                            self.__cache_1.mark(
                                &self.__kbuf,
                                ::dekaf_streams::__private::Update {
                                    value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                                    source: __dk_record.source,
                                    timestamp: __dk_span.end,
                                    offset: __dk_record.offset,
                                    existed: !__dk_remove && !self.__win.sessions.is_empty(),
                                },
                            );
                        } else {
                            let __dk_out = ::dekaf_streams::__private::InputRecord {
                                timestamp: __dk_span.end,
                                ..*__dk_record
                            };
                            let __dk_record = &__dk_out;
                            let __k1 = ::dekaf_streams::__private::Windowed::new(
                                __kn0,
                                __dk_span.start,
                                __dk_span.end,
                            );
                            let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                                &(&__k1).key,
                                &mut self.__kbuf,
                                "KTABLE-SUPPRESS-0000000002",
                            )?;
                            if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present) {
                                ::dekaf_streams::__private::session_key(
                                    &mut self.__kbuf,
                                    (&__k1).window.start,
                                    (&__k1).window.end,
                                );
                                let __dk_ve = ::dekaf_streams::__private::ser::<
                                    ::dekaf_streams::serdes::I64,
                                >(
                                    &__v1,
                                    &mut self.__vbuf,
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                                ::dekaf_streams::__private::buffer_put(
                                    &mut self.__store_1,
                                    &self.__kbuf,
                                    (&__k1).window.end,
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    &mut self.__sup_2,
                                    &mut self.__win,
                                    __dk_sink,
                                    "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                    self.__partition,
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                            }
                            let __dk_limit = self.__stream_time.saturating_sub(10i64);
                            while let Some(__dk_ts) = ::dekaf_streams::__private::buffer_evict_next(
                                &mut self.__store_1,
                                __dk_limit,
                                &::dekaf_streams::__private::BufferLimits {
                                    max_records: 18446744073709551615u64,
                                    max_bytes: 18446744073709551615u64,
                                    emit_early: false,
                                    config: "unbounded()",
                                },
                                &mut self.__sup_2,
                                &mut self.__win,
                                __dk_sink,
                                "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                self.__partition,
                                "KTABLE-SUPPRESS-0000000002",
                            )? {
                                let __k2 = {
                                    let __dk_sk: &[u8] = &self.__win.hi[8..];
                                    let (__dk_kb, __dk_start, __dk_end) =
                                        match ::dekaf_streams::__private::split_session_key(__dk_sk)
                                        {
                                            Some(split) => split,
                                            None => {
                                                return Err(
                                                    ::dekaf_streams::__private::cache_key_error(
                                                        "KTABLE-SUPPRESS-0000000002",
                                                    ),
                                                );
                                            }
                                        };
                                    ::dekaf_streams::__private::Windowed::new(
                                        ::dekaf_streams::__private::de_key::<Utf8>(
                                            Some(__dk_kb),
                                            "KTABLE-SUPPRESS-0000000002",
                                        )?,
                                        __dk_start,
                                        __dk_end,
                                    )
                                };
                                let __v2 = ::dekaf_streams::__private::de_value::<
                                    ::dekaf_streams::serdes::I64,
                                >(
                                    Some(&self.__win.value[8..]),
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                                let __dk_out = ::dekaf_streams::__private::InputRecord {
                                    timestamp: __dk_ts,
                                    ..*__dk_record
                                };
                                let __dk_record = &__dk_out;
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<
                                    SessionWindowed<Utf8>,
                                >(
                                    "session-clicks",
                                    &__k2,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000004",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                                    "session-clicks",
                                    &__v2,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000004",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "session-clicks",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            }
                        }
                    }
                }
            } else {
                let __k0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "clicks",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __v0 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                    "clicks",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                if __dk_record.timestamp < 0 {
                    return Err(::dekaf_streams::__private::timestamp_error(
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                        __dk_record.timestamp,
                    ));
                }
                if self.__stream_time >= self.__purge_0 {
                    self.__index_0.expire(
                        &mut self.__store_0,
                        self.__stream_time.saturating_sub(10i64),
                        Some(&self.__cache_1),
                        __dk_sink,
                        "sessions-clicks-per-session-changelog",
                        self.__partition,
                        __dk_record.timestamp,
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                    )?;
                    self.__purge_0 = self.__stream_time.saturating_add(5i64);
                }
                let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                    &__k0,
                    &mut self.__kbuf,
                    "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                )?;
                if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present) {
                    let __dk_t = __dk_record.timestamp;
                    let __dk_close = self
                        .__stream_time
                        .saturating_sub(0i64)
                        .saturating_sub(10i64);
                    let __dk_span = ::dekaf_streams::__private::session_find(
                        &self.__store_0,
                        &self.__kbuf,
                        __dk_t,
                        10i64,
                        self.__max_0.saturating_sub(10i64).saturating_add(1),
                        &mut self.__win.sessions,
                        &mut self.__win.lo,
                        &mut self.__win.hi,
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                    )?;
                    if __dk_span.end < __dk_close {
                        self.__late += 1;
                    } else {
                        let __dk_remove = __dk_span
                            != ::dekaf_streams::__private::SessionSpan {
                                start: __dk_t,
                                end: __dk_t,
                            };
                        let __dk_old : :: core :: option :: Option < < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value > = :: dekaf_streams :: __private :: session_merge :: < :: dekaf_streams :: serdes :: I64 , _ , _ , _ > (& mut self . __store_0 , & mut self . __index_0 , & mut self . __kbuf , & self . __win . sessions , __dk_remove , __dk_sink , "sessions-clicks-per-session-changelog" , self . __partition , __dk_t , "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001" , | __dk_a : :: core :: option :: Option < < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value > , __dk_b : < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value | -> < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value { match __dk_a { Some (a) => i64 :: saturating_add (a , __dk_b) , None => __dk_b , } } ,) ? ;
                        if __dk_remove {
                            let __dk_klen = self.__kbuf.len();
                            for __dk_i in 0..self.__win.sessions.len() {
                                let (__dk_s, __dk_e) = self.__win.sessions[__dk_i];
                                if self.__cache_max != 0 {
                                    ::dekaf_streams::__private::session_key(
                                        &mut self.__kbuf,
                                        __dk_s,
                                        __dk_e,
                                    );
                                    self.__cache_1.mark(
                                        &self.__kbuf,
                                        ::dekaf_streams::__private::Update {
                                            value_len: 0,
                                            source: __dk_record.source,
                                            timestamp: __dk_e,
                                            offset: __dk_record.offset,
                                            existed: true,
                                        },
                                    );
                                    self.__kbuf.truncate(__dk_klen);
                                } else {
                                    ::dekaf_streams::__private::session_key(
                                        &mut self.__kbuf,
                                        __dk_s,
                                        __dk_e,
                                    );
                                    let __dk_dropped = ::dekaf_streams::__private::buffer_put(
                                        &mut self.__store_1,
                                        &self.__kbuf,
                                        __dk_e,
                                        None,
                                        __dk_record.timestamp,
                                        &mut self.__sup_2,
                                        &mut self.__win,
                                        __dk_sink,
                                        "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                        self.__partition,
                                        "KTABLE-SUPPRESS-0000000002",
                                    );
                                    self.__kbuf.truncate(__dk_klen);
                                    __dk_dropped?;
                                }
                            }
                        }
                        let __v1 : < :: dekaf_streams :: serdes :: I64 as :: dekaf_streams :: __private :: Serde > :: Value = match __dk_old { Some (c) => i64 :: saturating_add (c , 1) , None => 1i64 } ;
                        ::dekaf_streams::__private::session_key(
                            &mut self.__kbuf,
                            __dk_span.start,
                            __dk_span.end,
                        );
                        let __dk_present = ::dekaf_streams::__private::store_put::<
                            ::dekaf_streams::serdes::I64,
                            _,
                            _,
                        >(
                            &mut self.__store_0,
                            &self.__kbuf,
                            &__v1,
                            &mut self.__vbuf,
                            __dk_sink,
                            "sessions-clicks-per-session-changelog",
                            self.__partition,
                            __dk_t,
                            "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                        )?;
                        self.__max_0 = ::core::cmp::max(self.__max_0, __dk_span.end);
                        if __dk_present {
                            self.__index_0.insert(&self.__kbuf);
                        }
                        if self.__cache_max != 0 {
                            self.__cache_1.mark(
                                &self.__kbuf,
                                ::dekaf_streams::__private::Update {
                                    value_len: if __dk_present { self.__vbuf.len() } else { 0 },
                                    source: __dk_record.source,
                                    timestamp: __dk_span.end,
                                    offset: __dk_record.offset,
                                    existed: !__dk_remove && !self.__win.sessions.is_empty(),
                                },
                            );
                        } else {
                            let __dk_out = ::dekaf_streams::__private::InputRecord {
                                timestamp: __dk_span.end,
                                ..*__dk_record
                            };
                            let __dk_record = &__dk_out;
                            let __k1 = ::dekaf_streams::__private::Windowed::new(
                                __k0,
                                __dk_span.start,
                                __dk_span.end,
                            );
                            let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                                &(&__k1).key,
                                &mut self.__kbuf,
                                "KTABLE-SUPPRESS-0000000002",
                            )?;
                            if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present) {
                                ::dekaf_streams::__private::session_key(
                                    &mut self.__kbuf,
                                    (&__k1).window.start,
                                    (&__k1).window.end,
                                );
                                let __dk_ve = ::dekaf_streams::__private::ser::<
                                    ::dekaf_streams::serdes::I64,
                                >(
                                    &__v1,
                                    &mut self.__vbuf,
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                                ::dekaf_streams::__private::buffer_put(
                                    &mut self.__store_1,
                                    &self.__kbuf,
                                    (&__k1).window.end,
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    &mut self.__sup_2,
                                    &mut self.__win,
                                    __dk_sink,
                                    "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                    self.__partition,
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                            }
                            let __dk_limit = self.__stream_time.saturating_sub(10i64);
                            while let Some(__dk_ts) = ::dekaf_streams::__private::buffer_evict_next(
                                &mut self.__store_1,
                                __dk_limit,
                                &::dekaf_streams::__private::BufferLimits {
                                    max_records: 18446744073709551615u64,
                                    max_bytes: 18446744073709551615u64,
                                    emit_early: false,
                                    config: "unbounded()",
                                },
                                &mut self.__sup_2,
                                &mut self.__win,
                                __dk_sink,
                                "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                                self.__partition,
                                "KTABLE-SUPPRESS-0000000002",
                            )? {
                                let __k2 = {
                                    let __dk_sk: &[u8] = &self.__win.hi[8..];
                                    let (__dk_kb, __dk_start, __dk_end) =
                                        match ::dekaf_streams::__private::split_session_key(__dk_sk)
                                        {
                                            Some(split) => split,
                                            None => {
                                                return Err(
                                                    ::dekaf_streams::__private::cache_key_error(
                                                        "KTABLE-SUPPRESS-0000000002",
                                                    ),
                                                );
                                            }
                                        };
                                    ::dekaf_streams::__private::Windowed::new(
                                        ::dekaf_streams::__private::de_key::<Utf8>(
                                            Some(__dk_kb),
                                            "KTABLE-SUPPRESS-0000000002",
                                        )?,
                                        __dk_start,
                                        __dk_end,
                                    )
                                };
                                let __v2 = ::dekaf_streams::__private::de_value::<
                                    ::dekaf_streams::serdes::I64,
                                >(
                                    Some(&self.__win.value[8..]),
                                    "KTABLE-SUPPRESS-0000000002",
                                )?;
                                let __dk_out = ::dekaf_streams::__private::InputRecord {
                                    timestamp: __dk_ts,
                                    ..*__dk_record
                                };
                                let __dk_record = &__dk_out;
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<
                                    SessionWindowed<Utf8>,
                                >(
                                    "session-clicks",
                                    &__k2,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000004",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                                    "session-clicks",
                                    &__v2,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000004",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "session-clicks",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            }
                        }
                    }
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
            let (__dk_kb, __dk_start, __dk_end) =
                match ::dekaf_streams::__private::split_session_key(__dk_skey) {
                    Some(split) => split,
                    None => {
                        return Err(::dekaf_streams::__private::cache_key_error(
                            "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                        ));
                    }
                };
            let __dk_out = ::dekaf_streams::__private::InputRecord {
                timestamp: __dk_end,
                ..*__dk_record
            };
            let __dk_record = &__dk_out;
            if __dk_record.value.is_some() {
                let __k1 = ::dekaf_streams::__private::Windowed::new(
                    ::dekaf_streams::__private::de_key::<Utf8>(
                        Some(__dk_kb),
                        "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                    )?,
                    __dk_start,
                    __dk_end,
                );
                let __v1 = ::dekaf_streams::__private::de_value::<::dekaf_streams::serdes::I64>(
                    __dk_record.value,
                    "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
                )?;
                let __dk_ke = ::dekaf_streams::__private::ser::<Utf8>(
                    &(&__k1).key,
                    &mut self.__kbuf,
                    "KTABLE-SUPPRESS-0000000002",
                )?;
                if matches!(__dk_ke, ::dekaf_streams::__private::Encoded::Present) {
                    ::dekaf_streams::__private::session_key(
                        &mut self.__kbuf,
                        (&__k1).window.start,
                        (&__k1).window.end,
                    );
                    let __dk_ve = ::dekaf_streams::__private::ser::<::dekaf_streams::serdes::I64>(
                        &__v1,
                        &mut self.__vbuf,
                        "KTABLE-SUPPRESS-0000000002",
                    )?;
                    ::dekaf_streams::__private::buffer_put(
                        &mut self.__store_1,
                        &self.__kbuf,
                        (&__k1).window.end,
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        &mut self.__sup_2,
                        &mut self.__win,
                        __dk_sink,
                        "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                        self.__partition,
                        "KTABLE-SUPPRESS-0000000002",
                    )?;
                }
                let __dk_limit = self.__stream_time.saturating_sub(10i64);
                while let Some(__dk_ts) = ::dekaf_streams::__private::buffer_evict_next(
                    &mut self.__store_1,
                    __dk_limit,
                    &::dekaf_streams::__private::BufferLimits {
                        max_records: 18446744073709551615u64,
                        max_bytes: 18446744073709551615u64,
                        emit_early: false,
                        config: "unbounded()",
                    },
                    &mut self.__sup_2,
                    &mut self.__win,
                    __dk_sink,
                    "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                    self.__partition,
                    "KTABLE-SUPPRESS-0000000002",
                )? {
                    let __k2 = {
                        let __dk_sk: &[u8] = &self.__win.hi[8..];
                        let (__dk_kb, __dk_start, __dk_end) =
                            match ::dekaf_streams::__private::split_session_key(__dk_sk) {
                                Some(split) => split,
                                None => {
                                    return Err(::dekaf_streams::__private::cache_key_error(
                                        "KTABLE-SUPPRESS-0000000002",
                                    ));
                                }
                            };
                        ::dekaf_streams::__private::Windowed::new(
                            ::dekaf_streams::__private::de_key::<Utf8>(
                                Some(__dk_kb),
                                "KTABLE-SUPPRESS-0000000002",
                            )?,
                            __dk_start,
                            __dk_end,
                        )
                    };
                    let __v2 = ::dekaf_streams::__private::de_value::<::dekaf_streams::serdes::I64>(
                        Some(&self.__win.value[8..]),
                        "KTABLE-SUPPRESS-0000000002",
                    )?;
                    let __dk_out = ::dekaf_streams::__private::InputRecord {
                        timestamp: __dk_ts,
                        ..*__dk_record
                    };
                    let __dk_record = &__dk_out;
                    let __dk_ke = ::dekaf_streams::__private::ser_key_at::<SessionWindowed<Utf8>>(
                        "session-clicks",
                        &__k2,
                        &mut self.__kbuf,
                        "KSTREAM-SINK-0000000004",
                    )?;
                    let __dk_ve = ::dekaf_streams::__private::ser_value_at::<I64>(
                        "session-clicks",
                        &__v2,
                        &mut self.__vbuf,
                        "KSTREAM-SINK-0000000004",
                    )?;
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "session-clicks",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            } else {
                self.__kbuf.clear();
                self.__kbuf.extend_from_slice(__dk_kb);
                let __dk_klen = self.__kbuf.len();
                let (__dk_s, __dk_e) = (__dk_start, __dk_end);
                ::dekaf_streams::__private::session_key(&mut self.__kbuf, __dk_s, __dk_e);
                let __dk_dropped = ::dekaf_streams::__private::buffer_put(
                    &mut self.__store_1,
                    &self.__kbuf,
                    __dk_e,
                    None,
                    __dk_record.timestamp,
                    &mut self.__sup_2,
                    &mut self.__win,
                    __dk_sink,
                    "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                    self.__partition,
                    "KTABLE-SUPPRESS-0000000002",
                );
                self.__kbuf.truncate(__dk_klen);
                __dk_dropped?;
            }
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
                        __dk_fv.extend_from_slice(__dk_v);
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
                            "KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001",
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
                        Sessions::__on_error,
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
        for __SessionsSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<Sessions as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["clicks"]
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
                        "clicks",
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
                    Sessions::__on_error,
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
                "sessions-clicks-per-session-changelog" => {
                    if value.is_some() {
                        if let Some(t) = self.__index_0.time_of(key) {
                            self.__max_0 = ::core::cmp::max(self.__max_0, t);
                        }
                    }
                    self.__index_0.restored(key, value);
                    ::dekaf_streams::__private::restore(&mut self.__store_0, key, value)
                }
                "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog" => {
                    ::dekaf_streams::__private::restore(&mut self.__store_1, key, value)
                }
                other => Err(::dekaf_streams::__private::TaskError::UnknownChangelog(
                    other.to_owned(),
                )),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_0)?;
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_1)?;
            self.__purge_0 = i64::MIN;
            self.__max_0 = i64::MIN;
            self.__index_0.clear();
            self.__cache_1.clear();
            self.__sup_2 = ::dekaf_streams::__private::SuppressState::new();
            self.__stream_time = i64::MIN;
            Ok(())
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            let mut __dk_kept = true;
            __dk_kept &=
                ::dekaf_streams::__private::StoreBackend::discard_pending(&mut self.__store_0)?;
            __dk_kept &=
                ::dekaf_streams::__private::StoreBackend::discard_pending(&mut self.__store_1)?;
            if !__dk_kept {
                return Ok(false);
            }
            self.__purge_0 = i64::MIN;
            self.__index_0.rebuild(&self.__store_0)?;
            self.__max_0 = self.__index_0.latest();
            self.__cache_1.clear();
            self.__sup_2 = ::dekaf_streams::__private::SuppressState::new();
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
                "clicks-per-session" => Some(&self.__store_0),
                "KTABLE-SUPPRESS-STATE-STORE-0000000003" => Some(&self.__store_1),
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
                &<Sessions as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[0usize],
                &mut self.__store_0,
            )?;
            __dk_f(
                &<Sessions as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[1usize],
                &mut self.__store_1,
            )?;
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __SessionsTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __SessionsTask::S0(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __SessionsTask::S0(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __SessionsTask::S0(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.process(record, sink),
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
                __SessionsTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __SessionsTask::S0(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __SessionsTask::S0(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __SessionsTask::S0(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __SessionsTask::S0(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __SessionsTask::S0(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __SessionsTask::S0(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __SessionsTask::S0(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __SessionsTask::S0(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __SessionsTask::S0(t) => t.history(name),
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
                __SessionsTask::S0(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __SessionsTask::S0(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __SessionsTask::S0(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __SessionsTask::S0(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __SessionsTask::S0(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __SessionsTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for Sessions {
        const APPLICATION_ID: &'static str = "sessions";
        fn check_serdes_at_start()
        -> ::core::result::Result<(), ::dekaf_streams::__private::StartCheckError> {
            <SessionWindowed<Utf8> as ::dekaf_streams::__private::Serde>::check_at_start(
                ::dekaf_streams::__private::SerdeContext::key("session-clicks"),
            )?;
            ::core::result::Result::Ok(())
        }
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "sessions",
                subtopologies: &[::dekaf_streams::__private::SubtopologyInfo {
                    id: "0",
                    source_topics: &["clicks"],
                    repartition_source_topics: &[],
                    repartition_sink_topics: &[],
                    state_changelog_topics: &[
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        },
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "sessions-clicks-per-session-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact,delete"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::WindowRetention {
                                retention_ms: 10i64,
                            },
                        },
                    ],
                    sink_topics: &["session-clicks"],
                    copartition_groups: &[],
                    stores: &[
                        ::dekaf_streams::__private::StoreInfo {
                            name: "clicks-per-session",
                            changelog_topic: "sessions-clicks-per-session-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::Session {
                                gap_ms: 10i64,
                                grace_ms: 0i64,
                            },
                        },
                        ::dekaf_streams::__private::StoreInfo {
                            name: "KTABLE-SUPPRESS-STATE-STORE-0000000003",
                            changelog_topic: "sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::KeyValue,
                        },
                    ],
                }],
            };
        const DESCRIPTION: &'static str = "Topology: Sessions (application id sessions)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [clicks])\n      --> KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001\n    Processor: KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001 (stores: [clicks-per-session])\n      --> KTABLE-SUPPRESS-0000000002\n      <-- KSTREAM-SOURCE-0000000000\n    Processor: KTABLE-SUPPRESS-0000000002 (stores: [])\n      --> KTABLE-TOSTREAM-0000000003\n      <-- KSTREAM-SESSION-WINDOWED-AGGREGATE-0000000001\n    Processor: KTABLE-TOSTREAM-0000000003 (stores: [])\n      --> KSTREAM-SINK-0000000004\n      <-- KTABLE-SUPPRESS-0000000002\n    Sink: KSTREAM-SINK-0000000004 (topic: session-clicks)\n      <-- KTABLE-TOSTREAM-0000000003\n    Store: clicks-per-session (session, gap 10 ms, grace 0 ms; changelog: sessions-clicks-per-session-changelog)\n    Store: KTABLE-SUPPRESS-STATE-STORE-0000000003 (key-value; changelog: sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog)\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [clicks]\n    Changelog topic: sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog (cleanup.policy=compact, message.timestamp.type=CreateTime)\n    Changelog topic: sessions-clicks-per-session-changelog (cleanup.policy=compact,delete, message.timestamp.type=CreateTime, retention.ms=86400010)\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n    sessions-clicks-per-session-changelog: windowedBy(SessionWindows.ofInactivityGapAndGrace(ofMillis(10), ofMillis(0))).count(Materialized.as(\"clicks-per-session\")), logging on (the default)\n    sessions-KTABLE-SUPPRESS-STATE-STORE-0000000003-changelog: suppress(Suppressed.untilWindowCloses(..)) without a name\n  Can differ from the Java application's declaration:\n    ! suppress_until_window_closes(): its buffer `KTABLE-SUPPRESS-STATE-STORE-0000000003` is named after a node number, and Kafka Streams' numbering of the nodes before it need not be ours (repartitions, named operators), so the Java application's buffer can have another number. Fix: name it on both sides, suppress_until_window_closes(\"name\") here and Suppressed.untilWindowCloses(..).withName(\"name\") in Java\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] =
            &[::dekaf_streams::__private::WindowedSink {
                topic: "session-clicks",
                window_bytes: 16usize,
            }];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __SessionsTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__SessionsTask::S0(__SessionsSub0::__create(
                    partition, stores,
                )?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
