//! Benchmarks of dekaf-streams; see `benches/`.
