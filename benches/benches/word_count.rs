//! The compiled word-count topology against hand-written Rust doing the same work.
//!
//! Run: `cargo bench -p dekaf-streams-benches --bench word_count`
//!
//! Four loops over the same 1,000 pre-serialized sentences (10 words each, 500-word
//! vocabulary, so after the first pass every update hits an existing key):
//!
//! - `compiled`: the `topology!` word count. Both subtopologies run in process: the sink of
//!   task 0 hands each repartition record straight to task 1, as the TestDriver does, and the
//!   changelog and output records go to a sink that only looks at their bytes.
//! - `compiled_cached`: the same with a record cache (10 MiB) on the counting task, flushed
//!   once per pass (a commit): about 500 output records per 10,000 words instead of 10,000.
//! - `hand_written_same_steps`: hand-written code doing what the compiled code must do: decode
//!   the sentence and the source key for the user closures, split, serialize each word to a
//!   repartition record, check its key and value as UTF-8 on the counting side and use the key's
//!   bytes as the store key, update the count in a bytes-keyed foldhash map (the runtime's store
//!   hasher), serialize the count for the changelog and the output.
//! - `hand_written_minimal`: the shortest hand-written word count (split, typed
//!   `HashMap<String, i64>` update, serialize key and count once): a lower bound that skips the
//!   repartition round trip Kafka needs to scale a group_by out.
//!
//! The summary printed before criterion runs also has `hand-written, decoding`: the same-steps
//! loop as it was until 3 December 2026 (the repartition key and value decoded into `String`s,
//! a SipHash map), which the compiled code now beats, kept to compare with older figures.
//!
//! Before criterion runs, the benchmark prints ns per word for each loop (the best and the
//! median of 7 interleaved rounds) and heap allocations per word (counted by a global
//! allocator), and the median of the rounds' compiled/same-steps ratios: on a shared machine
//! that ratio, of two loops measured a fraction of a second apart, is the figure to quote.
//! Criterion measures each loop for seconds, one after the other; when the load changes between
//! them (it went from 33 to 13 during one run) its medians' ratio carries the load change, which
//! is why an earlier summary said 1.21x while criterion's medians said 0.91x.
//!
//! The `store` group measures the store choice, one count update (get, add one, put) per
//! element on 500 warm keys: the in-memory backend (bytes in a hash map plus an ordered key
//! index), a bytes `BTreeMap<Vec<u8>, Vec<u8>>`, a typed `HashMap<String, i64>` and a typed
//! `BTreeMap<String, i64>`.
//!
//! # Figures (2-core AMD EPYC shared with parallel builds, 3 December 2026)
//!
//! Summary rows, best / median of 7 rounds, ns per word (load average 11-13):
//!
//! | loop | ns/word | allocations/word |
//! |---|---|---|
//! | compiled topology | 77.4 / 91.8 | 2.20 (was 3.20) |
//! | compiled topology, record cache | 81.4 / 115.1 | 2.20 |
//! | hand-written, same steps | 54.1 / 74.3 | 2.20 |
//! | hand-written, decoding (the old baseline) | 77.7 / 107.5 | 4.20 |
//! | hand-written, minimal | 24.8 / 31.7 | 0.00 |
//!
//! Compiled over same steps, median of the rounds' ratios: 1.21x in that run, 1.10x and 1.99x
//! in two others minutes apart (loads 33 and 12): the target of at most 1.1x is not shown
//! against this stricter loop (the compiled code's remaining cost over it, about 23 ns per word
//! in the quietest run, is not profiled yet). Against the old baseline the compiled code
//! measured 0.85x, 0.74x and 1.29x (medians, same three runs; 1.07-1.08x before this change,
//! summary and criterion agreeing at load 13-20). The library
//! allocates nothing of its own per word: the 2.2 allocations are the user closures' (the
//! sentence and key `String`s handed to them, `to_owned` per word, `clone` for the new key). The
//! key a count gets from its repartition topic is no longer decoded into a `String` and encoded
//! again: its bytes are checked as UTF-8 and stored as they are (one allocation and one copy per
//! word less).
//!
//! On a quiet machine (load average ~1, 4 December 2026): compiled 73.0 / 75.5 ns/word, same
//! steps 50.9 / 53.5, minimal 23.3 / 24.2; compiled over same steps 1.43x (median of the
//! rounds' ratios), over the old decoding baseline 1.01x.
//!
//! 5 December 2026 (same machine, load average 1.3-2.5), after the changes below: compiled
//! 61.5 / 62.2 ns/word, same steps 56.5 / 57.0, minimal 29.1 / 29.2, compiled over same steps
//! 1.09x (median of the rounds' ratios; 1.09x, 1.09x, 1.11x and 1.14x in four runs of one
//! binary, 1.51x for the code before them in a run at load 2.6), over the old decoding
//! baseline 0.74x. The 1.1x target is met on a quiet machine and missed by a few hundredths
//! on a busier one. What closed the gap, per word of the compiled loop:
//!
//! - `RecordError` is one boxed pointer: a record's `Ok(())` crossing `catch_unwind` had been a
//!   48-byte value copied through stack slots (a store-forwarding stall after it held 43% of the
//!   own samples of the chain sink, task 1's `process` inlined, about 7% of the loop); now it
//!   is one word (1.51x -> 1.26x).
//! - The serdes build `SerdeError::Null` only when they return it (`bytes.ok_or(..)` built and
//!   dropped it on every present key and value: an out-of-line `drop_in_place<SerdeError>`).
//! - A count whose key is kept as its record bytes looks the store up with those bytes, not
//!   with a copy of them in `__kbuf` (1.26x -> 1.17x).
//! - The in-memory store overwrites an 8-byte value with an 8-byte value in place, not through
//!   a `memcpy` call (within noise).
//!
//! What remains (a `perf record` of each loop): the hash lookup, the key comparison, the copies,
//! UTF-8 checks, splitting and the allocator cost the same in both loops; the difference is the
//! task glue around them: `Compiled::run`, the chain sink with task 1's `process` inlined and
//! the out-of-line `HashMap::get_mut` hold 38% of the compiled loop's samples, the hand loop's
//! `run` (lookup inlined) 33% of its own, about 5 ns per word more in the compiled loop: two
//! `process` calls per word, each with its `catch_unwind`, source dispatch and stream-time
//! update, and the records passed as structs.
//!
//! The record cache costs a hash lookup in its dirty-key set per update (the sink here is free,
//! so the output it saves costs nothing); it allocates nothing per word once its set has grown.
//! On Kafka each saved output record is a produced record.

#![allow(missing_docs, clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};
use std::hint::black_box;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dekaf_streams::prelude::*;
use dekaf_streams::store::{MemoryBackend, MemoryStores, StoreBackend};
use dekaf_streams::task::{InputRecord, OutgoingRecord, RecordSink, SinkError, TopicKind};
use dekaf_streams_benches::alloc::{CountingAllocator, allocations};

#[global_allocator]
static GLOBAL: CountingAllocator = CountingAllocator;

topology! {
    pub WordCount = "word-count" {
        stream("sentences", Utf8, Utf8)
            .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
            .group_by(|_key, word| word.clone(), Utf8, Utf8)
            .count("counts")
            .to_stream()
            .to("word-counts", Utf8, I64);
    }
}

type WcTask = <WordCount as Topology>::Task<MemoryBackend>;

/// Takes output and changelog records by looking at their bytes.
#[derive(Default)]
struct Observe {
    bytes: usize,
}

impl RecordSink for Observe {
    #[inline]
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        self.bytes += r.key.map_or(0, <[u8]>::len) + r.value.map_or(0, <[u8]>::len);
        Ok(())
    }
}

/// Hands repartition records of task 0 to task 1.
struct Chain<'a> {
    downstream: &'a mut WcTask,
    source: usize,
    out: &'a mut Observe,
}

impl RecordSink for Chain<'_> {
    #[inline]
    fn send(&mut self, r: OutgoingRecord<'_>) -> Result<(), SinkError> {
        if r.kind == TopicKind::Repartition {
            let record = InputRecord {
                source: self.source,
                partition: 0,
                offset: 0,
                key: r.key,
                value: r.value,
                timestamp: r.timestamp,
                headers: r.headers,
            };
            self.downstream
                .process(&record, self.out)
                .map_err(SinkError::msg)
        } else {
            self.out.send(r)
        }
    }
}

fn sentences() -> (Vec<Vec<u8>>, usize) {
    let vocabulary: Vec<String> = (0..500).map(|i| format!("word{i}")).collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let sentences: Vec<Vec<u8>> = (0..1000)
        .map(|_| {
            let words: Vec<&str> = (0..10)
                .map(|_| vocabulary[(next() % 500) as usize].as_str())
                .collect();
            words.join(" ").into_bytes()
        })
        .collect();
    (sentences, 10_000)
}

struct Compiled {
    t0: WcTask,
    t1: WcTask,
    repartition_source: usize,
    out: Observe,
    /// Flush the record cache every this many sentences (0: no cache).
    flush_every: usize,
}

impl Compiled {
    fn new() -> Self {
        Self::with_cache(0, 0)
    }

    /// With a record cache of `bytes` on the counting task, flushed every `flush_every`
    /// sentences (a commit).
    fn with_cache(bytes: usize, flush_every: usize) -> Self {
        let t0 = WordCount::create_task("0", 0, &mut MemoryStores).unwrap();
        let mut t1 = WordCount::create_task("1", 0, &mut MemoryStores).unwrap();
        t1.set_cache_max_bytes(bytes);
        let repartition_source = t1.source_index("word-count-counts-repartition").unwrap();
        Compiled {
            t0,
            t1,
            repartition_source,
            out: Observe::default(),
            flush_every: if bytes == 0 { 0 } else { flush_every },
        }
    }

    #[inline(never)]
    fn run(&mut self, input: &[Vec<u8>]) {
        let headers = Headers::empty();
        let mut sink = Chain {
            downstream: &mut self.t1,
            source: self.repartition_source,
            out: &mut self.out,
        };
        for (i, s) in input.iter().enumerate() {
            let record = InputRecord {
                source: 0,
                partition: 0,
                offset: i as i64,
                key: Some(b"k"),
                value: Some(s),
                timestamp: i as i64,
                headers,
            };
            self.t0.process(&record, &mut sink).unwrap();
            if self.flush_every != 0 && (i + 1) % self.flush_every == 0 {
                sink.downstream.flush_cache(sink.out).unwrap();
            }
        }
    }
}

/// Hand-written, with the steps the compiled pipeline must take (repartition round trip
/// included): the user closures' allocations (the sentence and the source key handed to them,
/// each word, the new key), the repartition record serialized, its key and value checked as
/// UTF-8 on the counting side, the key's bytes used as the store key, the count updated in a
/// bytes-keyed foldhash map (the runtime's store hasher), the count serialized once for the
/// changelog and the output.
#[derive(Default)]
struct SameSteps {
    counts: HashMap<Vec<u8>, i64, hashbrown::DefaultHashBuilder>,
    kbuf: Vec<u8>,
    vbuf: Vec<u8>,
    out: Observe,
}

impl SameSteps {
    #[inline(never)]
    fn run(&mut self, input: &[Vec<u8>]) {
        for s in input {
            let _key = std::str::from_utf8(b"k").unwrap().to_owned();
            let sentence = std::str::from_utf8(s).unwrap().to_owned();
            for word in sentence.split(' ').map(str::to_owned) {
                let new_key = word.clone();
                // repartition record
                self.kbuf.clear();
                self.kbuf.extend_from_slice(new_key.as_bytes());
                self.vbuf.clear();
                self.vbuf.extend_from_slice(word.as_bytes());
                // read back by the counting side: checked, the key's bytes kept
                std::str::from_utf8(&self.kbuf).unwrap();
                std::str::from_utf8(&self.vbuf).unwrap();
                let count = match self.counts.get_mut(self.kbuf.as_slice()) {
                    Some(c) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        self.counts.insert(self.kbuf.clone(), 1);
                        1
                    }
                };
                // changelog and output records
                self.vbuf.clear();
                self.vbuf.extend_from_slice(&count.to_be_bytes());
                self.out.bytes += 2 * (self.kbuf.len() + self.vbuf.len());
            }
        }
    }
}

/// The hand-written loop this benchmark compared against before 3 December 2026: it decodes the
/// repartition record's key and value into `String`s and counts in a SipHash
/// `HashMap<String, i64>`, steps the compiled code no longer takes (printed in the summary only,
/// to compare with older figures).
#[derive(Default)]
struct DecodingSteps {
    counts: HashMap<String, i64>,
    kbuf: Vec<u8>,
    vbuf: Vec<u8>,
    out: Observe,
}

impl DecodingSteps {
    #[inline(never)]
    fn run(&mut self, input: &[Vec<u8>]) {
        for s in input {
            let _key = std::str::from_utf8(b"k").unwrap().to_owned();
            let sentence = std::str::from_utf8(s).unwrap().to_owned();
            for word in sentence.split(' ').map(str::to_owned) {
                let new_key = word.clone();
                self.kbuf.clear();
                self.kbuf.extend_from_slice(new_key.as_bytes());
                self.vbuf.clear();
                self.vbuf.extend_from_slice(word.as_bytes());
                let key = std::str::from_utf8(&self.kbuf).unwrap().to_owned();
                let _value = std::str::from_utf8(&self.vbuf).unwrap().to_owned();
                let count = match self.counts.get_mut(&key) {
                    Some(c) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        self.counts.insert(key.clone(), 1);
                        1
                    }
                };
                self.vbuf.clear();
                self.vbuf.extend_from_slice(&count.to_be_bytes());
                self.out.bytes += 2 * (key.len() + self.vbuf.len());
            }
        }
    }
}

/// The shortest hand-written word count.
#[derive(Default)]
struct Minimal {
    counts: HashMap<String, i64>,
    vbuf: Vec<u8>,
    out: Observe,
}

impl Minimal {
    #[inline(never)]
    fn run(&mut self, input: &[Vec<u8>]) {
        for s in input {
            let sentence = std::str::from_utf8(s).unwrap();
            for word in sentence.split(' ') {
                let count = match self.counts.get_mut(word) {
                    Some(c) => {
                        *c += 1;
                        *c
                    }
                    None => {
                        self.counts.insert(word.to_owned(), 1);
                        1
                    }
                };
                self.vbuf.clear();
                self.vbuf.extend_from_slice(&count.to_be_bytes());
                self.out.bytes += word.len() + self.vbuf.len();
            }
        }
    }
}

/// ns per word and allocations per word of `f` over `passes` passes after a warm-up pass.
fn measure(mut f: impl FnMut(), words: usize, passes: usize) -> (f64, f64) {
    f();
    let a0 = allocations();
    let t0 = Instant::now();
    for _ in 0..passes {
        f();
    }
    let elapsed = t0.elapsed();
    let allocs = allocations() - a0;
    let n = (words * passes) as f64;
    (elapsed.as_nanos() as f64 / n, allocs as f64 / n)
}

/// The record cache of the `compiled_cached` loop: Kafka Streams' default budget, flushed
/// once per pass of 1,000 sentences (10,000 words; a 100 ms commit interval at 100k words/s).
const CACHE_BYTES: usize = 10 * 1024 * 1024;
const FLUSH_EVERY: usize = 1000;

fn summary(input: &[Vec<u8>], words: usize) {
    let mut compiled = Compiled::new();
    let mut cached = Compiled::with_cache(CACHE_BYTES, FLUSH_EVERY);
    let mut same = SameSteps::default();
    let mut decoding = DecodingSteps::default();
    let mut minimal = Minimal::default();
    let passes = 200;
    // Interleave to share machine noise. Per loop the best and the median of ROUNDS rounds:
    // on a loaded machine the best is the least disturbed round, the median what criterion's
    // median estimates.
    const ROUNDS: usize = 7;
    let mut rounds = vec![[(0.0, 0.0); 5]; ROUNDS];
    for round in rounds.iter_mut() {
        round[0] = measure(|| compiled.run(input), words, passes);
        round[1] = measure(|| cached.run(input), words, passes);
        round[2] = measure(|| same.run(input), words, passes);
        round[3] = measure(|| decoding.run(input), words, passes);
        round[4] = measure(|| minimal.run(input), words, passes);
    }
    let stat = |i: usize| {
        let mut ns: Vec<f64> = rounds.iter().map(|r| r[i].0).collect();
        ns.sort_by(f64::total_cmp);
        (ns[0], ns[ROUNDS / 2], rounds[0][i].1)
    };
    let [c, k, s, d, m] = [0, 1, 2, 3, 4].map(stat);
    // Per round, compiled over same steps: the ratio of two loops measured seconds apart.
    let mut ratios: Vec<f64> = rounds.iter().map(|r| r[0].0 / r[2].0).collect();
    ratios.sort_by(f64::total_cmp);
    println!(
        "word count, {words} words per pass, {ROUNDS} rounds x {passes} passes (best / median):"
    );
    let row = |name: &str, x: (f64, f64, f64)| {
        println!(
            "  {name:<26} {:7.1} / {:7.1} ns/word  {:5.2} allocations/word",
            x.0, x.1, x.2
        );
    };
    row("compiled topology", c);
    row("compiled, record cache", k);
    row("hand-written same steps", s);
    row("hand-written, decoding", d);
    row("hand-written minimal", m);
    println!(
        "  compiled / same steps = {:.2}x (bests), {:.2}x (medians), {:.2}x (median of the rounds' ratios); allocations of the library per word = {:.2}",
        c.0 / s.0,
        c.1 / s.1,
        ratios[ROUNDS / 2],
        c.2 - s.2
    );
    println!(
        "  compiled / decoding steps (the comparison before 3 December 2026) = {:.2}x (medians)",
        c.1 / d.1
    );
    println!(
        "  record cache / no cache = {:.2}x (medians); allocations of the cache per word = {:.2}",
        k.1 / c.1,
        k.2 - c.2
    );
    black_box((
        compiled.out.bytes,
        cached.out.bytes,
        same.out.bytes,
        decoding.out.bytes,
        minimal.out.bytes,
    ));
}

fn bench(c: &mut Criterion) {
    let (input, words) = sentences();
    summary(&input, words);

    let mut g = c.benchmark_group("word_count");
    g.throughput(Throughput::Elements(words as u64));
    let mut compiled = Compiled::new();
    g.bench_function("compiled", |b| b.iter(|| compiled.run(black_box(&input))));
    let mut cached = Compiled::with_cache(CACHE_BYTES, FLUSH_EVERY);
    g.bench_function("compiled_cached", |b| {
        b.iter(|| cached.run(black_box(&input)))
    });
    let mut same = SameSteps::default();
    g.bench_function("hand_written_same_steps", |b| {
        b.iter(|| same.run(black_box(&input)))
    });
    let mut minimal = Minimal::default();
    g.bench_function("hand_written_minimal", |b| {
        b.iter(|| minimal.run(black_box(&input)))
    });
    g.finish();

    // One count update per iteration, on a warm store of 500 words.
    let keys: Vec<String> = (0..500).map(|i| format!("word{i}")).collect();
    let mut g = c.benchmark_group("store");
    g.throughput(Throughput::Elements(keys.len() as u64));
    let mut bytes = MemoryBackend::new();
    let mut vbuf = Vec::new();
    g.bench_function("memory_backend_get_put", |b| {
        b.iter(|| {
            for k in &keys {
                let key = k.as_bytes();
                let old = match bytes.get(key).unwrap() {
                    Some(v) => i64::from_be_bytes(v.try_into().unwrap()),
                    None => 0,
                };
                vbuf.clear();
                vbuf.extend_from_slice(&(old + 1).to_be_bytes());
                bytes.put(key, &vbuf).unwrap();
            }
        })
    });
    let mut one_lookup = MemoryBackend::new();
    g.bench_function("memory_backend_update_one_lookup", |b| {
        b.iter(|| {
            for k in &keys {
                let r: Result<(), ()> = one_lookup
                    .update(k.as_bytes(), &mut vbuf, |old, buf| {
                        let old = old.map_or(0, |v| i64::from_be_bytes(v.try_into().unwrap()));
                        buf.clear();
                        buf.extend_from_slice(&(old + 1).to_be_bytes());
                        Ok(true)
                    })
                    .unwrap();
                r.unwrap();
            }
        })
    });
    let mut tree: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
    g.bench_function("bytes_btreemap_update", |b| {
        b.iter(|| {
            for k in &keys {
                let key = k.as_bytes();
                let old = match tree.get(key) {
                    Some(v) => i64::from_be_bytes(v.as_slice().try_into().unwrap()),
                    None => 0,
                };
                vbuf.clear();
                vbuf.extend_from_slice(&(old + 1).to_be_bytes());
                match tree.get_mut(key) {
                    Some(v) => {
                        v.clear();
                        v.extend_from_slice(&vbuf);
                    }
                    None => {
                        tree.insert(key.to_vec(), vbuf.clone());
                    }
                }
            }
        })
    });
    let mut typed: HashMap<String, i64> = HashMap::new();
    g.bench_function("typed_hashmap_update", |b| {
        b.iter(|| {
            for k in &keys {
                match typed.get_mut(k.as_str()) {
                    Some(c) => *c += 1,
                    None => {
                        typed.insert(k.clone(), 1);
                    }
                }
            }
        })
    });
    let mut typed_tree: BTreeMap<String, i64> = BTreeMap::new();
    g.bench_function("typed_btreemap_update", |b| {
        b.iter(|| {
            for k in &keys {
                match typed_tree.get_mut(k.as_str()) {
                    Some(c) => *c += 1,
                    None => {
                        typed_tree.insert(k.clone(), 1);
                    }
                }
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
