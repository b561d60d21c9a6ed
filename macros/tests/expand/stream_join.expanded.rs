#[doc = " An outer stream-stream join, records at most 10 ms apart, 5 ms grace."]
#[derive(Debug, Clone, Copy, Default)]
pub struct OuterJoin;
impl OuterJoin {
    #[doc = "Topic `outer-left` (read as a stream), with its serdes."]
    pub const OUTER_LEFT: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("outer-left");
    #[doc = "Topic `outer-right` (read as a stream), with its serdes."]
    pub const OUTER_RIGHT: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("outer-right");
    #[doc = "Topic `outer-joined` (written), with its serdes."]
    pub const OUTER_JOINED: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("outer-joined");
}
const _: () = {
    impl OuterJoin {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`OuterJoin`], over store backend `B`."]
    pub enum __OuterJoinTask<B> {
        S0(__OuterJoinSub0<B>),
    }
    pub struct __OuterJoinSub0<B> {
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
        __store_2: B,
        __join_4: ::dekaf_streams::__private::stream_join::JoinState,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __OuterJoinSub0<B> {
        fn __create<F: ::dekaf_streams::__private::BackendFactory<Backend = B>>(
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self, ::dekaf_streams::__private::TaskError> {
            let mut __dk_task = Self { __partition : partition , __stream_time : i64 :: MIN , __late : 0 , __skipped : 0 , __dropped : 0 , __invalid_ts : 0 , __kbuf : :: std :: vec :: Vec :: with_capacity (64) , __vbuf : :: std :: vec :: Vec :: with_capacity (64) , __win : :: dekaf_streams :: __private :: WindowScratch :: new () , __store_0 : stores . open ("outer-join" , "0" , partition , & :: dekaf_streams :: __private :: StoreInfo { name : "KSTREAM-OUTERTHIS-0000000004-store" , changelog_topic : "outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog" , logged : true , in_memory : false , kind : :: dekaf_streams :: __private :: StoreKind :: JoinWindow { before_ms : 10i64 , after_ms : 10i64 , grace_ms : 5i64 } , }) ? , __store_1 : stores . open ("outer-join" , "0" , partition , & :: dekaf_streams :: __private :: StoreInfo { name : "KSTREAM-OUTEROTHER-0000000005-store" , changelog_topic : "outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog" , logged : true , in_memory : false , kind : :: dekaf_streams :: __private :: StoreKind :: JoinWindow { before_ms : 10i64 , after_ms : 10i64 , grace_ms : 5i64 } , }) ? , __store_2 : stores . open ("outer-join" , "0" , partition , & :: dekaf_streams :: __private :: StoreInfo { name : "KSTREAM-OUTERSHARED-0000000004-store" , changelog_topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , logged : true , in_memory : false , kind : :: dekaf_streams :: __private :: StoreKind :: KeyValue , }) ? , __join_4 : :: dekaf_streams :: __private :: stream_join :: JoinState :: new (25i64) , __marker : :: core :: marker :: PhantomData , } ;
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
                        "outer-left",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000000",
                    )?;
                    if __dk_record.timestamp < 0 {
                        return Err(::dekaf_streams::__private::stream_join::invalid_timestamp(
                            "KSTREAM-OUTERTHIS-0000000004",
                            __dk_record.timestamp,
                        ));
                    }
                    let __v4 = {
                        let mut __dk_f = :: dekaf_streams :: __private :: stream_join :: outer_join_closure_takes_an_optional_left_and_an_optional_right_value :: < Utf8 , Utf8 , _ , _ > (| l : Option < & String > , r : Option < & String > | format ! ("{l:?}{r:?}")) ;
                        let __dk_vref = &__vn0;
                        __dk_f(
                            ::core::option::Option::Some(__dk_vref),
                            ::core::option::Option::None,
                        )
                    };
                    let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                        "outer-joined",
                        &__v4,
                        &mut self.__vbuf,
                        "KSTREAM-SINK-0000000007",
                    )?;
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "outer-joined",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::core::option::Option::None,
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "outer-left",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                self.__dropped += 1;
            } else {
                let __k0 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "outer-left",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __v0 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                    "outer-left",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000000",
                )?;
                let __dk_ts = __dk_record.timestamp;
                if __dk_ts < 0 {
                    return Err(::dekaf_streams::__private::stream_join::invalid_timestamp(
                        "KSTREAM-OUTERTHIS-0000000004",
                        __dk_ts,
                    ));
                }
                self.__join_4.tracker.advance(__dk_ts);
                let mut __dk_f = :: dekaf_streams :: __private :: stream_join :: outer_join_closure_takes_an_optional_left_and_an_optional_right_value :: < Utf8 , Utf8 , _ , _ > (| l : Option < & String > , r : Option < & String > | format ! ("{l:?}{r:?}")) ;
                let __dk_kref = &__k0;
                let __dk_vref = &__v0;
                let mut __dk_b = ::core::mem::take(&mut self.__join_4.buffers);
                if ::dekaf_streams::__private::ser::<Utf8>(
                    __dk_kref,
                    &mut __dk_b.key,
                    "KSTREAM-OUTERTHIS-0000000004",
                )? == ::dekaf_streams::__private::Encoded::Null
                {
                    if ::dekaf_streams::__private::ser::<Utf8>(
                        __dk_vref,
                        &mut __dk_b.value,
                        "KSTREAM-OUTERTHIS-0000000004",
                    )? == ::dekaf_streams::__private::Encoded::Null
                    {
                        self.__dropped += 1;
                    } else {
                        let __v4 = __dk_f(
                            ::core::option::Option::Some(__dk_vref),
                            ::core::option::Option::None,
                        );
                        let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                            "outer-joined",
                            __dk_kref,
                            &mut self.__kbuf,
                            "KSTREAM-SINK-0000000007",
                        )?;
                        let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                            "outer-joined",
                            &__v4,
                            &mut self.__vbuf,
                            "KSTREAM-SINK-0000000007",
                        )?;
                        ::dekaf_streams::__private::send(
                            __dk_sink,
                            "outer-joined",
                            ::dekaf_streams::__private::TopicKind::Sink,
                            ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                            ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                            __dk_record.timestamp,
                            __dk_record.headers,
                        )?;
                    }
                } else {
                    if ::dekaf_streams::__private::ser::<Utf8>(
                        __dk_vref,
                        &mut __dk_b.value,
                        "KSTREAM-OUTERTHIS-0000000004",
                    )? == ::dekaf_streams::__private::Encoded::Null
                    {
                        self.__dropped += 1;
                    } else {
                        if __dk_ts == self.__join_4.tracker.stream_time {
                            :: dekaf_streams :: __private :: stream_join :: outer :: take_expired (& mut self . __store_2 , & mut self . __join_4 . tracker , & mut __dk_b . outer , 10i64 , 10i64 , 5i64 , __dk_ts , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition } ,) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTERTHIS-0000000004" , e)) ? ;
                            for __dk_i in 0..__dk_b.outer.records.len() {
                                let __dk_r = __dk_b.outer.records[__dk_i];
                                let __dk_fk = ::dekaf_streams::__private::de_key::<Utf8>(
                                    ::core::option::Option::Some(
                                        &__dk_b.outer.bytes[__dk_r.key.0..__dk_r.key.1],
                                    ),
                                    "KSTREAM-OUTERTHIS-0000000004",
                                )?;
                                let __dk_vb = &__dk_b.outer.bytes[__dk_r.value.0..__dk_r.value.1];
                                let __v4 = if __dk_r.side
                                    == ::dekaf_streams::__private::stream_join::outer::LEFT
                                {
                                    let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                        ::core::option::Option::Some(__dk_vb),
                                        "KSTREAM-OUTERTHIS-0000000004",
                                    )?;
                                    __dk_f(
                                        ::core::option::Option::Some(&__dk_ov),
                                        ::core::option::Option::None,
                                    )
                                } else {
                                    let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                        ::core::option::Option::Some(__dk_vb),
                                        "KSTREAM-OUTERTHIS-0000000004",
                                    )?;
                                    __dk_f(
                                        ::core::option::Option::None,
                                        ::core::option::Option::Some(&__dk_ov),
                                    )
                                };
                                let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                                    timestamp: __dk_r.timestamp,
                                    ..*__dk_record
                                };
                                let __dk_record = &__dk_jrec;
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                    "outer-joined",
                                    &__dk_fk,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                    "outer-joined",
                                    &__v4,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "outer-joined",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            }
                        }
                        ::dekaf_streams::__private::stream_join::window::fetch(
                            &self.__store_1,
                            &self.__join_4.right,
                            &mut __dk_b.window,
                            &__dk_b.key,
                            __dk_ts.saturating_sub(10i64).max(0),
                            __dk_ts.saturating_add(10i64).max(0),
                            &mut __dk_b.found_values,
                            &mut __dk_b.found,
                        )
                        .map_err(|e| {
                            ::dekaf_streams::__private::store_error(
                                "KSTREAM-OUTERTHIS-0000000004",
                                e,
                            )
                        })?;
                        for __dk_i in 0..__dk_b.found.len() {
                            let (__dk_ots, __dk_s, __dk_e) = __dk_b.found[__dk_i];
                            :: dekaf_streams :: __private :: stream_join :: outer :: matched (& mut self . __store_2 , & mut __dk_b . outer , 0u8 , & __dk_b . key , __dk_ots , __dk_ts , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition }) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTERTHIS-0000000004" , e)) ? ;
                            let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                ::core::option::Option::Some(&__dk_b.found_values[__dk_s..__dk_e]),
                                "KSTREAM-OUTERTHIS-0000000004",
                            )?;
                            let __v4 = __dk_f(
                                ::core::option::Option::Some(__dk_vref),
                                ::core::option::Option::Some(&__dk_ov),
                            );
                            let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                                timestamp: __dk_ts.max(__dk_ots),
                                ..*__dk_record
                            };
                            let __dk_record = &__dk_jrec;
                            let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                "outer-joined",
                                __dk_kref,
                                &mut self.__kbuf,
                                "KSTREAM-SINK-0000000007",
                            )?;
                            let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                "outer-joined",
                                &__v4,
                                &mut self.__vbuf,
                                "KSTREAM-SINK-0000000007",
                            )?;
                            ::dekaf_streams::__private::send(
                                __dk_sink,
                                "outer-joined",
                                ::dekaf_streams::__private::TopicKind::Sink,
                                ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                __dk_record.timestamp,
                                __dk_record.headers,
                            )?;
                        }
                        if __dk_b.found.is_empty() {
                            if (__dk_ts.saturating_add(10i64)).max(0)
                                < self.__join_4.tracker.stream_time
                            {
                                let __v4 = __dk_f(
                                    ::core::option::Option::Some(__dk_vref),
                                    ::core::option::Option::None,
                                );
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                    "outer-joined",
                                    __dk_kref,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                    "outer-joined",
                                    &__v4,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "outer-joined",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            } else {
                                :: dekaf_streams :: __private :: stream_join :: outer :: put (& mut self . __store_2 , & mut self . __join_4 . tracker , & mut __dk_b . outer , 1u8 , & __dk_b . key , __dk_ts , & __dk_b . value , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition }) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTERTHIS-0000000004" , e)) ? ;
                            }
                        }
                        ::dekaf_streams::__private::stream_join::window::put(
                            &mut self.__store_0,
                            &mut self.__join_4.left,
                            &mut __dk_b.window,
                            &__dk_b.key,
                            __dk_ts,
                            &__dk_b.value,
                            ::core::option::Option::Some((
                                &mut *__dk_sink,
                                "outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog",
                                self.__partition,
                            )),
                        )
                        .map_err(|e| {
                            ::dekaf_streams::__private::store_error(
                                "KSTREAM-OUTERTHIS-0000000004",
                                e,
                            )
                        })?;
                    }
                }
                self.__join_4.buffers = __dk_b;
            }
            Ok(())
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __source_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.key) {
                if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                    self.__dropped += 1;
                } else {
                    let __vn1 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "outer-right",
                        __dk_record.value,
                        "KSTREAM-SOURCE-0000000001",
                    )?;
                    if __dk_record.timestamp < 0 {
                        return Err(::dekaf_streams::__private::stream_join::invalid_timestamp(
                            "KSTREAM-OUTEROTHER-0000000005",
                            __dk_record.timestamp,
                        ));
                    }
                    let __v5 = {
                        let mut __dk_f = :: dekaf_streams :: __private :: stream_join :: outer_join_closure_takes_an_optional_left_and_an_optional_right_value :: < Utf8 , Utf8 , _ , _ > (| l : Option < & String > , r : Option < & String > | format ! ("{l:?}{r:?}")) ;
                        let __dk_vref = &__vn1;
                        __dk_f(
                            ::core::option::Option::None,
                            ::core::option::Option::Some(__dk_vref),
                        )
                    };
                    let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                        "outer-joined",
                        &__v5,
                        &mut self.__vbuf,
                        "KSTREAM-SINK-0000000007",
                    )?;
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "outer-joined",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::core::option::Option::None,
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            } else if ::dekaf_streams::__private::is_absent::<Utf8>(__dk_record.value) {
                let __kn1 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "outer-right",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000001",
                )?;
                self.__dropped += 1;
            } else {
                let __k1 = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "outer-right",
                    __dk_record.key,
                    "KSTREAM-SOURCE-0000000001",
                )?;
                let __v1 = ::dekaf_streams::__private::de_value_at::<Utf8>(
                    "outer-right",
                    __dk_record.value,
                    "KSTREAM-SOURCE-0000000001",
                )?;
                let __dk_ts = __dk_record.timestamp;
                if __dk_ts < 0 {
                    return Err(::dekaf_streams::__private::stream_join::invalid_timestamp(
                        "KSTREAM-OUTEROTHER-0000000005",
                        __dk_ts,
                    ));
                }
                self.__join_4.tracker.advance(__dk_ts);
                let mut __dk_f = :: dekaf_streams :: __private :: stream_join :: outer_join_closure_takes_an_optional_left_and_an_optional_right_value :: < Utf8 , Utf8 , _ , _ > (| l : Option < & String > , r : Option < & String > | format ! ("{l:?}{r:?}")) ;
                let __dk_kref = &__k1;
                let __dk_vref = &__v1;
                let mut __dk_b = ::core::mem::take(&mut self.__join_4.buffers);
                if ::dekaf_streams::__private::ser::<Utf8>(
                    __dk_kref,
                    &mut __dk_b.key,
                    "KSTREAM-OUTEROTHER-0000000005",
                )? == ::dekaf_streams::__private::Encoded::Null
                {
                    if ::dekaf_streams::__private::ser::<Utf8>(
                        __dk_vref,
                        &mut __dk_b.value,
                        "KSTREAM-OUTEROTHER-0000000005",
                    )? == ::dekaf_streams::__private::Encoded::Null
                    {
                        self.__dropped += 1;
                    } else {
                        let __v5 = __dk_f(
                            ::core::option::Option::None,
                            ::core::option::Option::Some(__dk_vref),
                        );
                        let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                            "outer-joined",
                            __dk_kref,
                            &mut self.__kbuf,
                            "KSTREAM-SINK-0000000007",
                        )?;
                        let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                            "outer-joined",
                            &__v5,
                            &mut self.__vbuf,
                            "KSTREAM-SINK-0000000007",
                        )?;
                        ::dekaf_streams::__private::send(
                            __dk_sink,
                            "outer-joined",
                            ::dekaf_streams::__private::TopicKind::Sink,
                            ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                            ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                            __dk_record.timestamp,
                            __dk_record.headers,
                        )?;
                    }
                } else {
                    if ::dekaf_streams::__private::ser::<Utf8>(
                        __dk_vref,
                        &mut __dk_b.value,
                        "KSTREAM-OUTEROTHER-0000000005",
                    )? == ::dekaf_streams::__private::Encoded::Null
                    {
                        self.__dropped += 1;
                    } else {
                        if __dk_ts == self.__join_4.tracker.stream_time {
                            :: dekaf_streams :: __private :: stream_join :: outer :: take_expired (& mut self . __store_2 , & mut self . __join_4 . tracker , & mut __dk_b . outer , 10i64 , 10i64 , 5i64 , __dk_ts , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition } ,) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTEROTHER-0000000005" , e)) ? ;
                            for __dk_i in 0..__dk_b.outer.records.len() {
                                let __dk_r = __dk_b.outer.records[__dk_i];
                                let __dk_fk = ::dekaf_streams::__private::de_key::<Utf8>(
                                    ::core::option::Option::Some(
                                        &__dk_b.outer.bytes[__dk_r.key.0..__dk_r.key.1],
                                    ),
                                    "KSTREAM-OUTEROTHER-0000000005",
                                )?;
                                let __dk_vb = &__dk_b.outer.bytes[__dk_r.value.0..__dk_r.value.1];
                                let __v5 = if __dk_r.side
                                    == ::dekaf_streams::__private::stream_join::outer::LEFT
                                {
                                    let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                        ::core::option::Option::Some(__dk_vb),
                                        "KSTREAM-OUTEROTHER-0000000005",
                                    )?;
                                    __dk_f(
                                        ::core::option::Option::Some(&__dk_ov),
                                        ::core::option::Option::None,
                                    )
                                } else {
                                    let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                        ::core::option::Option::Some(__dk_vb),
                                        "KSTREAM-OUTEROTHER-0000000005",
                                    )?;
                                    __dk_f(
                                        ::core::option::Option::None,
                                        ::core::option::Option::Some(&__dk_ov),
                                    )
                                };
                                let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                                    timestamp: __dk_r.timestamp,
                                    ..*__dk_record
                                };
                                let __dk_record = &__dk_jrec;
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                    "outer-joined",
                                    &__dk_fk,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                    "outer-joined",
                                    &__v5,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "outer-joined",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            }
                        }
                        ::dekaf_streams::__private::stream_join::window::fetch(
                            &self.__store_0,
                            &self.__join_4.left,
                            &mut __dk_b.window,
                            &__dk_b.key,
                            __dk_ts.saturating_sub(10i64).max(0),
                            __dk_ts.saturating_add(10i64).max(0),
                            &mut __dk_b.found_values,
                            &mut __dk_b.found,
                        )
                        .map_err(|e| {
                            ::dekaf_streams::__private::store_error(
                                "KSTREAM-OUTEROTHER-0000000005",
                                e,
                            )
                        })?;
                        for __dk_i in 0..__dk_b.found.len() {
                            let (__dk_ots, __dk_s, __dk_e) = __dk_b.found[__dk_i];
                            :: dekaf_streams :: __private :: stream_join :: outer :: matched (& mut self . __store_2 , & mut __dk_b . outer , 1u8 , & __dk_b . key , __dk_ots , __dk_ts , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition }) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTEROTHER-0000000005" , e)) ? ;
                            let __dk_ov = ::dekaf_streams::__private::de_value::<Utf8>(
                                ::core::option::Option::Some(&__dk_b.found_values[__dk_s..__dk_e]),
                                "KSTREAM-OUTEROTHER-0000000005",
                            )?;
                            let __v5 = __dk_f(
                                ::core::option::Option::Some(&__dk_ov),
                                ::core::option::Option::Some(__dk_vref),
                            );
                            let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                                timestamp: __dk_ts.max(__dk_ots),
                                ..*__dk_record
                            };
                            let __dk_record = &__dk_jrec;
                            let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                "outer-joined",
                                __dk_kref,
                                &mut self.__kbuf,
                                "KSTREAM-SINK-0000000007",
                            )?;
                            let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                "outer-joined",
                                &__v5,
                                &mut self.__vbuf,
                                "KSTREAM-SINK-0000000007",
                            )?;
                            ::dekaf_streams::__private::send(
                                __dk_sink,
                                "outer-joined",
                                ::dekaf_streams::__private::TopicKind::Sink,
                                ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                __dk_record.timestamp,
                                __dk_record.headers,
                            )?;
                        }
                        if __dk_b.found.is_empty() {
                            if (__dk_ts.saturating_add(10i64)).max(0)
                                < self.__join_4.tracker.stream_time
                            {
                                let __v5 = __dk_f(
                                    ::core::option::Option::None,
                                    ::core::option::Option::Some(__dk_vref),
                                );
                                let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                                    "outer-joined",
                                    __dk_kref,
                                    &mut self.__kbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Utf8>(
                                    "outer-joined",
                                    &__v5,
                                    &mut self.__vbuf,
                                    "KSTREAM-SINK-0000000007",
                                )?;
                                ::dekaf_streams::__private::send(
                                    __dk_sink,
                                    "outer-joined",
                                    ::dekaf_streams::__private::TopicKind::Sink,
                                    ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                                    ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                                    __dk_record.timestamp,
                                    __dk_record.headers,
                                )?;
                            } else {
                                :: dekaf_streams :: __private :: stream_join :: outer :: put (& mut self . __store_2 , & mut self . __join_4 . tracker , & mut __dk_b . outer , 0u8 , & __dk_b . key , __dk_ts , & __dk_b . value , & mut :: dekaf_streams :: __private :: stream_join :: Changelog { sink : & mut * __dk_sink , topic : "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" , partition : self . __partition }) . map_err (| e | :: dekaf_streams :: __private :: store_error ("KSTREAM-OUTEROTHER-0000000005" , e)) ? ;
                            }
                        }
                        ::dekaf_streams::__private::stream_join::window::put(
                            &mut self.__store_1,
                            &mut self.__join_4.right,
                            &mut __dk_b.window,
                            &__dk_b.key,
                            __dk_ts,
                            &__dk_b.value,
                            ::core::option::Option::Some((
                                &mut *__dk_sink,
                                "outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog",
                                self.__partition,
                            )),
                        )
                        .map_err(|e| {
                            ::dekaf_streams::__private::store_error(
                                "KSTREAM-OUTEROTHER-0000000005",
                                e,
                            )
                        })?;
                    }
                }
                self.__join_4.buffers = __dk_b;
            }
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __OuterJoinSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<OuterJoin as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["outer-left", "outer-right"]
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
                        "outer-left",
                        "KSTREAM-SOURCE-0000000000",
                    )
                }
                1usize => {
                    if __dk_record.timestamp > self.__stream_time {
                        self.__stream_time = __dk_record.timestamp;
                    }
                    (
                        ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| {
                            self.__source_1(__dk_record, __dk_sink)
                        })),
                        "outer-right",
                        "KSTREAM-SOURCE-0000000001",
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
                    OuterJoin::__on_error,
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
                "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog" => {
                    ::dekaf_streams::__private::restore(&mut self.__store_2, key, value)
                }
                "outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog" => {
                    let __dk_state = &mut self.__join_4;
                    ::dekaf_streams::__private::stream_join::restore_window(
                        &mut self.__store_0,
                        &mut __dk_state.left,
                        &mut __dk_state.buffers,
                        key,
                        value,
                    )
                }
                "outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog" => {
                    let __dk_state = &mut self.__join_4;
                    ::dekaf_streams::__private::stream_join::restore_window(
                        &mut self.__store_1,
                        &mut __dk_state.right,
                        &mut __dk_state.buffers,
                        key,
                        value,
                    )
                }
                other => Err(::dekaf_streams::__private::TaskError::UnknownChangelog(
                    other.to_owned(),
                )),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_0)?;
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_1)?;
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_2)?;
            self.__join_4.reset();
            self.__stream_time = i64::MIN;
            Ok(())
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            Ok(false)
        }
        fn needs_full_restore(&self) -> bool {
            true
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
                "KSTREAM-OUTERTHIS-0000000004-store" => Some(&self.__store_0),
                "KSTREAM-OUTEROTHER-0000000005-store" => Some(&self.__store_1),
                "KSTREAM-OUTERSHARED-0000000004-store" => Some(&self.__store_2),
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
                &<OuterJoin as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[0usize],
                &mut self.__store_0,
            )?;
            __dk_f(
                &<OuterJoin as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[1usize],
                &mut self.__store_1,
            )?;
            __dk_f(
                &<OuterJoin as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[2usize],
                &mut self.__store_2,
            )?;
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __OuterJoinTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __OuterJoinTask::S0(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __OuterJoinTask::S0(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __OuterJoinTask::S0(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.process(record, sink),
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
                __OuterJoinTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __OuterJoinTask::S0(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __OuterJoinTask::S0(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __OuterJoinTask::S0(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __OuterJoinTask::S0(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __OuterJoinTask::S0(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __OuterJoinTask::S0(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __OuterJoinTask::S0(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __OuterJoinTask::S0(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __OuterJoinTask::S0(t) => t.history(name),
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
                __OuterJoinTask::S0(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __OuterJoinTask::S0(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __OuterJoinTask::S0(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __OuterJoinTask::S0(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __OuterJoinTask::S0(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __OuterJoinTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for OuterJoin {
        const APPLICATION_ID: &'static str = "outer-join";
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "outer-join",
                subtopologies: &[::dekaf_streams::__private::SubtopologyInfo {
                    id: "0",
                    source_topics: &["outer-left", "outer-right"],
                    repartition_source_topics: &[],
                    repartition_sink_topics: &[],
                    state_changelog_topics: &[
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact,delete"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[("cleanup.policy", "delete")],
                            derived: ::dekaf_streams::__private::DerivedConfig::WindowRetention {
                                retention_ms: 25i64,
                            },
                        },
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        },
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact,delete"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[("cleanup.policy", "delete")],
                            derived: ::dekaf_streams::__private::DerivedConfig::WindowRetention {
                                retention_ms: 25i64,
                            },
                        },
                    ],
                    sink_topics: &["outer-joined"],
                    copartition_groups: &[::dekaf_streams::__private::CopartitionGroup {
                        source_topics: &["outer-left", "outer-right"],
                        repartition_source_topics: &[],
                    }],
                    stores: &[
                        ::dekaf_streams::__private::StoreInfo {
                            name: "KSTREAM-OUTERTHIS-0000000004-store",
                            changelog_topic: "outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::JoinWindow {
                                before_ms: 10i64,
                                after_ms: 10i64,
                                grace_ms: 5i64,
                            },
                        },
                        ::dekaf_streams::__private::StoreInfo {
                            name: "KSTREAM-OUTEROTHER-0000000005-store",
                            changelog_topic: "outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::JoinWindow {
                                before_ms: 10i64,
                                after_ms: 10i64,
                                grace_ms: 5i64,
                            },
                        },
                        ::dekaf_streams::__private::StoreInfo {
                            name: "KSTREAM-OUTERSHARED-0000000004-store",
                            changelog_topic: "outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::KeyValue,
                        },
                    ],
                }],
            };
        const DESCRIPTION: &'static str = "Topology: OuterJoin (application id outer-join)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [outer-left])\n      --> KSTREAM-WINDOWED-0000000002\n    Source: KSTREAM-SOURCE-0000000001 (topics: [outer-right])\n      --> KSTREAM-WINDOWED-0000000003\n    Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-OUTERTHIS-0000000004-store])\n      --> KSTREAM-OUTERTHIS-0000000004\n      <-- KSTREAM-SOURCE-0000000000\n    Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-OUTEROTHER-0000000005-store])\n      --> KSTREAM-OUTEROTHER-0000000005\n      <-- KSTREAM-SOURCE-0000000001\n    Processor: KSTREAM-OUTERTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-store, KSTREAM-OUTERSHARED-0000000004-store])\n      --> KSTREAM-MERGE-0000000006\n      <-- KSTREAM-WINDOWED-0000000002\n    Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-OUTERTHIS-0000000004-store, KSTREAM-OUTERSHARED-0000000004-store])\n      --> KSTREAM-MERGE-0000000006\n      <-- KSTREAM-WINDOWED-0000000003\n    Processor: KSTREAM-MERGE-0000000006 (stores: [])\n      --> KSTREAM-SINK-0000000007\n      <-- KSTREAM-OUTERTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005\n    Sink: KSTREAM-SINK-0000000007 (topic: outer-joined)\n      <-- KSTREAM-MERGE-0000000006\n    Store: KSTREAM-OUTERTHIS-0000000004-store (key-value; changelog: outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog)\n    Store: KSTREAM-OUTEROTHER-0000000005-store (key-value; changelog: outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog)\n    Store: KSTREAM-OUTERSHARED-0000000004-store (key-value; changelog: outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog)\n    Co-partitioned: [outer-left, outer-right]\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [outer-left, outer-right]\n    Changelog topic: outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog (cleanup.policy=delete, message.timestamp.type=CreateTime, retention.ms=86400025)\n    Changelog topic: outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog (cleanup.policy=compact, message.timestamp.type=CreateTime)\n    Changelog topic: outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog (cleanup.policy=delete, message.timestamp.type=CreateTime, retention.ms=86400025)\n    Copartition group: [outer-left, outer-right]\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n    outer-join-KSTREAM-OUTERTHIS-0000000004-store-changelog: join/leftJoin/outerJoin(.., JoinWindows..) without StreamJoined.withName or withStoreName\n    outer-join-KSTREAM-OUTEROTHER-0000000005-store-changelog: join/leftJoin/outerJoin(.., JoinWindows..) without StreamJoined.withName or withStoreName\n    outer-join-KSTREAM-OUTERSHARED-0000000004-store-changelog: join/leftJoin/outerJoin(.., JoinWindows..) without StreamJoined.withName or withStoreName\n  Can differ from the Java application's declaration:\n    ! stream-stream join: its store `KSTREAM-OUTERTHIS-0000000004-store` is named after a node number, and Kafka Streams' numbering of the nodes before it need not be ours (repartitions, named operators), so the Java application's store can have another number, and one named with StreamJoined.withName/withStoreName cannot be matched (this DSL does not name join stores yet). Check the Java application's Topology.describe() for `KSTREAM-OUTERTHIS-0000000004-store` before migrating\n    ! stream-stream join: its store `KSTREAM-OUTEROTHER-0000000005-store` is named after a node number, and Kafka Streams' numbering of the nodes before it need not be ours (repartitions, named operators), so the Java application's store can have another number, and one named with StreamJoined.withName/withStoreName cannot be matched (this DSL does not name join stores yet). Check the Java application's Topology.describe() for `KSTREAM-OUTEROTHER-0000000005-store` before migrating\n    ! stream-stream join: its store `KSTREAM-OUTERSHARED-0000000004-store` is named after a node number, and Kafka Streams' numbering of the nodes before it need not be ours (repartitions, named operators), so the Java application's store can have another number, and one named with StreamJoined.withName/withStoreName cannot be matched (this DSL does not name join stores yet). Check the Java application's Topology.describe() for `KSTREAM-OUTERSHARED-0000000004-store` before migrating\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] = &[];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __OuterJoinTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__OuterJoinTask::S0(__OuterJoinSub0::__create(
                    partition, stores,
                )?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
