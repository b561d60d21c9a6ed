//! Phase 1: the syn AST of the DSL.
//!
//! ```text
//! topology! {
//!     /// docs
//!     pub Name = "application-id" {
//!         on_error(|e| ErrorResponse::Continue);
//!         store("seen", Utf8, I64);
//!         let s = stream("in", Utf8, Utf8);
//!         let [a, b] = s.branch(|_, v| v.len() > 3, |_, _| true);
//!         a.to("long", Utf8, Utf8);
//!     }
//! }
//! ```
//!
//! The body is a Rust block: `let` statements and expression statements, each a method chain
//! rooted at a call (`stream(..)`, `table(..)`, `store(..)`, `on_error(..)`) or at a name bound
//! by an earlier `let`.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;
use syn::{Attribute, Expr, Ident, LitStr, Token, Visibility};

/// `#[attrs] vis Name = "app-id" { body }`
pub(crate) struct TopologyDef {
    pub attrs: Vec<Attribute>,
    pub vis: Visibility,
    pub name: Ident,
    pub app_id: LitStr,
    pub stmts: Vec<Statement>,
    /// The braces of the body, for errors about the body as a whole.
    pub body_span: Span,
}

/// What a `let` binds.
pub(crate) enum Binding {
    None,
    One(Ident),
    /// `let [a, b] = s.branch(..);`
    Many(Vec<Ident>, Span),
}

/// One statement: an optional binding and a chain.
pub(crate) struct Statement {
    pub binding: Binding,
    pub chain: Chain,
}

/// `root.call(..).call(..)`
pub(crate) struct Chain {
    pub root: Root,
    pub calls: Vec<Call>,
}

/// Where a chain starts.
pub(crate) enum Root {
    /// `stream(..)`, `table(..)`, `store(..)`, `on_error(..)`
    Call(Call),
    /// A name bound by `let`.
    Var(Ident),
}

/// A call: its name and arguments.
#[derive(Clone)]
pub(crate) struct Call {
    pub name: Ident,
    pub args: Vec<Expr>,
    /// Where the generated code of the call is spanned (its name; the whole call where the
    /// compiler can join spans).
    pub span: Span,
    /// The call's tokens, name and parenthesized arguments: errors about the whole call cover
    /// them (`syn::Error::new_spanned`, which works on stable Rust).
    pub tokens: TokenStream,
}

impl Call {
    pub(crate) fn arg(&self, i: usize) -> Option<&Expr> {
        self.args.get(i)
    }
}

impl Parse for TopologyDef {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let vis: Visibility = input.parse()?;
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected the topology's type name: `pub WordCount = \"word-count\" { ... }`",
            )
        })?;
        input.parse::<Token![=]>().map_err(|e| {
            syn::Error::new(
                e.span(),
                "expected `=` and the application id: `pub WordCount = \"word-count\" { ... }`",
            )
        })?;
        let app_id: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected the application id as a string literal: `pub WordCount = \"word-count\" { ... }`")
        })?;
        let content;
        let brace = syn::braced!(content in input);
        let block = content.call(syn::Block::parse_within)?;
        if !input.is_empty() {
            return Err(input.error("one topology per `topology!`: remove what follows the body"));
        }
        let mut stmts = Vec::new();
        for stmt in block {
            stmts.push(statement(stmt)?);
        }
        Ok(TopologyDef {
            attrs,
            vis,
            name,
            app_id,
            stmts,
            body_span: brace.span.join(),
        })
    }
}

fn statement(stmt: syn::Stmt) -> syn::Result<Statement> {
    match stmt {
        syn::Stmt::Local(local) => {
            let binding = binding(&local.pat)?;
            let Some(init) = local.init else {
                return Err(syn::Error::new(
                    local.span(),
                    "a `let` in a topology needs a value: `let s = stream(..);`",
                ));
            };
            if let Some((_, diverge)) = init.diverge {
                return Err(syn::Error::new(
                    diverge.span(),
                    "`let .. else` has no meaning in a topology (a stream or table always binds): remove the `else` block",
                ));
            }
            Ok(Statement {
                binding,
                chain: chain(*init.expr)?,
            })
        }
        syn::Stmt::Expr(expr, _) => Ok(Statement {
            binding: Binding::None,
            chain: chain(expr)?,
        }),
        syn::Stmt::Item(item) => Err(syn::Error::new(
            item.span(),
            "items cannot be declared inside a topology: declare them next to the `topology!` invocation",
        )),
        syn::Stmt::Macro(m) => Err(syn::Error::new(
            m.span(),
            "macros cannot be used as topology statements: call the macro in a closure of an operator, or outside `topology!`",
        )),
    }
}

fn binding(pat: &syn::Pat) -> syn::Result<Binding> {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            Ok(Binding::One(p.ident.clone()))
        }
        syn::Pat::Slice(s) => {
            let mut names = Vec::new();
            for elem in &s.elems {
                match elem {
                    syn::Pat::Ident(p) => names.push(p.ident.clone()),
                    syn::Pat::Wild(w) => names.push(Ident::new("_", w.span())),
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "bind each branch to a name: `let [a, b] = s.branch(..);`",
                        ));
                    }
                }
            }
            Ok(Binding::Many(names, s.span()))
        }
        other => Err(syn::Error::new(
            other.span(),
            "bind a stream or table to a name (`let s = ..;`) or branches to names (`let [a, b] = ..;`)",
        )),
    }
}

/// Flattens `a.b(..).c(..)` into a root and calls.
pub(crate) fn chain(expr: Expr) -> syn::Result<Chain> {
    let mut calls = Vec::new();
    let mut expr = expr;
    loop {
        match expr {
            Expr::MethodCall(m) => {
                if let Some(turbofish) = &m.turbofish {
                    return Err(syn::Error::new(
                        turbofish.span(),
                        "topology operators take no type arguments: remove the `::<..>` (the serdes and closures give the types)",
                    ));
                }
                let span = m
                    .method
                    .span()
                    .join(m.paren_token.span.close())
                    .unwrap_or_else(|| m.method.span());
                let mut tokens = m.method.to_token_stream();
                m.paren_token.surround(&mut tokens, |t| m.args.to_tokens(t));
                calls.push(Call {
                    name: m.method.clone(),
                    args: m.args.into_iter().collect(),
                    span,
                    tokens,
                });
                expr = *m.receiver;
            }
            Expr::Paren(p) => expr = *p.expr,
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return Err(syn::Error::new(c.func.span(), ROOT_HELP));
                };
                let Some(name) = p.path.get_ident().cloned() else {
                    return Err(syn::Error::new(p.span(), ROOT_HELP));
                };
                let span = name
                    .span()
                    .join(c.paren_token.span.close())
                    .unwrap_or_else(|| name.span());
                let mut tokens = name.to_token_stream();
                c.paren_token.surround(&mut tokens, |t| c.args.to_tokens(t));
                calls.reverse();
                return Ok(Chain {
                    root: Root::Call(Call {
                        name,
                        args: c.args.into_iter().collect(),
                        span,
                        tokens,
                    }),
                    calls,
                });
            }
            Expr::Path(p) => {
                let Some(name) = p.path.get_ident().cloned() else {
                    return Err(syn::Error::new(p.span(), ROOT_HELP));
                };
                calls.reverse();
                return Ok(Chain {
                    root: Root::Var(name),
                    calls,
                });
            }
            other => return Err(syn::Error::new(other.span(), ROOT_HELP)),
        }
    }
}

const ROOT_HELP: &str = "a topology statement starts with a source (`stream(\"topic\", KeySerde, ValueSerde)`, \
`table(\"topic\", KeySerde, ValueSerde)`), a declaration (`store(..)`, `on_error(..)`) or a name bound by `let`";
