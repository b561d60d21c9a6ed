//! The `topology!` compiler of dekaf-streams: [`parse`] → [`model`] → [`check`] → [`codegen`].
//!
//! Use it through the `dekaf-streams` crate, which re-exports [`topology!`] and documents the
//! DSL.

mod check;
mod codegen;
mod describe;
mod model;
mod parse;

use proc_macro::TokenStream;

/// Compiles a topology; see the `dekaf_streams` crate documentation for the DSL.
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
