//! The broker-test harness of dekaf-streams: what the broker tests in `tests/` and the instances
//! in `src/bin/` share. The example topologies they run are the `dekaf-streams-examples` crate.
//!
//! | module | what |
//! |---|---|
//! | `avro_io` | (feature `avro`) Avro records in the Confluent wire format, framed and decoded without our serdes |
//! | [`e2e`] | the topologies and checks of the end-to-end tests on a real broker |
//! | [`faults`] | a fault harness for the replicated test cluster (instances, brokers, verifier) |
//! | [`java_interop`] | the Java side (Apicurio's serdes) of the schema registry interoperability tests |
//! | [`kafka_io`] | creating topics, producing, reading results (demo and end-to-end tests) |
//! | [`http_client`] | a small HTTP client of the query server's tests |
//! | [`windows_e2e`] | session, sliding and emit-final windows on a real broker, checked against the TestDriver |

#[cfg(feature = "avro")]
pub mod avro_io;
// `#[macro_use]`: `word_count_topology!` serves `faults` too.
#[macro_use]
pub mod e2e;
pub mod faults;
pub mod http_client;
pub mod java_interop;
pub mod kafka_io;
pub mod windows_e2e;
