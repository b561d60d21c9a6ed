//! Continuation tokens of `all` and `range`: where the next page starts.
//!
//! A token is the position of the last entry a page returned, a partition and that entry's
//! serialized key, in unpadded URL-safe base64 (4 bytes of partition, big-endian, then the
//! key). It is opaque to clients; a server resumes strictly after it, so an entry written or
//! deleted between two pages shows in the later page only if it lies after the token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// A position in a scan: a partition and a serialized key of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Position {
    pub partition: i32,
    pub key: Vec<u8>,
}

impl Position {
    /// The token of this position.
    pub(crate) fn token(&self) -> String {
        let mut raw = Vec::with_capacity(4 + self.key.len());
        raw.extend_from_slice(&self.partition.to_be_bytes());
        raw.extend_from_slice(&self.key);
        URL_SAFE_NO_PAD.encode(raw)
    }

    /// The position of `token`, `None` when it is not one this server made.
    pub(crate) fn parse(token: &str) -> Option<Position> {
        let raw = URL_SAFE_NO_PAD.decode(token).ok()?;
        let (partition, key) = raw.split_first_chunk::<4>()?;
        let partition = i32::from_be_bytes(*partition);
        (partition >= 0).then(|| Position {
            partition,
            key: key.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_garbage_is_refused() {
        for position in [
            Position {
                partition: 0,
                key: Vec::new(),
            },
            Position {
                partition: 7,
                key: b"w12\xff/+".to_vec(),
            },
        ] {
            assert_eq!(Position::parse(&position.token()), Some(position));
        }
        assert_eq!(Position::parse("not base64!"), None);
        assert_eq!(Position::parse("AAA"), None); // two bytes: no partition
        assert_eq!(Position::parse(&URL_SAFE_NO_PAD.encode([0xff; 5])), None); // negative
    }
}
