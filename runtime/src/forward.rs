//! What a `process(..)` or `process_values(..)` closure forwards: plain records, or a
//! [`Forward`] that sets the forwarded record's timestamp or headers (Kafka Streams'
//! `Record#withTimestamp` and `Record#withHeaders`).
//!
//! A forwarded record carries the input record's timestamp and headers unless it says
//! otherwise, as a Kafka Streams `Record` made with `record.withKey(..).withValue(..)` does.
//! The closure returns plain `(key, value)` pairs (values for `process_values`) or
//! `Forward`s; the macro resolves which at compile time, so plain records cost nothing extra.
//!
//! ```
//! use dekaf_streams::prelude::*;
//!
//! topology! {
//!     pub Stamped = "stamped" {
//!         stream("in", Utf8, Utf8)
//!             .process([], |ctx, key: String, value: String| {
//!                 let at = ctx.timestamp() + 1000;
//!                 Ok(Some(
//!                     Forward::new(key, value)
//!                         .with_timestamp(at)
//!                         .with_headers(Headers::new().with("from", "stamped")),
//!                 ))
//!             })
//!             .to("out", Utf8, Utf8);
//!         stream("in2", Utf8, Utf8)
//!             .process_values([], |_ctx, _key: &String, value: String| {
//!                 Ok([Forward::value(value).with_timestamp(5)])
//!             })
//!             .to("out2", Utf8, Utf8);
//!     }
//! }
//! ```

use crate::record::Headers;

/// A forwarded record with its own timestamp or headers: `Forward::new(key, value)` in
/// `process(..)`, `Forward::value(value)` in `process_values(..)` (the key is the input's).
#[derive(Debug, Clone, PartialEq)]
pub struct Forward<K, V> {
    key: K,
    value: V,
    timestamp: Option<i64>,
    headers: Option<Headers>,
}

/// The key of a [`Forward`] of `process_values(..)`: the input record's, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SameKey;

impl<K, V> Forward<K, V> {
    /// A record of `process(..)` with the input's timestamp and headers until set.
    pub fn new(key: K, value: V) -> Self {
        Forward {
            key,
            value,
            timestamp: None,
            headers: None,
        }
    }

    /// Its timestamp (Kafka Streams' `Record#withTimestamp`): what a sink writes and a later
    /// window or join reads. Stream time is not moved by it.
    pub fn with_timestamp(mut self, timestamp: i64) -> Self {
        self.timestamp = Some(timestamp);
        self
    }

    /// Its headers, replacing the input record's (Kafka Streams' `Record#withHeaders`).
    pub fn with_headers(mut self, headers: Headers) -> Self {
        self.headers = Some(headers);
        self
    }
}

impl<V> Forward<SameKey, V> {
    /// A value of `process_values(..)`, forwarded under the input record's key.
    pub fn value(value: V) -> Self {
        Forward::new(SameKey, value)
    }
}

/// One record as the macro's code takes it apart: key (or [`SameKey`]), value, and the
/// timestamp and headers it sets, if any.
#[doc(hidden)]
pub type Parts<K, V> = (K, V, Option<i64>, Option<Headers>);

/// An item `process(..)` may forward: a `(key, value)` pair or a [`Forward`].
#[doc(hidden)]
pub trait ForwardRecord {
    type Key;
    type Value;
    fn into_parts(self) -> Parts<Self::Key, Self::Value>;
}

impl<K, V> ForwardRecord for (K, V) {
    type Key = K;
    type Value = V;
    #[inline(always)]
    fn into_parts(self) -> Parts<K, V> {
        (self.0, self.1, None, None)
    }
}

impl<K, V> ForwardRecord for Forward<K, V> {
    type Key = K;
    type Value = V;
    #[inline(always)]
    fn into_parts(self) -> Parts<K, V> {
        (self.key, self.value, self.timestamp, self.headers)
    }
}

/// A value `process_values(..)` forwards, held for the compile-time choice between a
/// `Forward<SameKey, V>` ([`ForwardValue`], tried first: it is implemented on `&&ValueItem`)
/// and a plain value ([`PlainValue`], on `&ValueItem`): `(&&ValueItem::new(v)).value_parts()`.
#[doc(hidden)]
pub struct ValueItem<T>(core::cell::Cell<Option<T>>);

impl<T> ValueItem<T> {
    #[inline(always)]
    pub fn new(item: T) -> Self {
        ValueItem(core::cell::Cell::new(Some(item)))
    }

    #[inline(always)]
    fn take(&self) -> T {
        match self.0.take() {
            Some(item) => item,
            // Each item is made and taken apart once by the macro's code.
            None => unreachable!("a forwarded value taken twice"),
        }
    }
}

#[doc(hidden)]
pub trait ForwardValue {
    type Value;
    fn value_parts(self) -> Parts<SameKey, Self::Value>;
}

impl<V> ForwardValue for &&ValueItem<Forward<SameKey, V>> {
    type Value = V;
    #[inline(always)]
    fn value_parts(self) -> Parts<SameKey, V> {
        self.take().into_parts()
    }
}

#[doc(hidden)]
pub trait PlainValue {
    type Value;
    fn value_parts(self) -> Parts<SameKey, Self::Value>;
}

impl<V> PlainValue for &ValueItem<V> {
    type Value = V;
    #[inline(always)]
    fn value_parts(self) -> Parts<SameKey, V> {
        (SameKey, self.take(), None, None)
    }
}
