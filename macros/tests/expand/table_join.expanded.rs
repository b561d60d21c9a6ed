#[doc = " A join of a filtered table (read through the filter's value getter), filtered again."]
#[derive(Debug, Clone, Copy, Default)]
pub struct Chained;
impl Chained {
    #[doc = "Topic `names` (read as a table), with its serdes."]
    pub const NAMES: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Utf8>("names");
    #[doc = "Topic `amounts` (read as a table), with its serdes."]
    pub const AMOUNTS: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, I64>("amounts");
    #[doc = "Topic `big-named` (written), with its serdes."]
    pub const BIG_NAMED: ::dekaf_streams::__private::TopicRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Nullable<Utf8> as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::TopicRef::new::<Utf8, Nullable<Utf8>>("big-named");
    #[doc = "Key-value store `names` (changelog `names`)."]
    pub const NAMES_STORE: ::dekaf_streams::__private::StoreRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::StoreRef::timestamped::<Utf8, Utf8>("names");
    #[doc = "Key-value store `amounts` (changelog `amounts`)."]
    pub const AMOUNTS_STORE: ::dekaf_streams::__private::StoreRef<
        <Utf8 as ::dekaf_streams::__private::Serde>::Value,
        <I64 as ::dekaf_streams::__private::Serde>::Value,
    > = ::dekaf_streams::__private::StoreRef::timestamped::<Utf8, I64>("amounts");
}
const _: () = {
    impl Chained {
        fn __on_error(
            __dk_error: &::dekaf_streams::__private::ProcessingError,
        ) -> ::dekaf_streams::__private::ErrorResponse {
            ::dekaf_streams::__private::default_on_error(__dk_error)
        }
    }
    #[doc = "The task of one subtopology of [`Chained`], over store backend `B`."]
    pub enum __ChainedTask<B> {
        S0(__ChainedSub0<B>),
    }
    pub struct __ChainedSub0<B> {
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
        __cache_max: usize,
        __fkbuf: ::std::vec::Vec<u8>,
        __fvbuf: ::std::vec::Vec<u8>,
        __fobuf: ::std::vec::Vec<u8>,
        __obuf: ::std::vec::Vec<u8>,
        __cache_0: ::dekaf_streams::__private::DirtyKeys,
        __cache_1: ::dekaf_streams::__private::DirtyKeys,
        __marker: ::core::marker::PhantomData<fn() -> B>,
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> __ChainedSub0<B> {
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
                    "table-joins-chained",
                    "0",
                    partition,
                    &::dekaf_streams::__private::StoreInfo {
                        name: "names",
                        changelog_topic: "names",
                        logged: true,
                        in_memory: false,
                        kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                    },
                )?,
                __store_1: stores.open(
                    "table-joins-chained",
                    "0",
                    partition,
                    &::dekaf_streams::__private::StoreInfo {
                        name: "amounts",
                        changelog_topic: "amounts",
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
                __cache_0: ::dekaf_streams::__private::DirtyKeys::new(),
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
            let __dk_kb = match __dk_record.key {
                Some(b) => b,
                None => {
                    self.__dropped += 1;
                    return Ok(());
                }
            };
            if self.__cache_max != 0 {
                let _ = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "amounts",
                    Some(__dk_kb),
                    "KTABLE-SOURCE-0000000003",
                )?;
                if let Some(__dk_vb) = __dk_record.value {
                    let _ = ::dekaf_streams::__private::de_value_at::<I64>(
                        "amounts",
                        Some(__dk_vb),
                        "KTABLE-SOURCE-0000000003",
                    )?;
                }
                return ::dekaf_streams::__private::cached_source_put(
                    &mut self.__store_1,
                    &mut self.__cache_1,
                    __dk_record,
                    __dk_kb,
                    true,
                    &mut self.__vbuf,
                    &mut self.__obuf,
                    "KTABLE-SOURCE-0000000003",
                );
            }
            let __dk_k = ::dekaf_streams::__private::de_key_at::<Utf8>(
                "amounts",
                Some(__dk_kb),
                "KTABLE-SOURCE-0000000003",
            )?;
            let __dk_old: Option<<I64 as ::dekaf_streams::__private::Serde>::Value> =
                ::dekaf_streams::__private::get_timestamped::<I64, _>(
                    &self.__store_1,
                    __dk_kb,
                    "KTABLE-SOURCE-0000000003",
                )?
                .map(|(__dk_x, _)| __dk_x);
            let __dk_new = match __dk_record.value {
                None => None,
                Some(__dk_vb) => Some(::dekaf_streams::__private::de_value_at::<I64>(
                    "amounts",
                    Some(__dk_vb),
                    "KTABLE-SOURCE-0000000003",
                )?),
            };
            ::dekaf_streams::__private::source_put(
                &mut self.__store_1,
                __dk_kb,
                __dk_record.value,
                __dk_record.timestamp,
                &mut self.__vbuf,
                "KTABLE-SOURCE-0000000003",
            )?;
            self.__changed_1(
                __dk_record,
                __dk_k,
                ::dekaf_streams::__private::Change {
                    new: __dk_new,
                    old: __dk_old,
                },
                __dk_sink,
            )?;
            Ok(())
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __source_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_kb = match __dk_record.key {
                Some(b) => b,
                None => {
                    self.__dropped += 1;
                    return Ok(());
                }
            };
            if self.__cache_max != 0 {
                let _ = ::dekaf_streams::__private::de_key_at::<Utf8>(
                    "names",
                    Some(__dk_kb),
                    "KTABLE-SOURCE-0000000001",
                )?;
                if let Some(__dk_vb) = __dk_record.value {
                    let _ = ::dekaf_streams::__private::de_value_at::<Utf8>(
                        "names",
                        Some(__dk_vb),
                        "KTABLE-SOURCE-0000000001",
                    )?;
                }
                return ::dekaf_streams::__private::cached_source_put(
                    &mut self.__store_0,
                    &mut self.__cache_0,
                    __dk_record,
                    __dk_kb,
                    true,
                    &mut self.__vbuf,
                    &mut self.__obuf,
                    "KTABLE-SOURCE-0000000001",
                );
            }
            let __dk_k = ::dekaf_streams::__private::de_key_at::<Utf8>(
                "names",
                Some(__dk_kb),
                "KTABLE-SOURCE-0000000001",
            )?;
            let __dk_old: Option<<Utf8 as ::dekaf_streams::__private::Serde>::Value> =
                ::dekaf_streams::__private::get_timestamped::<Utf8, _>(
                    &self.__store_0,
                    __dk_kb,
                    "KTABLE-SOURCE-0000000001",
                )?
                .map(|(__dk_x, _)| __dk_x);
            let __dk_new = match __dk_record.value {
                None => None,
                Some(__dk_vb) => Some(::dekaf_streams::__private::de_value_at::<Utf8>(
                    "names",
                    Some(__dk_vb),
                    "KTABLE-SOURCE-0000000001",
                )?),
            };
            ::dekaf_streams::__private::source_put(
                &mut self.__store_0,
                __dk_kb,
                __dk_record.value,
                __dk_record.timestamp,
                &mut self.__vbuf,
                "KTABLE-SOURCE-0000000001",
            )?;
            self.__changed_0(
                __dk_record,
                __dk_k,
                ::dekaf_streams::__private::Change {
                    new: __dk_new,
                    old: __dk_old,
                },
                __dk_sink,
            )?;
            Ok(())
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __changed_0<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __k0: <Utf8 as ::dekaf_streams::__private::Serde>::Value,
            __v0: ::dekaf_streams::__private::Change<
                <Utf8 as ::dekaf_streams::__private::Serde>::Value,
            >,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_ch = __v0;
            if let Some((__dk_o, __dk_ot)) = match match ::dekaf_streams::__private::ser::<Utf8>(
                &__k0,
                &mut self.__kbuf,
                "KTABLE-SOURCE-0000000003",
            )? {
                ::dekaf_streams::__private::Encoded::Present => {
                    ::dekaf_streams::__private::get_timestamped::<I64, _>(
                        &self.__store_1,
                        &self.__kbuf,
                        "KTABLE-SOURCE-0000000003",
                    )?
                }
                ::dekaf_streams::__private::Encoded::Null => None,
            } {
                Some((__dk_g, __dk_t))
                    if ::dekaf_streams::__private::filter(&__k0, &__dk_g, |_k, n| *n >= 10) =>
                {
                    Some((__dk_g, __dk_t))
                }
                _ => None,
            } {
                let __dk_ts = ::core::cmp::max(__dk_record.timestamp, __dk_ot);
                let __v4 = ::dekaf_streams::__private::Change {
                    new: match &__dk_ch.new {
                        Some(__dk_x) => Some(::dekaf_streams::__private::table_join(
                            __dk_x,
                            &__dk_o,
                            |name: &String, n: &i64| format!("{name}:{n}"),
                        )),
                        None => None,
                    },
                    old: match &__dk_ch.old {
                        Some(__dk_x) => Some(::dekaf_streams::__private::table_join(
                            __dk_x,
                            &__dk_o,
                            |name: &String, n: &i64| format!("{name}:{n}"),
                        )),
                        None => None,
                    },
                };
                let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                    timestamp: __dk_ts,
                    ..*__dk_record
                };
                let __dk_record = &__dk_jrec;
                let __dk_ch = __v4;
                let __v6 = ::dekaf_streams::__private::Change {
                    new: match __dk_ch.new {
                        Some(__dk_x)
                            if !::dekaf_streams::__private::filter(&__k0, &__dk_x, |_k, v| {
                                v.starts_with("skip")
                            }) =>
                        {
                            Some(__dk_x)
                        }
                        _ => None,
                    },
                    old: match __dk_ch.old {
                        Some(__dk_x)
                            if !::dekaf_streams::__private::filter(&__k0, &__dk_x, |_k, v| {
                                v.starts_with("skip")
                            }) =>
                        {
                            Some(__dk_x)
                        }
                        _ => None,
                    },
                };
                if !__v6.is_empty() {
                    let __v7 = (__v6).new;
                    let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                        "big-named",
                        &__k0,
                        &mut self.__kbuf,
                        "KSTREAM-SINK-0000000010",
                    )?;
                    let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Nullable<Utf8>>(
                        "big-named",
                        &__v7,
                        &mut self.__vbuf,
                        "KSTREAM-SINK-0000000010",
                    )?;
                    ::dekaf_streams::__private::send(
                        __dk_sink,
                        "big-named",
                        ::dekaf_streams::__private::TopicKind::Sink,
                        ::dekaf_streams::__private::bytes(__dk_ke, &self.__kbuf),
                        ::dekaf_streams::__private::bytes(__dk_ve, &self.__vbuf),
                        __dk_record.timestamp,
                        __dk_record.headers,
                    )?;
                }
            }
            Ok(())
        }
        #[allow(clippy::all)]
        #[inline]
        fn __forward_0<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_old: Option<&[u8]>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_k = ::dekaf_streams::__private::de_key::<Utf8>(
                __dk_record.key,
                "KTABLE-SOURCE-0000000001",
            )?;
            let __dk_new = match __dk_record.value {
                None => None,
                Some(__dk_vb) => Some(::dekaf_streams::__private::de_value::<Utf8>(
                    Some(__dk_vb),
                    "KTABLE-SOURCE-0000000001",
                )?),
            };
            let __dk_old = match __dk_old {
                None => None,
                Some(__dk_ob) => Some(::dekaf_streams::__private::de_value::<Utf8>(
                    Some(__dk_ob),
                    "KTABLE-SOURCE-0000000001",
                )?),
            };
            self.__changed_0(
                __dk_record,
                __dk_k,
                ::dekaf_streams::__private::Change {
                    new: __dk_new,
                    old: __dk_old,
                },
                __dk_sink,
            )
        }
        #[doc = r" Forwards the current result of every dirty key of this aggregation, then"]
        #[doc = r" forgets the keys (also when it fails)."]
        #[inline(never)]
        fn __flush_0<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            if self.__cache_0.is_empty() {
                return Ok(());
            }
            let mut __dk_fk = ::core::mem::take(&mut self.__fkbuf);
            let mut __dk_fv = ::core::mem::take(&mut self.__fvbuf);
            let mut __dk_fo = ::core::mem::take(&mut self.__fobuf);
            let mut __dk_out = Ok(());
            let mut __dk_i = 0usize;
            while let Some((__dk_key, __dk_entry)) = self.__cache_0.get(__dk_i) {
                __dk_i += 1;
                __dk_fk.clear();
                __dk_fk.extend_from_slice(__dk_key);
                __dk_fo.clear();
                let __dk_has_old = match self.__cache_0.old(&__dk_entry) {
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
                        self.__forward_0(
                            &__dk_record,
                            __dk_has_old.then_some(&__dk_fo[..]),
                            __dk_sink,
                        )
                    })) {
                        Ok(r) => r,
                        Err(payload) => Err(::dekaf_streams::__private::panicked(
                            "KTABLE-SOURCE-0000000001",
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
                        Chained::__on_error,
                        &mut self.__skipped,
                        __dk_sink,
                    ) {
                        __dk_out = Err(e);
                        break;
                    }
                }
            }
            self.__cache_0.clear();
            self.__fkbuf = __dk_fk;
            self.__fvbuf = __dk_fv;
            self.__fobuf = __dk_fo;
            __dk_out
        }
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn __changed_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __k1: <Utf8 as ::dekaf_streams::__private::Serde>::Value,
            __v1: ::dekaf_streams::__private::Change<
                <I64 as ::dekaf_streams::__private::Serde>::Value,
            >,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_ch = __v1;
            let __v2 = ::dekaf_streams::__private::Change {
                new: match __dk_ch.new {
                    Some(__dk_x)
                        if ::dekaf_streams::__private::filter(&__k1, &__dk_x, |_k, n| *n >= 10) =>
                    {
                        Some(__dk_x)
                    }
                    _ => None,
                },
                old: match __dk_ch.old {
                    Some(__dk_x)
                        if ::dekaf_streams::__private::filter(&__k1, &__dk_x, |_k, n| *n >= 10) =>
                    {
                        Some(__dk_x)
                    }
                    _ => None,
                },
            };
            if !__v2.is_empty() {
                let __dk_ch = __v2;
                if let Some((__dk_o, __dk_ot)) = match ::dekaf_streams::__private::ser::<Utf8>(
                    &__k1,
                    &mut self.__kbuf,
                    "KTABLE-SOURCE-0000000001",
                )? {
                    ::dekaf_streams::__private::Encoded::Present => {
                        ::dekaf_streams::__private::get_timestamped::<Utf8, _>(
                            &self.__store_0,
                            &self.__kbuf,
                            "KTABLE-SOURCE-0000000001",
                        )?
                    }
                    ::dekaf_streams::__private::Encoded::Null => None,
                } {
                    let __dk_ts = ::core::cmp::max(__dk_record.timestamp, __dk_ot);
                    let __v5 = ::dekaf_streams::__private::Change {
                        new: match &__dk_ch.new {
                            Some(__dk_x) => Some(::dekaf_streams::__private::table_join(
                                &__dk_o,
                                __dk_x,
                                |name: &String, n: &i64| format!("{name}:{n}"),
                            )),
                            None => None,
                        },
                        old: match &__dk_ch.old {
                            Some(__dk_x) => Some(::dekaf_streams::__private::table_join(
                                &__dk_o,
                                __dk_x,
                                |name: &String, n: &i64| format!("{name}:{n}"),
                            )),
                            None => None,
                        },
                    };
                    let __dk_jrec = ::dekaf_streams::__private::InputRecord {
                        timestamp: __dk_ts,
                        ..*__dk_record
                    };
                    let __dk_record = &__dk_jrec;
                    let __dk_ch = __v5;
                    let __v6 = ::dekaf_streams::__private::Change {
                        new: match __dk_ch.new {
                            Some(__dk_x)
                                if !::dekaf_streams::__private::filter(
                                    &__k1,
                                    &__dk_x,
                                    |_k, v| v.starts_with("skip"),
                                ) =>
                            {
                                Some(__dk_x)
                            }
                            _ => None,
                        },
                        old: match __dk_ch.old {
                            Some(__dk_x)
                                if !::dekaf_streams::__private::filter(
                                    &__k1,
                                    &__dk_x,
                                    |_k, v| v.starts_with("skip"),
                                ) =>
                            {
                                Some(__dk_x)
                            }
                            _ => None,
                        },
                    };
                    if !__v6.is_empty() {
                        let __v7 = (__v6).new;
                        let __dk_ke = ::dekaf_streams::__private::ser_key_at::<Utf8>(
                            "big-named",
                            &__k1,
                            &mut self.__kbuf,
                            "KSTREAM-SINK-0000000010",
                        )?;
                        let __dk_ve = ::dekaf_streams::__private::ser_value_at::<Nullable<Utf8>>(
                            "big-named",
                            &__v7,
                            &mut self.__vbuf,
                            "KSTREAM-SINK-0000000010",
                        )?;
                        ::dekaf_streams::__private::send(
                            __dk_sink,
                            "big-named",
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
        #[allow(clippy::all)]
        #[inline]
        fn __forward_1<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            __dk_record: &::dekaf_streams::__private::InputRecord<'_>,
            __dk_old: Option<&[u8]>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::RecordError> {
            let __dk_k = ::dekaf_streams::__private::de_key::<Utf8>(
                __dk_record.key,
                "KTABLE-SOURCE-0000000003",
            )?;
            let __dk_new = match __dk_record.value {
                None => None,
                Some(__dk_vb) => Some(::dekaf_streams::__private::de_value::<I64>(
                    Some(__dk_vb),
                    "KTABLE-SOURCE-0000000003",
                )?),
            };
            let __dk_old = match __dk_old {
                None => None,
                Some(__dk_ob) => Some(::dekaf_streams::__private::de_value::<I64>(
                    Some(__dk_ob),
                    "KTABLE-SOURCE-0000000003",
                )?),
            };
            self.__changed_1(
                __dk_record,
                __dk_k,
                ::dekaf_streams::__private::Change {
                    new: __dk_new,
                    old: __dk_old,
                },
                __dk_sink,
            )
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
                    &self.__store_1,
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
                        self.__forward_1(
                            &__dk_record,
                            __dk_has_old.then_some(&__dk_fo[..]),
                            __dk_sink,
                        )
                    })) {
                        Ok(r) => r,
                        Err(payload) => Err(::dekaf_streams::__private::panicked(
                            "KTABLE-SOURCE-0000000003",
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
                        Chained::__on_error,
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
        for __ChainedSub0<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            &<Chained as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
        }
        fn partition(&self) -> i32 {
            self.__partition
        }
        fn source_topics(&self) -> &'static [&'static str] {
            &["amounts", "names"]
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
                        "KTABLE-SOURCE-0000000003",
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
                        "names",
                        "KTABLE-SOURCE-0000000001",
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
                    Chained::__on_error,
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
                self.__flush_0(__dk_sink)?;
                self.__flush_1(__dk_sink)?;
                if self.__cache_0.is_empty() && self.__cache_1.is_empty() {
                    return Ok(());
                }
            }
        }
        fn cache_bytes(&self) -> usize {
            0 + self.__cache_0.bytes() + self.__cache_1.bytes()
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
                "names" => ::dekaf_streams::__private::restore_table(
                    &mut self.__store_0,
                    key,
                    value,
                    timestamp,
                    &mut self.__vbuf,
                ),
                "amounts" => ::dekaf_streams::__private::restore_table(
                    &mut self.__store_1,
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
            ::dekaf_streams::__private::StoreBackend::clear(&mut self.__store_1)?;
            self.__cache_0.clear();
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
            __dk_kept &=
                ::dekaf_streams::__private::StoreBackend::discard_pending(&mut self.__store_1)?;
            if !__dk_kept {
                return Ok(false);
            }
            self.__cache_0.clear();
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
                "names" => Some(&self.__store_0),
                "amounts" => Some(&self.__store_1),
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
                &<Chained as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[0usize],
                &mut self.__store_0,
            )?;
            __dk_f(
                &<Chained as ::dekaf_streams::__private::Topology>::INFO.subtopologies[0usize]
                    .stores[1usize],
                &mut self.__store_1,
            )?;
            Ok(())
        }
    }
    impl<B: ::dekaf_streams::__private::StoreBackend> ::dekaf_streams::__private::Task
        for __ChainedTask<B>
    {
        type Backend = B;
        fn subtopology(&self) -> &'static ::dekaf_streams::__private::SubtopologyInfo {
            match self {
                __ChainedTask::S0(t) => t.subtopology(),
            }
        }
        fn partition(&self) -> i32 {
            match self {
                __ChainedTask::S0(t) => t.partition(),
            }
        }
        fn source_topics(&self) -> &'static [&'static str] {
            match self {
                __ChainedTask::S0(t) => t.source_topics(),
            }
        }
        #[inline]
        fn process<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            record: &::dekaf_streams::__private::InputRecord<'_>,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.process(record, sink),
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
                __ChainedTask::S0(t) => t.restore(changelog_topic, key, value, timestamp),
            }
        }
        fn clear(&mut self) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.clear(),
            }
        }
        fn discard_uncommitted(
            &mut self,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.discard_uncommitted(),
            }
        }
        fn needs_full_restore(&self) -> bool {
            match self {
                __ChainedTask::S0(t) => t.needs_full_restore(),
            }
        }
        fn stream_time(&self) -> i64 {
            match self {
                __ChainedTask::S0(t) => t.stream_time(),
            }
        }
        fn set_stream_time(&mut self, stream_time: i64) {
            match self {
                __ChainedTask::S0(t) => t.set_stream_time(stream_time),
            }
        }
        fn late_records_dropped(&self) -> u64 {
            match self {
                __ChainedTask::S0(t) => t.late_records_dropped(),
            }
        }
        fn records_skipped(&self) -> u64 {
            match self {
                __ChainedTask::S0(t) => t.records_skipped(),
            }
        }
        fn null_records_dropped(&self) -> u64 {
            match self {
                __ChainedTask::S0(t) => t.null_records_dropped(),
            }
        }
        fn invalid_timestamps_dropped(&self) -> u64 {
            match self {
                __ChainedTask::S0(t) => t.invalid_timestamps_dropped(),
            }
        }
        fn store(&self, name: &str) -> Option<&B> {
            match self {
                __ChainedTask::S0(t) => t.store(name),
            }
        }
        fn history(&self, name: &str) -> Option<&::dekaf_streams::__private::VersionHistory> {
            match self {
                __ChainedTask::S0(t) => t.history(name),
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
                __ChainedTask::S0(t) => t.for_each_store(f),
            }
        }
        fn set_cache_max_bytes(&mut self, bytes: usize) {
            match self {
                __ChainedTask::S0(t) => t.set_cache_max_bytes(bytes),
            }
        }
        fn flush_cache<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<(), ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.flush_cache(sink),
            }
        }
        fn cache_bytes(&self) -> usize {
            match self {
                __ChainedTask::S0(t) => t.cache_bytes(),
            }
        }
        fn attach_global_stores(&mut self, globals: &::dekaf_streams::__private::GlobalStores) {
            match self {
                __ChainedTask::S0(t) => t.attach_global_stores(globals),
            }
        }
        fn punctuate_stream_time<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.punctuate_stream_time(sink),
            }
        }
        fn wall_clock_due(&mut self, now_ms: i64) -> bool {
            match self {
                __ChainedTask::S0(t) => t.wall_clock_due(now_ms),
            }
        }
        fn punctuate_wall_clock<S: ::dekaf_streams::__private::RecordSink>(
            &mut self,
            now_ms: i64,
            sink: &mut S,
        ) -> ::core::result::Result<bool, ::dekaf_streams::__private::TaskError> {
            match self {
                __ChainedTask::S0(t) => t.punctuate_wall_clock(now_ms, sink),
            }
        }
    }
    impl ::dekaf_streams::__private::Topology for Chained {
        const APPLICATION_ID: &'static str = "table-joins-chained";
        fn check_serdes_at_start()
        -> ::core::result::Result<(), ::dekaf_streams::__private::StartCheckError> {
            <Nullable<Utf8> as ::dekaf_streams::__private::Serde>::check_at_start(
                ::dekaf_streams::__private::SerdeContext::value("big-named"),
            )?;
            ::core::result::Result::Ok(())
        }
        const INFO: &'static ::dekaf_streams::__private::TopologyInfo =
            &::dekaf_streams::__private::TopologyInfo {
                application_id: "table-joins-chained",
                subtopologies: &[::dekaf_streams::__private::SubtopologyInfo {
                    id: "0",
                    source_topics: &["amounts", "names"],
                    repartition_source_topics: &[],
                    repartition_sink_topics: &[],
                    state_changelog_topics: &[
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "amounts",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        },
                        ::dekaf_streams::__private::InternalTopicInfo {
                            name: "names",
                            partitions: 0,
                            configs: &[
                                ("cleanup.policy", "compact"),
                                ("message.timestamp.type", "CreateTime"),
                            ],
                            store_configs: &[],
                            derived: ::dekaf_streams::__private::DerivedConfig::None,
                        },
                    ],
                    sink_topics: &["big-named"],
                    copartition_groups: &[::dekaf_streams::__private::CopartitionGroup {
                        source_topics: &["amounts", "names"],
                        repartition_source_topics: &[],
                    }],
                    stores: &[
                        ::dekaf_streams::__private::StoreInfo {
                            name: "names",
                            changelog_topic: "names",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                        },
                        ::dekaf_streams::__private::StoreInfo {
                            name: "amounts",
                            changelog_topic: "amounts",
                            logged: true,
                            in_memory: false,
                            kind: ::dekaf_streams::__private::StoreKind::TimestampedKeyValue,
                        },
                    ],
                }],
            };
        const DESCRIPTION: &'static str = "Topology: Chained (application id table-joins-chained)\nTopologies:\n   Sub-topology: 0\n    Source: KSTREAM-SOURCE-0000000000 (topics: [names])\n      --> KTABLE-SOURCE-0000000001\n    Processor: KTABLE-SOURCE-0000000001 (stores: [names])\n      --> KTABLE-JOINTHIS-0000000006\n      <-- KSTREAM-SOURCE-0000000000\n    Source: KSTREAM-SOURCE-0000000002 (topics: [amounts])\n      --> KTABLE-SOURCE-0000000003\n    Processor: KTABLE-SOURCE-0000000003 (stores: [amounts])\n      --> KTABLE-FILTER-0000000004\n      <-- KSTREAM-SOURCE-0000000002\n    Processor: KTABLE-FILTER-0000000004 (stores: [])\n      --> KTABLE-JOINOTHER-0000000007\n      <-- KTABLE-SOURCE-0000000003\n    Processor: KTABLE-MERGE-0000000005 (stores: [])\n      --> KTABLE-FILTER-0000000008\n      <-- KTABLE-JOINTHIS-0000000006, KTABLE-JOINOTHER-0000000007\n    Processor: KTABLE-JOINTHIS-0000000006 (stores: [amounts])\n      --> KTABLE-MERGE-0000000005\n      <-- KTABLE-SOURCE-0000000001\n    Processor: KTABLE-JOINOTHER-0000000007 (stores: [names])\n      --> KTABLE-MERGE-0000000005\n      <-- KTABLE-FILTER-0000000004\n    Processor: KTABLE-FILTER-0000000008 (stores: [])\n      --> KTABLE-TOSTREAM-0000000009\n      <-- KTABLE-MERGE-0000000005\n    Processor: KTABLE-TOSTREAM-0000000009 (stores: [])\n      --> KSTREAM-SINK-0000000010\n      <-- KTABLE-FILTER-0000000008\n    Sink: KSTREAM-SINK-0000000010 (topic: big-named)\n      <-- KTABLE-TOSTREAM-0000000009\n    Store: names (key-value; changelog: names)\n    Store: amounts (key-value; changelog: amounts)\n    Co-partitioned: [amounts, names]\n\nDeclared to the coordinator (compare with kafka-streams-groups.sh --describe --group <application id> of the Java application):\n   Sub-topology: 0\n    Source topics: [amounts, names]\n    Changelog topic: amounts (cleanup.policy=compact, message.timestamp.type=CreateTime)\n    Changelog topic: names (cleanup.policy=compact, message.timestamp.type=CreateTime)\n    Copartition group: [amounts, names]\n\nKafka Streams equivalent (the Java DSL that declares the same internal topics):\n    names: builder.table(\"names\", Materialized.as(\"names\")) with topology.optimization=reuse.ktable.source.topics\n    amounts: builder.table(\"amounts\", Materialized.as(\"amounts\")) with topology.optimization=reuse.ktable.source.topics\n  Can differ from the Java application's declaration:\n    ! table(\"names\"): the table's store `names` restores from its source topic, as Kafka Streams only with topology.optimization=reuse.ktable.source.topics (or all); without it the Java application declares `table-joins-chained-names-changelog` (or, unmaterialized, none). Fix: set topology.optimization=reuse.ktable.source.topics in the Java application and run it once before migrating\n    ! table(\"amounts\"): the table's store `amounts` restores from its source topic, as Kafka Streams only with topology.optimization=reuse.ktable.source.topics (or all); without it the Java application declares `table-joins-chained-amounts-changelog` (or, unmaterialized, none). Fix: set topology.optimization=reuse.ktable.source.topics in the Java application and run it once before migrating\n";
        const WINDOWED_SINKS: &'static [::dekaf_streams::__private::WindowedSink] = &[];
        const OFFSET_RESETS: &'static [::dekaf_streams::__private::SourceOffsetReset] = &[];
        const CHOSEN_TOPICS: &'static [&'static str] = &[];
        type Task<B: ::dekaf_streams::__private::StoreBackend> = __ChainedTask<B>;
        fn create_task<F: ::dekaf_streams::__private::BackendFactory>(
            subtopology: &str,
            partition: i32,
            stores: &mut F,
        ) -> ::core::result::Result<Self::Task<F::Backend>, ::dekaf_streams::__private::TaskError>
        {
            match subtopology {
                "0" => Ok(__ChainedTask::S0(__ChainedSub0::__create(
                    partition, stores,
                )?)),
                other => Err(::dekaf_streams::__private::TaskError::UnknownSubtopology(
                    other.to_owned(),
                )),
            }
        }
    }
};
