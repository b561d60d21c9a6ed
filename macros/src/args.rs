//! Reading an operator's arguments: string literals (topic and store names), serde types,
//! closures, windows and durations. Each reader's error names the argument and the usage line.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Type};

use crate::ir::{SerdeTy, WindowKind, WindowSpec};
use crate::parse::Call;

/// An error at one token's span.
pub(crate) fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// An error covering all of `tokens` (first to last token), on stable Rust.
pub(crate) fn err_at(tokens: impl ToTokens, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new_spanned(tokens, msg)
}

/// An error covering the whole call, name and arguments.
pub(crate) fn err_call(call: &Call, msg: impl std::fmt::Display) -> syn::Error {
    err_at(&call.tokens, msg)
}

/// The call has exactly `n` arguments.
pub(crate) fn arity(call: &Call, n: usize, usage: &str) -> syn::Result<()> {
    if call.args.len() == n {
        return Ok(());
    }
    let msg = format!(
        "`{}` takes {n} argument{}: {usage}",
        call.name,
        if n == 1 { "" } else { "s" }
    );
    Err(match call.args.get(n) {
        Some(extra) => err_at(extra, msg),
        None => err_call(call, msg),
    })
}

/// Argument `i`, an expression (a closure, usually).
pub(crate) fn expr_arg(call: &Call, i: usize, usage: &str) -> syn::Result<Expr> {
    call.arg(i)
        .cloned()
        .ok_or_else(|| err_call(call, format!("missing argument: {usage}")))
}

/// Argument `i`, a string literal: its value and span.
pub(crate) fn name_arg(call: &Call, i: usize, usage: &str) -> syn::Result<(String, Span)> {
    match call.arg(i) {
        Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) => Ok((s.value(), s.span())),
        Some(other) => Err(err_at(
            other,
            format!("expected a string literal (names are known while compiling): {usage}"),
        )),
        None => Err(err_call(call, format!("missing arguments: {usage}"))),
    }
}

/// Topic names in brackets (`["a", "b"]`): string literals, each once, at least one. A source
/// of several topics (`stream([..])`) and a sink that chooses among several (`to([..], ..)`)
/// take them.
pub(crate) fn topic_list(array: &syn::ExprArray, usage: &str) -> syn::Result<Vec<(String, Span)>> {
    let mut topics: Vec<(String, Span)> = Vec::new();
    for e in &array.elems {
        let Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = e
        else {
            return Err(err_at(
                e,
                format!(
                    "expected a topic name as a string literal (names are known while compiling): {usage}"
                ),
            ));
        };
        if topics.iter().any(|(t, _)| *t == s.value()) {
            return Err(err_at(
                s,
                format!("`{}` is listed twice: name each topic once", s.value()),
            ));
        }
        topics.push((s.value(), s.span()));
    }
    if topics.is_empty() {
        return Err(err_at(array, format!("name at least one topic: {usage}")));
    }
    Ok(topics)
}

/// Argument `i`, a serde type (`Utf8`, `Json::<T>`).
pub(crate) fn serde_arg(call: &Call, i: usize, usage: &str) -> syn::Result<SerdeTy> {
    match call.arg(i) {
        Some(Expr::Path(p)) if p.qself.is_none() => {
            let ty: Type = Type::Path(syn::TypePath {
                qself: None,
                path: p.path.clone(),
            });
            Ok(SerdeTy { ty, span: p.span() })
        }
        Some(other) => Err(err_at(
            other,
            format!("expected a serde type such as Utf8, I64 or Json::<T>: {usage}"),
        )),
        None => Err(err_call(call, format!("missing arguments: {usage}"))),
    }
}

/// Argument `i`, a name bound by `let` (`a.merge(b)`, `s.join(t, ..)`).
pub(crate) fn bound_name_arg<'c>(
    call: &'c Call,
    i: usize,
    usage: &str,
) -> syn::Result<&'c syn::Ident> {
    let arg = call
        .arg(i)
        .ok_or_else(|| err_call(call, format!("missing argument: {usage}")))?;
    match arg {
        Expr::Path(p) => p.path.get_ident().ok_or_else(|| err_at(p, usage)),
        other => Err(err_at(other, usage)),
    }
}

/// The number of parameters of a closure argument, if it is a closure.
pub(crate) fn closure_arity(e: &Expr) -> Option<usize> {
    match e {
        Expr::Closure(c) => Some(c.inputs.len()),
        _ => None,
    }
}
/// `1 parameter`, `0 parameters`, `4 parameters`.
pub(crate) fn parameters(n: usize) -> String {
    if n == 1 {
        "1 parameter".to_owned()
    } else {
        format!("{n} parameters")
    }
}

/// Whether a joiner closure takes the key first (`|key, left, right|`, Kafka Streams'
/// `ValueJoinerWithKey`): a closure of 3 parameters. Any other closure than one of 2 or 3
/// parameters is an error naming both forms (`usage`).
pub(crate) fn joiner_with_key(f: &Expr, usage: &str) -> syn::Result<bool> {
    match closure_arity(f) {
        Some(3) => Ok(true),
        Some(2) | None => Ok(false),
        Some(n) => Err(err_at(
            f,
            format!(
                "this joiner takes {}: a joiner takes the two values, or the key and the two values (Kafka Streams' ValueJoinerWithKey): {usage}",
                parameters(n)
            ),
        )),
    }
}

/// Whether a joiner closure (already checked by [`joiner_with_key`]) takes the key first.
pub(crate) fn takes_key(f: &Expr) -> bool {
    closure_arity(f) == Some(3)
}

/// `TimeWindowed::<S>` gets the window size; an explicit size must match.
pub(crate) fn fill_window_size(mut key: SerdeTy, size: i64) -> syn::Result<SerdeTy> {
    let Type::Path(p) = &mut key.ty else {
        return Ok(key);
    };
    let Some(last) = p.path.segments.last_mut() else {
        return Ok(key);
    };
    let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
        return Err(err(
            key.span,
            "write the inner key serde: TimeWindowed::<Utf8>",
        ));
    };
    match args.args.len() {
        1 => {
            let lit = syn::LitInt::new(&format!("{size}i64"), key.span);
            args.args
                .push(syn::GenericArgument::Const(syn::parse_quote!(#lit)));
        }
        2 => {
            let given = match &args.args[1] {
                syn::GenericArgument::Const(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                })) => i.base10_parse::<i64>().ok(),
                _ => None,
            };
            if given != Some(size) {
                return Err(err_at(
                    &args.args[1],
                    format!(
                        "the window size here must be the stream's window size, {size} ms: write TimeWindowed::<S> and the macro fills it in"
                    ),
                ));
            }
        }
        _ => {
            return Err(err(
                key.span,
                "write the inner key serde: TimeWindowed::<Utf8>",
            ));
        }
    }
    Ok(key)
}

/// `tumbling(D)`, `hopping(D, D)`, `session(gap)`, `sliding(time_difference)`, each optionally
/// `.grace(D)`; D is an integer (ms) or `Duration::from_millis/from_secs/from_mins(N)`.
pub(crate) fn window_spec(e: &Expr) -> syn::Result<WindowSpec> {
    const USAGE: &str = "tumbling(Duration::from_secs(60)), hopping(Duration::from_secs(60), Duration::from_secs(10)), session(Duration::from_secs(300)) (the inactivity gap) or sliding(Duration::from_secs(60)) (the largest time difference), optionally followed by .grace(Duration::from_secs(10))";
    let (base, grace) = match e {
        Expr::MethodCall(m) if m.method == "grace" => {
            if m.args.len() != 1 {
                return Err(err_at(m, format!("grace(..) takes one duration: {USAGE}")));
            }
            (&*m.receiver, duration(&m.args[0])?)
        }
        other => (other, 0),
    };
    let Expr::Call(c) = base else {
        return Err(err_at(base, format!("expected a window: {USAGE}")));
    };
    let Expr::Path(p) = &*c.func else {
        return Err(err_at(c, format!("expected a window: {USAGE}")));
    };
    let name = p
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let args: Vec<&Expr> = c.args.iter().collect();
    let (size, advance, kind) = match (name.as_str(), args.as_slice()) {
        ("tumbling", [size]) => {
            let s = duration(size)?;
            (s, s, WindowKind::Time)
        }
        ("hopping", [size, advance]) => (duration(size)?, duration(advance)?, WindowKind::Time),
        ("session", [gap]) => {
            let g = duration(gap)?;
            if g <= 0 {
                return Err(err_at(
                    gap,
                    "a session's inactivity gap must be positive (with a gap of 0 only records with the same timestamp share a session): give the longest pause that still continues a session, e.g. session(Duration::from_secs(300))",
                ));
            }
            (g, g, WindowKind::Session)
        }
        ("sliding", [difference]) => {
            let d = duration(difference)?;
            if d <= 0 {
                return Err(err_at(
                    difference,
                    "a sliding window's time difference must be positive (with 0 a window holds only records with one timestamp): give the largest time between two records of one window, e.g. sliding(Duration::from_secs(60))",
                ));
            }
            (d, d, WindowKind::Sliding)
        }
        _ => return Err(err_at(c, format!("expected a window: {USAGE}"))),
    };
    if size <= 0 {
        return Err(err_at(c, "the window size must be positive"));
    }
    if advance <= 0 || advance > size {
        return Err(err_at(
            c,
            "a hopping window advances by more than 0 and at most its size",
        ));
    }
    if grace < 0 {
        return Err(err_at(e, "the grace period cannot be negative"));
    }
    Ok(WindowSpec {
        size,
        advance,
        grace,
        kind,
        retention_ms: None,
    })
}

pub(crate) fn duration(e: &Expr) -> syn::Result<i64> {
    const USAGE: &str = "a duration is milliseconds as an integer literal or Duration::from_millis/from_secs/from_mins(N)";
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>(),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else {
                return Err(err_at(e, USAGE));
            };
            let f = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let [
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }),
            ] = c.args.iter().collect::<Vec<_>>().as_slice()
            else {
                return Err(err_at(e, USAGE));
            };
            let n = i.base10_parse::<i64>()?;
            let factor = match f.as_str() {
                "from_millis" => 1,
                "from_secs" => 1_000,
                "from_mins" => 60_000,
                "from_hours" => 3_600_000,
                _ => return Err(err_at(e, USAGE)),
            };
            n.checked_mul(factor)
                .ok_or_else(|| err_at(e, "duration too large"))
        }
        _ => Err(err_at(e, USAGE)),
    }
}
