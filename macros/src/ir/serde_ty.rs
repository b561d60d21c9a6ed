//! [`SerdeTy`]: a serde as the user wrote it.

use proc_macro2::Span;
use quote::ToTokens;
use syn::Type;

/// A serde as written by the user, used as a type.
#[derive(Clone)]
pub(crate) struct SerdeTy {
    pub ty: Type,
    pub span: Span,
}

impl SerdeTy {
    /// The last path segment's name (`Utf8`, `Json`, `TimeWindowed`).
    pub(crate) fn last_name(&self) -> Option<String> {
        match &self.ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
    }

    /// The Rust type of a built-in serde whose value type is known (`Utf8` → `String`).
    pub(crate) fn builtin_value(&self) -> Option<&'static str> {
        let Type::Path(p) = &self.ty else { return None };
        let last = p.path.segments.last()?;
        if !last.arguments.is_empty() {
            return None;
        }
        match last.ident.to_string().as_str() {
            "Utf8" => Some("String"),
            "I16" => Some("i16"),
            "I32" => Some("i32"),
            "I64" => Some("i64"),
            "F32" => Some("f32"),
            "F64" => Some("f64"),
            "Bool" => Some("bool"),
            "Uuid" => Some("uuid::Uuid"),
            "Bytes" => Some("Vec<u8>"),
            "Unit" | "Void" => Some("()"),
            _ => None,
        }
    }

    pub(crate) fn is_windowed(&self) -> bool {
        self.last_name().as_deref() == Some("TimeWindowed")
    }

    pub(crate) fn is_session_windowed(&self) -> bool {
        self.last_name().as_deref() == Some("SessionWindowed")
    }

    pub(crate) fn text(&self) -> String {
        self.ty.to_token_stream().to_string().replace(' ', "")
    }
}
