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
use crate::store::StoreBackend;

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

/// Visits every entry whose key part lies between the bounds (serialized-key order, as Kafka
/// Streams' range reads compare) in a store whose keys are the key's bytes followed by
/// `suffix` bytes of time, in store order: `split` cuts a store key into the key's bytes and
/// its time part. The scan runs from the lower key's bytes to the upper key's bytes followed
/// by `suffix` bytes of `0xFF`; keys that merely extend a bound's bytes fall inside that range
/// too and are skipped. `lo_buf` and `hi_buf` are used as buffers.
#[allow(clippy::too_many_arguments)]
fn for_each_in_key_range<KS: Serde, B: StoreBackend, T>(
    backend: &mut B,
    lo_buf: &mut Vec<u8>,
    hi_buf: &mut Vec<u8>,
    from: Bound<&KS::Value>,
    to: Bound<&KS::Value>,
    suffix: usize,
    split: impl Fn(&[u8]) -> Option<(&[u8], T)>,
    mut visit: impl FnMut(&[u8], T, &[u8]) -> Result<(), super::StoreError>,
) -> Result<(), super::StoreError> {
    let lo = encode_bound::<KS>(from, lo_buf)?;
    let hi = encode_bound::<KS>(to, hi_buf)?;
    let key_lo = as_slice_bound(&lo, lo_buf);
    let key_hi = as_slice_bound(&hi, hi_buf);
    let mut upper = hi_buf.clone();
    let scan_hi = match hi {
        Bound::Unbounded => Bound::Unbounded,
        _ => {
            upper.extend(std::iter::repeat_n(0xFF, suffix));
            Bound::Included(&upper[..])
        }
    };
    let scan_lo = match lo {
        Bound::Unbounded => Bound::Unbounded,
        _ => Bound::Included(&lo_buf[..]),
    };
    for entry in backend.range(scan_lo, scan_hi)? {
        let (k, v) = entry?;
        let Some((key, time)) = split(k) else {
            continue;
        };
        if key_within(key, key_lo, key_hi) {
            visit(key, time, v)?;
        }
    }
    Ok(())
}

/// A window or session time: not negative (the stores order times by their big-endian bytes).
fn check_time(what: &'static str, time: i64) -> Result<(), super::StoreError> {
    if time < 0 {
        return Err(super::StoreError::NegativeTime { what, time });
    }
    Ok(())
}
