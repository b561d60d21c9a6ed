//! # dekaf-streams
//!
//! Kafka stream processing for Rust. A [`topology!`] macro compiles a declarative operator
//! pipeline into statically dispatched task code and checks names, stores, types and internal
//! topics while you compile. The runtime runs the compiled topology as members of a Kafka 4.4
//! *streams group* (KIP-1071), keeps state in changelog-backed stores, and by default commits
//! output, state and consumed offsets in one Kafka transaction.
//!
//! The modules, in the order data flows through them:
//!
//! | module | what |
//! |---|---|
//! | [`topology`] | the static description of a compiled topology |
//! | [`protocol`] | Kafka requests the runtime encodes itself (streams group heartbeat, describe) |
//! | [`group`] | the coordinator connection and the streams-group membership state machine |

pub mod group;
pub mod kafka;
pub mod protocol;
pub mod streams;
pub mod topology;
