//! The `topology!` compiler of dekaf-streams: parse → model → check → codegen.
