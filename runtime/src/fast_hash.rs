//! The hasher of the per-record hash maps: the in-memory store, the LMDB store's pending
//! writes and the changelog buffer.
//!
//! These maps are looked up once or more per record, so the hasher is on the hot path. std's
//! default, SipHash-1-3, is a keyed pseudo-random function, slower than foldhash (hashbrown's
//! default hasher) on the short keys of stream processing; `cargo bench -p
//! dekaf-streams-benches --bench word_count` shows the difference in its `store` group.
//!
//! Keys come from Kafka topics, so a producer may choose them: HashDoS is a real concern. It is
//! why this is foldhash's `RandomState` and not an unseeded hasher (`FxHash`, whose collisions
//! anyone can compute offline): every process draws a random global seed and every map its
//! own per-map seed, so colliding keys cannot be computed without observing hash values. No map
//! here exposes its hash order: the store's range scans and interactive queries walk its
//! ordered key index, and the changelog buffer produces in update order, not map order.
//! foldhash calls itself "minimally DoS-resistant": unlike SipHash it is not a pseudo-random
//! function, so the guarantee rests on the seed staying secret, which holds as long as no hash
//! value or hash order leaves the process.

/// A `HashMap` with a randomly seeded foldhash (see the module docs for why it is safe here).
pub(crate) type FastHashMap<K, V> = std::collections::HashMap<K, V, FastHash>;

/// The hasher builder of [`FastHashMap`]: foldhash, randomly seeded per process and per map.
pub(crate) type FastHash = hashbrown::DefaultHashBuilder;
