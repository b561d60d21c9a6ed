//! Example topologies of dekaf-streams, each tested through the TestDriver (see `tests/`).

pub mod word_count;
