//! Every error and warning of one expansion, collected in one place and turned into tokens at
//! the end.
//!
//! Errors become `compile_error!`s at the user's tokens. An error that points at a second place
//! as well (a `syn::Error` combined of several, like "the stream ends here") is one
//! `compile_error!`: stable Rust has no API for a proc-macro note, and one `compile_error!` per
//! part would show the note as a second `error:` (and count it). Its parts after the first
//! become `note:` lines under the message, naming the line, column and text they point at:
//!
//! ```text
//! error: `to` comes after `foreach(..)`, which ends the stream: bind the stream before it ..
//!        note: the stream ends here (line 5, column 14: `foreach(|_, v| println!("{v}"))`)
//!  --> src/main.rs:6:14
//! ```
//!
//! Stable Rust has no API for a
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
        let errors = self.errors.iter().map(with_notes);
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

/// The `compile_error!` of `error` at its first part's tokens, its other parts as notes under
/// the message.
fn with_notes(error: &syn::Error) -> TokenStream {
    let mut parts = error.clone().into_iter();
    let Some(primary) = parts.next() else {
        return error.to_compile_error();
    };
    let notes: Vec<String> = parts
        .map(|note| format!("note: {note}{}", location(note.span())))
        .collect();
    let tokens = primary.to_compile_error();
    if notes.is_empty() {
        return tokens;
    }
    let message = format!("{primary}\n{}", notes.join("\n"));
    with_message(tokens, &message)
}

/// Where `span` starts, and the text it covers (cut at 60 characters), for a note: ` (line 5,
/// column 14: `foreach(..)`)`; empty where the compiler gives no location.
fn location(span: Span) -> String {
    let start = span.start();
    if start.line == 0 {
        return String::new();
    }
    let text = span.source_text().map(|text| {
        let line = text.lines().next().unwrap_or_default().trim();
        if line.chars().count() > 60 || text.lines().nth(1).is_some() {
            let cut: String = line.chars().take(60).collect();
            format!(": `{cut}..`")
        } else {
            format!(": `{line}`")
        }
    });
    format!(
        " (line {}, column {}{})",
        start.line,
        start.column + 1,
        text.unwrap_or_default()
    )
}

/// `tokens` (a `compile_error!`) with its message literal replaced by `message`, keeping every
/// span (which says where the error points).
fn with_message(tokens: TokenStream, message: &str) -> TokenStream {
    use proc_macro2::{Group, Literal, TokenTree};
    tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Literal(old) => {
                let mut new = Literal::string(message);
                new.set_span(old.span());
                TokenTree::Literal(new)
            }
            TokenTree::Group(group) => {
                let mut new = Group::new(group.delimiter(), with_message(group.stream(), message));
                new.set_span(group.span());
                TokenTree::Group(new)
            }
            other => other,
        })
        .collect()
}
