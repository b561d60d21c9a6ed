//! The typed views of the stores a `process(..)` closure lists: what its context's accessor
//! for each store returns.
//!
//! | declared with | view | Kafka Streams |
//! |---|---|---|
//! | `store(..)` | [`KeyValueStore`] | `KeyValueStore` |
//! | `window_store(..)` | [`WindowStore`] | `WindowStore` |
//! | `session_store(..)` | [`SessionStore`] | `SessionStore` |
//!
//! Every write goes to the store and, as one changelog record stamped with the record's
//! timestamp, to the task's changelog partition, in the task's transaction under exactly-once.
//! Reads collect into a `Vec` (the store is borrowed mutably by the context, so an iterator
//! could not outlive the next write).

use std::ops::Bound;

use crate::serdes::{Serde, SerdeError};

mod key_value;
mod retention;
mod session;
mod window;
mod writes;

pub use key_value::{KeyValueStore, Pairs};
pub use retention::WindowRetention;
pub use session::{SessionStore, Sessions};
pub use window::WindowStore;
use writes::Writes;

use super::encode;

/// Windows or sessions of several keys: (the key with its window, the value).
pub type WindowedPairs<K, V> = Vec<(crate::serdes::Windowed<K>, V)>;

fn encode_bound<S: Serde>(
    bound: Bound<&S::Value>,
    buf: &mut Vec<u8>,
) -> Result<Bound<()>, SerdeError> {
    Ok(match bound {
        Bound::Included(v) => {
            encode::<S>(v, buf)?;
            Bound::Included(())
        }
        Bound::Excluded(v) => {
            encode::<S>(v, buf)?;
            Bound::Excluded(())
        }
        Bound::Unbounded => Bound::Unbounded,
    })
}

fn as_slice_bound<'b>(bound: &Bound<()>, buf: &'b [u8]) -> Bound<&'b [u8]> {
    match bound {
        Bound::Included(()) => Bound::Included(buf),
        Bound::Excluded(()) => Bound::Excluded(buf),
        Bound::Unbounded => Bound::Unbounded,
    }
}

/// Whether key bytes `key` lie between the bounds (serialized-key order, as Kafka Streams'
/// range reads compare).
fn key_within(key: &[u8], from: Bound<&[u8]>, to: Bound<&[u8]>) -> bool {
    let above = match from {
        Bound::Included(f) => key >= f,
        Bound::Excluded(f) => key > f,
        Bound::Unbounded => true,
    };
    let below = match to {
        Bound::Included(t) => key <= t,
        Bound::Excluded(t) => key < t,
        Bound::Unbounded => true,
    };
    above && below
}

/// The store-key range that holds every key between the bounds, whatever comes after the key
/// bytes (`suffix` bytes of time): from the lower key's bytes, to the upper key's bytes
/// followed by `suffix` bytes of `0xFF`. Keys that merely extend a bound's bytes fall inside
/// too, so the caller checks each key with [`key_within`].
fn store_range(to: &Bound<()>, to_buf: &mut Vec<u8>, suffix: usize) -> Bound<()> {
    match to {
        Bound::Unbounded => Bound::Unbounded,
        _ => {
            to_buf.extend(std::iter::repeat_n(0xFF, suffix));
            Bound::Included(())
        }
    }
}

/// A window or session time: not negative (the stores order times by their big-endian bytes).
fn check_time(what: &'static str, time: i64) -> Result<(), super::StoreError> {
    if time < 0 {
        return Err(super::StoreError::NegativeTime { what, time });
    }
    Ok(())
}
