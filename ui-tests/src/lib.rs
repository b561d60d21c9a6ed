//! trybuild cases of the topology! macro live under `tests/`.
