//! The `topology!` compiler of dekaf-streams, in phases: `parse` (the syn AST of the DSL) →
//! `model` (the operator graph as plain data: nodes, stores, subtopologies, internal topic
//! names) → `check` (naming and topic rules, each a `syn::Error` at the user's token) →
//! `codegen` (the topology type, its `TopologyInfo`, typed handles and inlined task code).
//!
//! Use it through the `dekaf-streams` crate, which re-exports [`topology!`] and documents the
//! DSL.

mod check;
mod codegen;
mod describe;
mod model;
mod parse;

use proc_macro::TokenStream;

/// Compiles a topology into a type implementing `dekaf_streams::task::Topology`.
///
/// ```text
/// topology! {
///     /// Counts the words of every sentence.
///     pub WordCount = "word-count" {
///         stream("sentences", Utf8, Utf8)
///             .flat_map_values(|sentence| sentence.split(' ').map(str::to_owned))
///             .group_by(|_key, word| word.clone(), Utf8, Utf8)
///             .count("counts")
///             .to_stream()
///             .to("word-counts", Utf8, I64);
///     }
/// }
/// ```
///
/// The language, operator by operator, is documented in `dekaf_streams::dsl`.
#[proc_macro]
pub fn topology(input: TokenStream) -> TokenStream {
    expand(input.into()).into()
}

fn expand(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let def: parse::TopologyDef = match syn::parse2(input) {
        Ok(def) => def,
        Err(e) => return e.to_compile_error(),
    };
    let model = match model::build(def) {
        Ok(m) => m,
        Err(errors) => return errors.into_iter().map(|e| e.to_compile_error()).collect(),
    };
    let errors = check::check(&model);
    if !errors.is_empty() {
        return errors.into_iter().map(|e| e.to_compile_error()).collect();
    }
    codegen::generate(&model)
}
