//! MurmurHash3 x64 128-bit, as Kafka Streams' `org.apache.kafka.streams.state.internals.Murmur3
//! #hash128(byte[])` computes it (seed 104729): the hash of a left value that a foreign-key
//! join's subscription carries and its response must match.

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;
const R1: u32 = 31;
const R2: u32 = 27;
const R3: u32 = 33;
const M: u64 = 5;
const N1: u64 = 0x52dc_e729;
const N2: u64 = 0x3849_5ab5;
/// Kafka Streams' `Murmur3.DEFAULT_SEED`.
const SEED: u64 = 104_729;

fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h
}

fn mix_k1(k1: u64) -> u64 {
    k1.wrapping_mul(C1).rotate_left(R1).wrapping_mul(C2)
}

fn mix_k2(k2: u64) -> u64 {
    k2.wrapping_mul(C2).rotate_left(R3).wrapping_mul(C1)
}

/// The two 64-bit halves of the hash of `data`, as Java's `long[] {h1, h2}` (as `u64`).
pub(crate) fn hash128(data: &[u8]) -> [u64; 2] {
    let (mut h1, mut h2) = (SEED, SEED);
    let mut blocks = data.chunks_exact(16);
    for block in &mut blocks {
        let (a, b) = block.split_at(8);
        let k1 = u64::from_le_bytes(a.try_into().unwrap_or_default());
        let k2 = u64::from_le_bytes(b.try_into().unwrap_or_default());
        h1 ^= mix_k1(k1);
        h1 = h1
            .rotate_left(R2)
            .wrapping_add(h2)
            .wrapping_mul(M)
            .wrapping_add(N1);
        h2 ^= mix_k2(k2);
        h2 = h2
            .rotate_left(R1)
            .wrapping_add(h1)
            .wrapping_mul(M)
            .wrapping_add(N2);
    }
    let tail = blocks.remainder();
    let (mut k1, mut k2) = (0u64, 0u64);
    for (i, &byte) in tail.iter().enumerate().skip(8) {
        k2 ^= u64::from(byte) << (8 * (i - 8));
    }
    if tail.len() > 8 {
        h2 ^= mix_k2(k2);
    }
    for (i, &byte) in tail.iter().enumerate().take(8) {
        k1 ^= u64::from(byte) << (8 * i);
    }
    if !tail.is_empty() {
        h1 ^= mix_k1(k1);
    }
    let len = data.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    [h1, h2]
}
