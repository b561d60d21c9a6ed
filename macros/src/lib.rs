//! The `topology!` compiler of dekaf-streams, in phases: `parse` (the syn AST of the DSL) →
//! `lower` (lowering through the operator registry, `ops`, with the `build` graph builder,
//! into the graph of `ir`: nodes, stores, subtopologies, internal topic names) → `check` (naming and topic rules) → `codegen`
//! (the topology type, its `TopologyInfo`, typed handles and inlined task code). Errors and
//! warnings of every phase are collected in `diagnostics`.
//!
//! Use it through the `dekaf-streams` crate, which re-exports [`topology!`] and documents the
//! DSL.

mod args;
#[cfg(feature = "avro")]
mod avsc;
mod build;
mod check;
mod codegen;
mod describe;
mod diagnostics;
#[cfg(test)]
mod expand_tests;
mod ir;
mod lower;
mod names;
mod ops;
mod parse;
mod takeover;

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

/// Binds a Rust type to a named type of an `.avsc` file and checks, while compiling, that they
/// fit: `#[derive(Avsc)] #[avsc(file = "schemas/x.avsc", name = "ns.X")]`. Documented in
/// `dekaf_streams::serdes::registry::avsc` (feature `avro`).
#[cfg(feature = "avro")]
#[proc_macro_derive(Avsc, attributes(avsc))]
pub fn derive_avsc(input: TokenStream) -> TokenStream {
    // Paths are relative to the deriving file's folder, as `include_str!`'s.
    let base = proc_macro2::Span::call_site()
        .local_file()
        .and_then(|file| file.parent().map(std::path::Path::to_path_buf));
    avsc::derive(input.into(), base.as_deref()).into()
}

fn expand(input: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    let def: parse::TopologyDef = match syn::parse2(input) {
        Ok(def) => def,
        Err(e) => return e.to_compile_error(),
    };
    let mut diagnostics = diagnostics::Diagnostics::default();
    let Some(model) = lower::lower(def, &mut diagnostics) else {
        return diagnostics.to_tokens();
    };
    check::check(&model, &mut diagnostics);
    if diagnostics.has_errors() {
        return diagnostics.to_tokens();
    }
    let mut out = codegen::generate(&model);
    out.extend(diagnostics.to_tokens());
    out
}
