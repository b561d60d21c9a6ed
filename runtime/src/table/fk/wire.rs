//! The records of a foreign-key join's internal topics, byte for byte as Kafka Streams 4.4's
//! `SubscriptionWrapperSerde` (version 1) and `SubscriptionResponseWrapperSerde` (version 0)
//! write them.

/// What a subscription asks of the right side (`SubscriptionWrapper.Instruction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Instruction {
    /// Unsubscribe; send nothing (the row moved to another foreign key).
    DeleteKeyNoPropagate = 0,
    /// Unsubscribe; send a `None` value (the row is gone, or its foreign key became null).
    DeleteKeyAndPropagate = 1,
    /// Subscribe; send the right value, or `None` without one.
    PropagateNullIfNoFkValAvailable = 2,
    /// Subscribe; send the right value only if there is one.
    PropagateOnlyIfFkValAvailable = 3,
}

impl Instruction {
    fn from_byte(b: u8) -> Result<Self, String> {
        Ok(match b {
            0 => Instruction::DeleteKeyNoPropagate,
            1 => Instruction::DeleteKeyAndPropagate,
            2 => Instruction::PropagateNullIfNoFkValAvailable,
            3 => Instruction::PropagateOnlyIfFkValAvailable,
            other => return Err(format!("unknown subscription instruction {other}")),
        })
    }
}

/// The highest subscription version read (Kafka Streams' `SubscriptionWrapper.CURRENT_VERSION`).
const SUBSCRIPTION_VERSION: u8 = 1;
/// The response version (`SubscriptionResponseWrapper.CURRENT_VERSION`).
const RESPONSE_VERSION: u8 = 0;
/// The flag of the version byte: no hash follows.
const NO_HASH: u8 = 0x80;

/// A subscription: `[version | 0x80 without hash][instruction][hash: 2 × i64, if any][left
/// key][left partition: i32, version 1 only]`, big-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Subscription<'a> {
    /// The murmur3 hash of the left value's bytes (`None`: the row was deleted).
    pub hash: Option<[u64; 2]>,
    /// What to do.
    pub instruction: Instruction,
    /// The left key's bytes.
    pub primary_key: &'a [u8],
    /// The left row's partition (`None` in version 0).
    pub primary_partition: Option<i32>,
}

fn hash_bytes(out: &mut Vec<u8>, hash: [u64; 2]) {
    out.extend_from_slice(&hash[0].to_be_bytes());
    out.extend_from_slice(&hash[1].to_be_bytes());
}

fn read_hash(bytes: &[u8]) -> Option<[u64; 2]> {
    let a = u64::from_be_bytes(bytes.get(..8)?.try_into().ok()?);
    let b = u64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?);
    Some([a, b])
}

impl<'a> Subscription<'a> {
    /// Appends its bytes (version 1).
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        let version = SUBSCRIPTION_VERSION;
        match self.hash {
            Some(h) => {
                out.push(version);
                out.push(self.instruction as u8);
                hash_bytes(out, h);
            }
            None => {
                out.push(version | NO_HASH);
                out.push(self.instruction as u8);
            }
        }
        out.extend_from_slice(self.primary_key);
        out.extend_from_slice(&self.primary_partition.unwrap_or(-1).to_be_bytes());
    }

    /// Reads version 0 or 1.
    pub(crate) fn read(bytes: &'a [u8]) -> Result<Self, String> {
        let short = || format!("a subscription of {} bytes is too short", bytes.len());
        let (&first, rest) = bytes.split_first().ok_or_else(short)?;
        let version = first & 0x7f;
        if version > SUBSCRIPTION_VERSION {
            return Err(format!(
                "subscription version {version} is newer than this reader's ({SUBSCRIPTION_VERSION})"
            ));
        }
        let (&instruction, mut rest) = rest.split_first().ok_or_else(short)?;
        let instruction = Instruction::from_byte(instruction)?;
        let hash = if first & NO_HASH == 0 {
            let h = read_hash(rest).ok_or_else(short)?;
            rest = &rest[16..];
            Some(h)
        } else {
            None
        };
        let (primary_key, primary_partition) = if version == 1 {
            let at = rest.len().checked_sub(4).ok_or_else(short)?;
            let (pk, p) = rest.split_at(at);
            let p: [u8; 4] = p.try_into().map_err(|_| short())?;
            (pk, Some(i32::from_be_bytes(p)))
        } else {
            (rest, None)
        };
        Ok(Subscription {
            hash,
            instruction,
            primary_key,
            primary_partition,
        })
    }
}

/// A response: `[version | 0x80 without hash][hash: 2 × i64, if any][right value, if any]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Response<'a> {
    /// The hash of the subscription it answers.
    pub hash: Option<[u64; 2]>,
    /// The right value's bytes (`None`: no value).
    pub foreign: Option<&'a [u8]>,
}

impl<'a> Response<'a> {
    /// Appends its bytes.
    pub(crate) fn write(&self, out: &mut Vec<u8>) {
        match self.hash {
            Some(h) => {
                out.push(RESPONSE_VERSION);
                hash_bytes(out, h);
            }
            None => out.push(RESPONSE_VERSION | NO_HASH),
        }
        if let Some(v) = self.foreign {
            out.extend_from_slice(v);
        }
    }

    /// Reads version 0. An empty value is no value, as Kafka Streams reads it.
    pub(crate) fn read(bytes: &'a [u8]) -> Result<Self, String> {
        let short = || {
            format!(
                "a subscription response of {} bytes is too short",
                bytes.len()
            )
        };
        let (&first, mut rest) = bytes.split_first().ok_or_else(short)?;
        let version = first & 0x7f;
        if version != RESPONSE_VERSION {
            return Err(format!(
                "subscription response version {version} is not {RESPONSE_VERSION}"
            ));
        }
        let hash = if first & NO_HASH == 0 {
            let h = read_hash(rest).ok_or_else(short)?;
            rest = &rest[16..];
            Some(h)
        } else {
            None
        };
        Ok(Response {
            hash,
            foreign: (!rest.is_empty()).then_some(rest),
        })
    }
}
