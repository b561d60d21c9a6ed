//! Every error and warning of one expansion, collected in one place and turned into tokens at
//! the end.
//!
//! Errors become `compile_error!`s at the user's tokens. Stable Rust has no API for a
//! proc-macro warning, so a warning is the use of a deprecated constant, spanned at the user's
//! tokens: rustc reports "use of deprecated constant `unused_binding`: &lt;message&gt;" there, and
//! `#[allow(deprecated)]` on the enclosing module or function silences it (rustc ignores
//! attributes on the macro invocation itself). Warnings are only emitted when there
//! is no error.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

/// A warning: its kind (the name of the deprecated constant), where, and what to do.
struct Warning {
    kind: &'static str,
    span: Span,
    message: String,
}

/// The errors and warnings found so far.
#[derive(Default)]
pub(crate) struct Diagnostics {
    errors: Vec<syn::Error>,
    warnings: Vec<Warning>,
}

impl Diagnostics {
    /// Records an error.
    pub(crate) fn error(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// Records a warning at `tokens`; `kind` is a snake_case name for it (`unused_binding`).
    pub(crate) fn warning(&mut self, kind: &'static str, tokens: impl ToTokens, message: String) {
        self.warnings.push(Warning {
            kind,
            span: tokens.span(),
            message,
        });
    }

    /// Whether an error was recorded.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The errors recorded so far.
    #[cfg(test)]
    pub(crate) fn errors(&self) -> &[syn::Error] {
        &self.errors
    }

    /// The messages of the warnings recorded so far.
    #[cfg(test)]
    pub(crate) fn warnings(&self) -> Vec<&str> {
        self.warnings.iter().map(|w| w.message.as_str()).collect()
    }

    /// The errors as `compile_error!`s, and the warnings, each a deprecated constant used at
    /// the user's span inside an anonymous `const _`.
    pub(crate) fn to_tokens(&self) -> TokenStream {
        let errors = self.errors.iter().map(syn::Error::to_compile_error);
        // As rustc does with lints, warnings wait until the errors are fixed.
        let warnings = self
            .warnings
            .iter()
            .filter(|_| self.errors.is_empty())
            .map(|w| {
                let name = Ident::new(w.kind, Span::call_site());
                let used = Ident::new(w.kind, w.span);
                let note = &w.message;
                let use_it = quote_spanned!(w.span=> #used);
                quote! {
                    const _: () = {
                        #[deprecated(note = #note)]
                        #[allow(non_upper_case_globals)]
                        const #name: () = ();
                        #use_it
                    };
                }
            });
        quote!(#(#errors)* #(#warnings)*)
    }
}
