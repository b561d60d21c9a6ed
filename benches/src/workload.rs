//! The workloads of `benches/WORKLOADS.md`: their topics, a deterministic input generator
//! and a reference model of each topology's final output (value per key).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::str::FromStr;

use anyhow::{Result, bail};

/// One of the benchmark workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Workload {
    /// Stateless map/filter: `<p>-numbers` → filter, map values → output.
    Stateless,
    /// Word count: `<p>-sentences` → split, group by word (repartition), count.
    WordCount,
    /// Tumbling-window count: `<p>-events` → group by key, 10 s windows, count.
    Window,
    /// Stream-table join: `<p>-clicks` ⋈ table `<p>-users`.
    Join,
    /// Windowed stream-stream join: `<p>-orders` ⋈ `<p>-payments` within 1 minute.
    StreamJoin,
    /// Session-window count: `<p>-clicks` → group by key, sessions of 1 s inactivity, count.
    Session,
    /// Table-table inner join: table `<p>-left` ⋈ table `<p>-right`, both updated throughout.
    TableJoin,
    /// Foreign-key join of tables: table `<p>-orders` (value names a customer) ⋈ table
    /// `<p>-customers`, both updated throughout.
    FkJoin,
    /// Cogrouped aggregation: `<p>-clicks` and `<p>-views`, each grouped by key, cogrouped into
    /// one engagement score per user (a click adds 1, a view its duration in seconds).
    Cogroup,
    /// Counts per key over a large key space, state on disk on both sides (LMDB, RocksDB):
    /// `<p>-events` → group by key → count. Not part of [`Workload::ALL`]: name it
    /// (`largestate`, `largestate-zipf-10m`, ..., see [`KeySpace`]).
    LargeState(KeySpace),
    /// Stream-table join against a versioned table (KIP-889/914): `<p>-orders` ⋈ the table
    /// `<p>-prices` (history one hour), each order joined with the price valid at its
    /// timestamp; the prices' versions are written out of timestamp order first.
    VersionedJoin,
    /// Word count over Avro records through a schema registry: `<p>-sentences` (Avro
    /// `Sentence`) → split, group by word (repartition), count → Avro `WordCount` (see
    /// [`crate::avro`]).
    AvroWordCount,
}

/// The key space of [`Workload::LargeState`]: how many keys, and how records pick them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeySpace {
    /// Number of distinct keys records draw from (`s-0` … `s-<keys - 1>`).
    pub keys: u64,
    /// Zipf-like (exponent 1: key `k` about `1 / (k + 1)` as often as key 0) rather than
    /// uniform.
    pub zipf: bool,
}

impl KeySpace {
    /// The key index of the record whose mixed bits are `r`. Zipf: the inverse of the
    /// continuous CDF `ln(1 + x) / ln(1 + keys)`, a close stand-in for a Zipf law of exponent
    /// 1 that needs no table (10 million keys would need 80 MB of one).
    pub fn key(self, r: u64) -> u64 {
        if !self.zipf {
            return r % self.keys;
        }
        let u = (r >> 11) as f64 / (1u64 << 53) as f64;
        let x = ((1.0 + self.keys as f64).ln() * u).exp() - 1.0;
        (x as u64).min(self.keys - 1)
    }
}

/// `1m`, `10m`, `500k`, `1000`: a count with an optional `k` or `m` suffix.
fn parse_count(s: &str) -> Result<u64> {
    let (digits, unit) = match s.as_bytes().last() {
        Some(b'k' | b'K') => (&s[..s.len() - 1], 1_000),
        Some(b'm' | b'M') => (&s[..s.len() - 1], 1_000_000),
        _ => (s, 1),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| anyhow::anyhow!("{s:?} is not a count (like 1m, 500k or 1000)"))?;
    Ok(n * unit)
}

/// `1m` for a million, `500k`, else the number.
fn format_count(n: u64) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{}m", n / 1_000_000)
    } else if n >= 1_000 && n.is_multiple_of(1_000) {
        format!("{}k", n / 1_000)
    } else {
        n.to_string()
    }
}

/// A processing guarantee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Guarantee {
    /// Exactly-once (Kafka Streams `exactly_once_v2`).
    ExactlyOnce,
    /// At-least-once.
    AtLeastOnce,
}

impl Guarantee {
    /// Both guarantees, exactly-once first.
    pub const ALL: [Guarantee; 2] = [Guarantee::ExactlyOnce, Guarantee::AtLeastOnce];

    /// The name used on command lines: `exactly_once` or `at_least_once`.
    pub fn name(self) -> &'static str {
        match self {
            Guarantee::ExactlyOnce => "exactly_once",
            Guarantee::AtLeastOnce => "at_least_once",
        }
    }

    /// A short tag for topic names: `eos` or `alos`.
    pub fn tag(self) -> &'static str {
        match self {
            Guarantee::ExactlyOnce => "eos",
            Guarantee::AtLeastOnce => "alos",
        }
    }
}

impl FromStr for Guarantee {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "exactly_once" | "exactly_once_v2" | "eos" => Guarantee::ExactlyOnce,
            "at_least_once" | "alos" => Guarantee::AtLeastOnce,
            _ => bail!("unknown guarantee {s:?}; use exactly_once or at_least_once"),
        })
    }
}

impl fmt::Display for Guarantee {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a workload's output values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueFormat {
    /// 8-byte big-endian signed integer (Kafka's `LongSerializer`).
    I64,
    /// UTF-8 text (Kafka's `StringSerializer`).
    Utf8,
}

impl ValueFormat {
    /// Renders an encoded value for people.
    pub fn render(self, v: &[u8]) -> String {
        match self {
            ValueFormat::I64 => match <[u8; 8]>::try_from(v) {
                Ok(b) => i64::from_be_bytes(b).to_string(),
                Err(_) => format!("<{} bytes, not an i64>", v.len()),
            },
            ValueFormat::Utf8 => String::from_utf8_lossy(v).into_owned(),
        }
    }
}

/// Number of distinct keys of the stateless workload.
pub const STATELESS_KEYS: u64 = 10_000;
/// Number of distinct words of the word-count vocabulary.
pub const VOCABULARY: u64 = 1_000;
/// Words per sentence.
pub const WORDS_PER_SENTENCE: u64 = 5;
/// Number of distinct keys of the window workload.
pub const WINDOW_KEYS: u64 = 1_000;
/// Tumbling window size in milliseconds.
pub const WINDOW_MS: i64 = 10_000;
/// Number of users in the join's table (`u-0` … `u-999`).
pub const USERS: u64 = 1_000;
/// Clicks draw user ids from `0..CLICK_USERS`, so about 10% find no user (inner join drops them).
pub const CLICK_USERS: u64 = 1_100;

/// The stream-stream join's window: records at most this far apart join.
pub const JOIN_WINDOW_MS: i64 = 60_000;
/// Keys of the session workload.
pub const SESSION_KEYS: u64 = 1_000;
/// The session workload's inactivity gap: with 1 000 keys and records 1 ms apart, a key's
/// records are about 1 s apart, so about 6 in 10 records extend a session and the rest start one.
pub const SESSION_GAP_MS: i64 = 1_000;
/// Payments are matched to orders in blocks of this many pairs, in reverse order within a
/// block: pair `p`'s payment carries the key of order `q` with `q - block = block + B - 1 - p`
/// (up to `2B` ms of event time apart, well inside the window); every eighth payment instead
/// carries the key of no order (`x-<p>`), so its order and itself find no partner.
pub const JOIN_BLOCK: u64 = 250;

/// Keys of the table-table join's left table (`k-0` … `k-9999`).
pub const LEFT_KEYS: u64 = 10_000;
/// The right table draws keys from `0..RIGHT_KEYS`: about one key in eleven of the right table
/// has no left row (and about every left key has a right one once enough records ran).
pub const RIGHT_KEYS: u64 = 11_000;

/// Customers of the foreign-key join's table (`c-0` … `c-999`), written before the orders.
pub const CUSTOMERS: u64 = 1_000;
/// Keys of the foreign-key join's orders table (`o-0` … `o-9999`).
pub const ORDERS: u64 = 10_000;
/// Users of the cogroup workload's clicks and views.
pub const COGROUP_USERS: u64 = 10_000;
/// Products of the versioned join's price table (`p-<0..PRODUCTS>`).
pub const PRODUCTS: u64 = 1_000;
/// Price versions per product in the versioned join's table.
pub const PRICE_VERSIONS: u64 = 5;

/// One input record, addressed by topic suffix (`numbers`, `users`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputRecord {
    /// Suffix of the input topic: the topic is `<input prefix>-<suffix>`.
    pub topic_suffix: &'static str,
    /// Key bytes (`None`: a null key).
    pub key: Option<Vec<u8>>,
    /// Value bytes.
    pub value: Vec<u8>,
    /// Record timestamp (CreateTime), ms since the epoch.
    pub timestamp_ms: i64,
}

/// SplitMix64: a tiny deterministic generator, so that every system gets the same input.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Workload {
    /// All of them, in report order.
    pub const ALL: [Workload; 11] = [
        Workload::Stateless,
        Workload::WordCount,
        Workload::Window,
        Workload::Join,
        Workload::StreamJoin,
        Workload::Session,
        Workload::TableJoin,
        Workload::FkJoin,
        Workload::Cogroup,
        Workload::VersionedJoin,
        Workload::AvroWordCount,
    ];

    /// The name used on command lines: `stateless`, `wordcount`, `window`, `join`, …
    pub fn name(self) -> &'static str {
        match self {
            Workload::Stateless => "stateless",
            Workload::WordCount => "wordcount",
            Workload::Window => "window",
            Workload::Join => "join",
            Workload::StreamJoin => "streamjoin",
            Workload::Session => "session",
            Workload::TableJoin => "tablejoin",
            Workload::FkJoin => "fkjoin",
            Workload::Cogroup => "cogroup",
            Workload::VersionedJoin => "versionedjoin",
            Workload::LargeState(_) => "largestate",
            Workload::AvroWordCount => "avro_wordcount",
        }
    }

    /// Whether its values are Avro through a schema registry (the driver registers the input
    /// schema and frames the input; the systems need the registry's URL).
    pub fn uses_registry(self) -> bool {
        matches!(self, Workload::AvroWordCount)
    }

    /// Whether the workload keeps state (and so has a restore rate to measure).
    pub fn is_stateful(self) -> bool {
        !matches!(self, Workload::Stateless)
    }

    /// Suffixes of the input topics; tables first.
    pub fn input_suffixes(self) -> &'static [&'static str] {
        match self {
            Workload::Stateless => &["numbers"],
            Workload::WordCount | Workload::AvroWordCount => &["sentences"],
            Workload::Window => &["events"],
            Workload::Join => &["users", "clicks"],
            Workload::StreamJoin => &["orders", "payments"],
            Workload::Session => &["clicks"],
            Workload::TableJoin => &["left", "right"],
            Workload::FkJoin => &["customers", "orders"],
            Workload::Cogroup => &["clicks", "views"],
            Workload::VersionedJoin => &["prices", "orders"],
            Workload::LargeState(_) => &["events"],
        }
    }

    /// Suffixes of the internal topics (after `<app id>-`) the topology must create.
    pub fn internal_topics(self) -> &'static [&'static str] {
        match self {
            // Tables read from user topics use those topics as their changelogs.
            Workload::Stateless
            | Workload::Join
            | Workload::TableJoin
            | Workload::VersionedJoin => &[],
            Workload::WordCount | Workload::AvroWordCount => {
                &["counts-changelog", "words-repartition"]
            }
            Workload::Window => &["window-counts-changelog"],
            Workload::StreamJoin => &[
                "KSTREAM-JOINOTHER-0000000005-store-changelog",
                "KSTREAM-JOINTHIS-0000000004-store-changelog",
            ],
            Workload::Session => &["session-counts-changelog"],
            Workload::LargeState(_) => &["big-counts-changelog"],
            // Both streams are grouped by their key: no repartition topic.
            Workload::Cogroup => &["scores-changelog"],
            // The join named `by-customer` (Kafka Streams' `TableJoined.as`); the tables'
            // changelogs are their topics.
            Workload::FkJoin => &[
                "by-customer-subscription-registration-topic",
                "by-customer-subscription-response-topic",
                "by-customer-subscription-store-changelog",
            ],
        }
    }

    /// The output value format, as the measurer keeps it (the Avro word count's `WordCount`
    /// records are read back into their counts, `I64`).
    pub fn output_format(self) -> ValueFormat {
        match self {
            Workload::Join
            | Workload::StreamJoin
            | Workload::TableJoin
            | Workload::FkJoin
            | Workload::VersionedJoin => ValueFormat::Utf8,
            _ => ValueFormat::I64,
        }
    }

    /// The `i`-th record of the workload's stream input (`i` counts from 0), stamped `ts`.
    pub fn record(self, i: u64, timestamp_ms: i64) -> InputRecord {
        let r = mix(i);
        let (topic_suffix, key, value) = match self {
            Workload::Stateless => (
                "numbers",
                Some(format!("n-{}", i % STATELESS_KEYS).into_bytes()),
                ((r % 1_000_000) as i64).to_be_bytes().to_vec(),
            ),
            // The Avro word count writes the same sentences, framed as Avro by the driver.
            Workload::WordCount | Workload::AvroWordCount => {
                let words: Vec<String> = (0..WORDS_PER_SENTENCE)
                    .map(|w| format!("w{}", mix(r ^ w) % VOCABULARY))
                    .collect();
                ("sentences", None, words.join(" ").into_bytes())
            }
            Workload::Window => (
                "events",
                Some(format!("k-{}", r % WINDOW_KEYS).into_bytes()),
                format!("e{i}").into_bytes(),
            ),
            Workload::LargeState(space) => (
                "events",
                Some(format!("s-{}", space.key(r)).into_bytes()),
                b"e".to_vec(),
            ),
            Workload::Session => (
                "clicks",
                Some(format!("k-{}", r % SESSION_KEYS).into_bytes()),
                format!("c{i}").into_bytes(),
            ),
            Workload::VersionedJoin => (
                "orders",
                Some(format!("p-{}", r % PRODUCTS).into_bytes()),
                format!("order-{i}").into_bytes(),
            ),
            Workload::Join => (
                "clicks",
                Some(format!("u-{}", r % CLICK_USERS).into_bytes()),
                format!("page-{}", (r >> 32) % 100).into_bytes(),
            ),
            // Even records are orders, odd ones payments (pair `i / 2`).
            Workload::StreamJoin if i.is_multiple_of(2) => (
                "orders",
                Some(format!("o-{}", i / 2).into_bytes()),
                format!("amount-{}", r % 10_000).into_bytes(),
            ),
            // Even records update the left table, odd ones the right.
            Workload::TableJoin if i.is_multiple_of(2) => (
                "left",
                Some(format!("k-{}", r % LEFT_KEYS).into_bytes()),
                format!("l-{i}").into_bytes(),
            ),
            Workload::TableJoin => (
                "right",
                Some(format!("k-{}", r % RIGHT_KEYS).into_bytes()),
                format!("r-{i}").into_bytes(),
            ),
            // One record in ten updates a customer, the others an order.
            Workload::FkJoin if i % 10 == 9 => (
                "customers",
                Some(format!("c-{}", r % CUSTOMERS).into_bytes()),
                format!("cust-{}-{i}", r % CUSTOMERS).into_bytes(),
            ),
            Workload::FkJoin => (
                "orders",
                Some(format!("o-{}", r % ORDERS).into_bytes()),
                format!("c-{}|{i}", (r >> 24) % CUSTOMERS).into_bytes(),
            ),
            // Even records are clicks, odd ones views lasting 1 to 100 s.
            Workload::Cogroup if i.is_multiple_of(2) => (
                "clicks",
                Some(format!("u-{}", r % COGROUP_USERS).into_bytes()),
                format!("page-{}", (r >> 32) % 100).into_bytes(),
            ),
            Workload::Cogroup => (
                "views",
                Some(format!("u-{}", r % COGROUP_USERS).into_bytes()),
                (1 + (r >> 32) % 100).to_string().into_bytes(),
            ),
            Workload::StreamJoin => {
                let p = i / 2;
                let block = p - p % JOIN_BLOCK;
                let q = block + JOIN_BLOCK - 1 - (p - block);
                let key = if p % 8 == 7 {
                    format!("x-{p}")
                } else {
                    format!("o-{q}")
                };
                (
                    "payments",
                    Some(key.into_bytes()),
                    format!("pay-{p}").into_bytes(),
                )
            }
        };
        InputRecord {
            topic_suffix,
            key,
            value,
            timestamp_ms,
        }
    }

    /// Table records written before the stream input (the join's users, the foreign-key join's
    /// customers), stamped from `ts0`.
    pub fn table_records(self, ts0: i64) -> Vec<InputRecord> {
        match self {
            Workload::FkJoin => (0..CUSTOMERS)
                .map(|j| InputRecord {
                    topic_suffix: "customers",
                    key: Some(format!("c-{j}").into_bytes()),
                    value: format!("cust-{j}").into_bytes(),
                    timestamp_ms: ts0 + j as i64,
                })
                .collect(),
            // Each product's versions, the newest second (so the last written is not the
            // latest): only a versioned table keeps the latest by timestamp.
            Workload::VersionedJoin => (0..PRODUCTS)
                .flat_map(|j| {
                    [1u64, 4, 0, 2, 3].into_iter().map(move |v| InputRecord {
                        topic_suffix: "prices",
                        key: Some(format!("p-{j}").into_bytes()),
                        value: format!("price-{j}-{v}").into_bytes(),
                        timestamp_ms: ts0 + (v * 100 + j % 100) as i64,
                    })
                })
                .collect(),
            Workload::Join => (0..USERS)
                .map(|j| InputRecord {
                    topic_suffix: "users",
                    key: Some(format!("u-{j}").into_bytes()),
                    value: format!("region-{}", j % 7).into_bytes(),
                    timestamp_ms: ts0 + j as i64,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// The backlog: table records, then `n` stream records whose timestamps end at `end_ms`
    /// (record `i` is stamped `end_ms - n + i`); the tables are stamped before all of them.
    pub fn backlog(self, n: u64, end_ms: i64) -> impl Iterator<Item = InputRecord> {
        let first = end_ms - n as i64;
        self.table_records(first - USERS as i64 - 1_000)
            .into_iter()
            .chain((0..n).map(move |i| self.record(i, first + i as i64)))
    }
}

impl FromStr for Workload {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        Ok(match s {
            "stateless" => Workload::Stateless,
            "wordcount" => Workload::WordCount,
            "window" => Workload::Window,
            "join" => Workload::Join,
            "streamjoin" => Workload::StreamJoin,
            "session" => Workload::Session,
            "tablejoin" => Workload::TableJoin,
            "fkjoin" => Workload::FkJoin,
            "cogroup" => Workload::Cogroup,
            "versionedjoin" => Workload::VersionedJoin,
            "largestate" => Workload::LargeState(KeySpace {
                keys: 1_000_000,
                zipf: false,
            }),
            s if s.starts_with("largestate-") => {
                let mut parts = s["largestate-".len()..].splitn(2, '-');
                let zipf = match parts.next() {
                    Some("zipf") => true,
                    Some("uniform") => false,
                    _ => bail!(
                        "{s:?}: use largestate-<zipf|uniform>-<keys>, e.g. largestate-zipf-10m"
                    ),
                };
                let keys = parse_count(parts.next().unwrap_or("1m"))?;
                if keys == 0 {
                    bail!("{s:?}: the key space needs at least one key");
                }
                Workload::LargeState(KeySpace { keys, zipf })
            }
            "avro_wordcount" => Workload::AvroWordCount,
            _ => bail!(
                "unknown workload {s:?}; use stateless, wordcount, window, join, streamjoin, \
                 session, tablejoin, fkjoin, cogroup, versionedjoin, avro_wordcount or \
                 largestate[-zipf|-uniform-<keys>]"
            ),
        })
    }
}

impl fmt::Display for Workload {
    /// The name, and for `largestate` its key space: `largestate-zipf-10m`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Workload::LargeState(space) => write!(
                f,
                "largestate-{}-{}",
                if space.zipf { "zipf" } else { "uniform" },
                format_count(space.keys)
            ),
            _ => f.write_str(self.name()),
        }
    }
}

/// Final output value per key, as raw bytes.
pub type FinalValues = HashMap<Vec<u8>, Vec<u8>>;

/// The reference model: what each topology's output holds, per key, once all input is processed
/// (applied in input order; tables are written before the stream that joins them).
#[derive(Debug, Clone)]
pub struct Reference {
    workload: Workload,
    users: HashMap<Vec<u8>, Vec<u8>>,
    counts: HashMap<Vec<u8>, i64>,
    /// The stream-stream join's records seen so far per key: (value, timestamp) per side.
    orders: HashMap<Vec<u8>, (Vec<u8>, i64)>,
    payments: HashMap<Vec<u8>, (Vec<u8>, i64)>,
    /// The session workload's latest session per key: (start, end, count).
    sessions: HashMap<Vec<u8>, (i64, i64, i64)>,
    /// The table-table join's tables.
    left: HashMap<Vec<u8>, Vec<u8>>,
    right: HashMap<Vec<u8>, Vec<u8>>,
    /// The foreign-key join's customers, orders (value), and orders per customer key.
    customers: HashMap<Vec<u8>, Vec<u8>>,
    fk_orders: HashMap<Vec<u8>, Vec<u8>>,
    subscribers: HashMap<Vec<u8>, HashSet<Vec<u8>>>,
    /// The versioned join's latest price per product by timestamp: (timestamp, value).
    prices: HashMap<Vec<u8>, (i64, Vec<u8>)>,
    finals: FinalValues,
}

impl Reference {
    /// An empty model of `workload`.
    pub fn new(workload: Workload) -> Self {
        Self {
            workload,
            users: HashMap::new(),
            counts: HashMap::new(),
            orders: HashMap::new(),
            payments: HashMap::new(),
            sessions: HashMap::new(),
            left: HashMap::new(),
            right: HashMap::new(),
            customers: HashMap::new(),
            fk_orders: HashMap::new(),
            subscribers: HashMap::new(),
            prices: HashMap::new(),
            finals: HashMap::new(),
        }
    }

    /// Applies one input record.
    pub fn apply(&mut self, r: &InputRecord) {
        match (self.workload, r.topic_suffix) {
            (Workload::Stateless, _) => {
                let v = i64::from_be_bytes(r.value[..8].try_into().unwrap_or([0; 8]));
                if v % 5 != 0
                    && let Some(k) = &r.key
                {
                    self.finals
                        .insert(k.clone(), (v * 2).to_be_bytes().to_vec());
                }
            }
            (Workload::LargeState(_), _) => {
                if let Some(k) = &r.key {
                    self.count(k.clone());
                }
            }
            (Workload::WordCount | Workload::AvroWordCount, _) => {
                for word in r.value.split(|b| *b == b' ') {
                    self.count(word.to_vec());
                }
            }
            (Workload::Window, _) => {
                let start = r.timestamp_ms - r.timestamp_ms.rem_euclid(WINDOW_MS);
                let mut key = r.key.clone().unwrap_or_default();
                key.extend_from_slice(format!("@{start}").as_bytes());
                self.count(key);
            }
            (Workload::Join, "users") => {
                if let Some(k) = &r.key {
                    self.users.insert(k.clone(), r.value.clone());
                }
            }
            (Workload::StreamJoin, _) => self.stream_join(r),
            (Workload::Session, _) => self.session(r),
            (Workload::TableJoin, _) => self.table_join(r),
            (Workload::FkJoin, _) => self.fk_join(r),
            (Workload::Cogroup, suffix) => {
                if let Some(k) = &r.key {
                    let points = match suffix {
                        "clicks" => 1,
                        _ => std::str::from_utf8(&r.value)
                            .ok()
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(0),
                    };
                    self.add(k.clone(), points);
                }
            }
            // The orders come after every price and are stamped later: each joins its
            // product's price with the largest timestamp.
            (Workload::VersionedJoin, "prices") => {
                if let Some(k) = &r.key {
                    let entry = self
                        .prices
                        .entry(k.clone())
                        .or_insert((i64::MIN, Vec::new()));
                    if r.timestamp_ms >= entry.0 {
                        *entry = (r.timestamp_ms, r.value.clone());
                    }
                }
            }
            (Workload::VersionedJoin, _) => {
                if let Some(k) = &r.key
                    && let Some((_, price)) = self.prices.get(k)
                {
                    let mut v = r.value.clone();
                    v.push(b'@');
                    v.extend_from_slice(price);
                    self.finals.insert(k.clone(), v);
                }
            }
            (Workload::Join, _) => {
                if let Some(k) = &r.key
                    && let Some(region) = self.users.get(k)
                {
                    let mut v = r.value.clone();
                    v.push(b'@');
                    v.extend_from_slice(region);
                    self.finals.insert(k.clone(), v);
                }
            }
        }
    }

    /// One record of the stream-stream join: it joins the other side's record of its key if
    /// the two are at most the join window apart (every key has one order and at most one
    /// payment, so the result does not depend on the order the two topics are read in).
    fn stream_join(&mut self, r: &InputRecord) {
        let Some(k) = &r.key else { return };
        let (this, other) = if r.topic_suffix == "orders" {
            (&mut self.orders, &self.payments)
        } else {
            (&mut self.payments, &self.orders)
        };
        this.insert(k.clone(), (r.value.clone(), r.timestamp_ms));
        if let Some((v, t)) = other.get(k)
            && (t - r.timestamp_ms).abs() <= JOIN_WINDOW_MS
        {
            let (order, payment) = if r.topic_suffix == "orders" {
                (&r.value, v)
            } else {
                (v, &r.value)
            };
            let mut joined = order.clone();
            joined.push(b'+');
            joined.extend_from_slice(payment);
            self.finals.insert(k.clone(), joined);
        }
    }

    /// One record of the session count. A key's records arrive in timestamp order, so a record
    /// either extends the key's latest session (within the gap of its end: Kafka Streams merges
    /// the session into a new one with the same start, the old one's tombstone is not output)
    /// or starts a new one; the output key `<key>@<start>` holds the session's count.
    fn session(&mut self, r: &InputRecord) {
        let Some(k) = &r.key else { return };
        let t = r.timestamp_ms;
        let s = self.sessions.entry(k.clone()).or_insert((t, t, 0));
        if t - s.1 > SESSION_GAP_MS {
            *s = (t, t, 0);
        }
        s.1 = s.1.max(t);
        s.2 += 1;
        let mut key = k.clone();
        key.extend_from_slice(format!("@{}", s.0).as_bytes());
        self.finals.insert(key, s.2.to_be_bytes().to_vec());
    }

    /// One update of the table-table join: the key's row of its table changes, and the result
    /// is `left + "+" + right` once both tables have the key. Each table's updates of a key keep
    /// their order (one partition), so the final result per key is the join of the two last
    /// values, whatever order the two topics are read in.
    fn table_join(&mut self, r: &InputRecord) {
        let Some(k) = &r.key else { return };
        if r.topic_suffix == "left" {
            self.left.insert(k.clone(), r.value.clone());
        } else {
            self.right.insert(k.clone(), r.value.clone());
        }
        if let (Some(l), Some(rv)) = (self.left.get(k), self.right.get(k)) {
            let mut joined = l.clone();
            joined.push(b'+');
            joined.extend_from_slice(rv);
            self.finals.insert(k.clone(), joined);
        }
    }

    /// One update of the foreign-key join: an order's value names its customer (`c-12|<i>`), the
    /// result is `order + "+" + customer` while the customer exists (every customer does: the
    /// table is written first). A customer's update changes the result of every order naming
    /// it; an order's, its own result. Each key's updates keep their order (one partition), and
    /// the join answers only for an order's current foreign key, so the final result per order
    /// is the join of the last values, whatever order the two topics are read in.
    fn fk_join(&mut self, r: &InputRecord) {
        let Some(k) = &r.key else { return };
        let joined = |order: &[u8], customer: &[u8]| {
            let mut joined = order.to_vec();
            joined.push(b'+');
            joined.extend_from_slice(customer);
            joined
        };
        if r.topic_suffix == "customers" {
            self.customers.insert(k.clone(), r.value.clone());
            for order in self.subscribers.get(k).into_iter().flatten() {
                let value = &self.fk_orders[order];
                self.finals.insert(order.clone(), joined(value, &r.value));
            }
            return;
        }
        let fk = |value: &[u8]| {
            value
                .split(|b| *b == b'|')
                .next()
                .unwrap_or_default()
                .to_vec()
        };
        if let Some(old) = self.fk_orders.insert(k.clone(), r.value.clone())
            && let Some(orders) = self.subscribers.get_mut(&fk(&old))
        {
            orders.remove(k);
        }
        let customer = fk(&r.value);
        match self.customers.get(&customer) {
            Some(c) => {
                self.finals.insert(k.clone(), joined(&r.value, c));
            }
            None => {
                self.finals.remove(k);
            }
        }
        self.subscribers
            .entry(customer)
            .or_default()
            .insert(k.clone());
    }

    fn count(&mut self, key: Vec<u8>) {
        self.add(key, 1);
    }

    fn add(&mut self, key: Vec<u8>, n: i64) {
        let c = self.counts.entry(key.clone()).or_insert(0);
        *c += n;
        self.finals.insert(key, c.to_be_bytes().to_vec());
    }

    /// The final value per key so far.
    pub fn finals(&self) -> &FinalValues {
        &self.finals
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_model_extends_a_session_within_the_gap_and_starts_one_beyond_it() {
        let mut m = Reference::new(Workload::Session);
        for t in [0, 500, 1_500, 2_501, 3_501] {
            m.apply(&InputRecord {
                topic_suffix: "clicks",
                key: Some(b"k-1".to_vec()),
                value: b"c".to_vec(),
                timestamp_ms: t,
            });
        }
        // 500 and 1 500 are within 1 s of the session's end; 2 501 is 1 001 after 1 500.
        let count = |k: &str| {
            m.finals()
                .get(k.as_bytes())
                .map(|v| i64::from_be_bytes(v[..].try_into().expect("8 bytes")))
        };
        assert_eq!(count("k-1@0"), Some(3));
        assert_eq!(count("k-1@2501"), Some(2));
        assert_eq!(m.finals().len(), 2);
    }

    #[test]
    fn generation_is_deterministic_and_models_agree() {
        for w in Workload::ALL {
            let a: Vec<_> = w.backlog(1000, 1_000_000).collect();
            assert_eq!(a, w.backlog(1000, 1_000_000).collect::<Vec<_>>());
            let mut m = Reference::new(w);
            a.iter().for_each(|r| m.apply(r));
            assert!(!m.finals().is_empty(), "{w}");
        }
        let mut m = Reference::new(Workload::WordCount);
        Workload::WordCount
            .backlog(100, 0)
            .for_each(|r| m.apply(&r));
        let total: i64 = m
            .finals()
            .values()
            .map(|v| i64::from_be_bytes(v[..].try_into().expect("8 bytes")))
            .sum();
        assert_eq!(total, 100 * WORDS_PER_SENTENCE as i64);
    }

    #[test]
    fn table_join_result_is_the_join_of_the_last_values_in_any_read_order() {
        let records: Vec<_> = Workload::TableJoin.backlog(200_000, 0).collect();
        let mut in_order = Reference::new(Workload::TableJoin);
        records.iter().for_each(|r| in_order.apply(r));
        // All right-table records first, then all left ones: the same final results.
        let mut sides_apart = Reference::new(Workload::TableJoin);
        records
            .iter()
            .filter(|r| r.topic_suffix == "right")
            .chain(records.iter().filter(|r| r.topic_suffix == "left"))
            .for_each(|r| sides_apart.apply(r));
        assert_eq!(in_order.finals(), sides_apart.finals());
        // Nearly every left key found a right row; right-only keys have no result.
        let n = in_order.finals().len() as u64;
        assert!(n > LEFT_KEYS * 95 / 100 && n <= LEFT_KEYS, "{n} results");
        let v = &in_order.finals()[&b"k-1".to_vec()];
        assert!(v.starts_with(b"l-") && v.windows(3).any(|w| w == b"+r-"));
    }

    #[test]
    fn versioned_join_uses_the_newest_price_by_timestamp_not_the_last_written() {
        let records: Vec<_> = Workload::VersionedJoin.backlog(50_000, 0).collect();
        assert_eq!(
            records
                .iter()
                .filter(|r| r.topic_suffix == "prices")
                .count() as u64,
            PRODUCTS * PRICE_VERSIONS
        );
        let first_order = records
            .iter()
            .filter(|r| r.topic_suffix == "orders")
            .map(|r| r.timestamp_ms)
            .min();
        let last_price = records
            .iter()
            .filter(|r| r.topic_suffix == "prices")
            .map(|r| r.timestamp_ms)
            .max();
        assert!(last_price < first_order, "every price before every order");
        let mut m = Reference::new(Workload::VersionedJoin);
        records.iter().for_each(|r| m.apply(r));
        let v = String::from_utf8(m.finals()[&b"p-7".to_vec()].clone()).expect("utf-8");
        assert!(v.starts_with("order-") && v.ends_with("@price-7-4"), "{v}");
    }

    #[test]
    fn fk_join_result_is_the_join_of_the_last_values_in_any_read_order() {
        let records: Vec<_> = Workload::FkJoin.backlog(200_000, 0).collect();
        let mut in_order = Reference::new(Workload::FkJoin);
        records.iter().for_each(|r| in_order.apply(r));
        // The customers' updates first, then all orders: the same final results.
        let mut sides_apart = Reference::new(Workload::FkJoin);
        records
            .iter()
            .filter(|r| r.topic_suffix == "customers")
            .chain(records.iter().filter(|r| r.topic_suffix == "orders"))
            .for_each(|r| sides_apart.apply(r));
        assert_eq!(in_order.finals(), sides_apart.finals());
        // Every order has a result, with its current customer's last value.
        assert_eq!(in_order.finals().len() as u64, ORDERS);
        let v = String::from_utf8(in_order.finals()[&b"o-1".to_vec()].clone()).expect("UTF-8");
        let (order, customer) = v.split_once('+').expect("order+customer");
        let fk = order.split('|').next().expect("a customer key");
        let id = &fk[2..];
        assert!(
            customer == format!("cust-{id}") || customer.starts_with(&format!("cust-{id}-")),
            "{v}"
        );
        // Customers changed during the run, and orders saw it.
        assert!(
            in_order
                .finals()
                .values()
                .any(|v| v.split(|b| *b == b'-').count() == 4)
        );
    }

    #[test]
    fn large_state_names_key_spaces_and_draws_keys_as_they_say() {
        let w: Workload = "largestate-zipf-10m".parse().expect("a workload");
        assert_eq!(
            w,
            Workload::LargeState(KeySpace {
                keys: 10_000_000,
                zipf: true
            })
        );
        assert_eq!(w.to_string(), "largestate-zipf-10m");
        assert_eq!(w.name(), "largestate");
        assert_eq!(
            "largestate"
                .parse::<Workload>()
                .expect("a workload")
                .to_string(),
            "largestate-uniform-1m"
        );
        assert!("largestate-skewed-1m".parse::<Workload>().is_err());
        assert!("largestate-zipf-0".parse::<Workload>().is_err());
        // Uniform: every key about as often. Zipf: key 0 far more often than a key near the
        // end, about `ln(keys)` times the uniform share for the first key.
        let draws = |zipf| {
            let space = KeySpace { keys: 1_000, zipf };
            let mut n = vec![0u32; 1_000];
            (0..200_000u64).for_each(|i| n[space.key(mix(i)) as usize] += 1);
            n
        };
        let uniform = draws(false);
        assert!(
            uniform.iter().all(|&c| (120..=280).contains(&c)),
            "{uniform:?}"
        );
        let zipf = draws(true);
        assert!(zipf[0] > 20 * zipf[900], "{} vs {}", zipf[0], zipf[900]);
        let distinct = zipf.iter().filter(|&&c| c > 0).count();
        assert!(distinct > 900, "{distinct} keys drawn");
    }
}
