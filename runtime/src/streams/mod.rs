//! Running a compiled topology on Kafka: the application builder, its settings, and shutdown.

pub mod config;
pub mod reset;
pub mod signal;

pub use config::{BuildError, ProcessingGuarantee, StreamsConfig};
pub use reset::{ResetError, ResetReport, reset_application};
pub use signal::shutdown_signal;
