//! The names serde gives fields and variants (`#[serde(rename = "..")]`, `#[serde(rename_all =
//! "..")]`, `#[serde(skip)]`): what the derive compares with the schema's names, since serde is
//! what writes and reads the values.

use syn::{Attribute, LitStr};

/// The serde attributes of a field, variant or type that decide its name.
#[derive(Default)]
pub(crate) struct SerdeNames {
    /// `rename = ".."` (or `rename(serialize = "..", deserialize = "..")` with both equal).
    pub rename: Option<String>,
    /// `rename_all = ".."`.
    pub rename_all: Option<(String, LitStr)>,
    /// `skip` (or both `skip_serializing` and `skip_deserializing`).
    pub skip: bool,
    /// `with = ".."` (or `serialize_with` and `deserialize_with`): the field has its own serde
    /// form (Avro `bytes` and `fixed` need `apache_avro::serde::bytes` / `fixed`).
    pub with: Option<String>,
}

impl SerdeNames {
    /// Reads the `#[serde(..)]` attributes among `attrs`; other serde options are left to serde.
    pub(crate) fn of(attrs: &[Attribute]) -> syn::Result<SerdeNames> {
        let mut names = SerdeNames::default();
        let (mut skip_ser, mut skip_de) = (false, false);
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("rename") {
                    if meta.input.peek(syn::Token![=]) {
                        names.rename = Some(meta.value()?.parse::<LitStr>()?.value());
                    } else {
                        let mut both = (None, None);
                        meta.parse_nested_meta(|inner| {
                            let value = inner.value()?.parse::<LitStr>()?.value();
                            if inner.path.is_ident("serialize") {
                                both.0 = Some(value);
                            } else {
                                both.1 = Some(value);
                            }
                            Ok(())
                        })?;
                        match both {
                            (Some(s), Some(d)) if s == d => names.rename = Some(s),
                            (None, None) => {}
                            _ => {
                                return Err(meta.error(
                                    "#[derive(Avsc)] needs one name for writing and reading: use rename = \"..\"",
                                ));
                            }
                        }
                    }
                } else if meta.path.is_ident("rename_all") {
                    let lit = meta.value()?.parse::<LitStr>()?;
                    names.rename_all = Some((lit.value(), lit));
                } else if meta.path.is_ident("skip") {
                    names.skip = true;
                } else if meta.path.is_ident("with") || meta.path.is_ident("serialize_with") {
                    names.with = Some(meta.value()?.parse::<LitStr>()?.value());
                } else if meta.path.is_ident("skip_serializing") {
                    skip_ser = true;
                } else if meta.path.is_ident("skip_deserializing") {
                    skip_de = true;
                } else if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<proc_macro2::TokenStream>()?;
                } else if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        if inner.input.peek(syn::Token![=]) {
                            inner.value()?.parse::<syn::Expr>()?;
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            })?;
        }
        names.skip |= skip_ser && skip_de;
        Ok(names)
    }
}

/// How `rename_all = "<rule>"` renames: serde's rules, for a field (`snake_case` in Rust) or a
/// variant (`PascalCase` in Rust).
#[derive(Clone, Copy)]
pub(crate) enum Rule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl Rule {
    /// The rule named `name`, or an error at `lit` listing serde's.
    pub(crate) fn parse(name: &str, lit: &LitStr) -> syn::Result<Rule> {
        Ok(match name {
            "lowercase" => Rule::Lower,
            "UPPERCASE" => Rule::Upper,
            "PascalCase" => Rule::Pascal,
            "camelCase" => Rule::Camel,
            "snake_case" => Rule::Snake,
            "SCREAMING_SNAKE_CASE" => Rule::ScreamingSnake,
            "kebab-case" => Rule::Kebab,
            "SCREAMING-KEBAB-CASE" => Rule::ScreamingKebab,
            _ => {
                return Err(syn::Error::new(
                    lit.span(),
                    "unknown rename_all rule: serde's are lowercase, UPPERCASE, PascalCase, camelCase, snake_case, SCREAMING_SNAKE_CASE, kebab-case, SCREAMING-KEBAB-CASE",
                ));
            }
        })
    }

    /// A field's name (`snake_case` in Rust) under this rule.
    pub(crate) fn field(self, name: &str) -> String {
        match self {
            Rule::Lower | Rule::Snake => name.to_owned(),
            Rule::Upper | Rule::ScreamingSnake => name.to_ascii_uppercase(),
            Rule::Pascal => pascal(name),
            Rule::Camel => {
                let pascal = pascal(name);
                let mut chars = pascal.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Rule::Kebab => name.replace('_', "-"),
            Rule::ScreamingKebab => name.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// A variant's name (`PascalCase` in Rust) under this rule.
    pub(crate) fn variant(self, name: &str) -> String {
        match self {
            Rule::Pascal => name.to_owned(),
            Rule::Lower => name.to_ascii_lowercase(),
            Rule::Upper => name.to_ascii_uppercase(),
            Rule::Camel => {
                let mut chars = name.chars();
                chars.next().map_or_else(String::new, |first| {
                    first.to_ascii_lowercase().to_string() + chars.as_str()
                })
            }
            Rule::Snake => snake(name),
            Rule::ScreamingSnake => snake(name).to_ascii_uppercase(),
            Rule::Kebab => snake(name).replace('_', "-"),
            Rule::ScreamingKebab => snake(name).to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// `snake_case` to `PascalCase`, as serde does.
fn pascal(name: &str) -> String {
    let mut out = String::new();
    let mut capitalize = true;
    for c in name.chars() {
        if c == '_' {
            capitalize = true;
        } else if capitalize {
            out.push(c.to_ascii_uppercase());
            capitalize = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// `PascalCase` to `snake_case`, as serde does.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.char_indices() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_rename_as_serde_does() {
        assert_eq!(Rule::Camel.field("order_id"), "orderId");
        assert_eq!(Rule::Pascal.field("order_id"), "OrderId");
        assert_eq!(Rule::ScreamingKebab.field("order_id"), "ORDER-ID");
        assert_eq!(Rule::ScreamingSnake.variant("InStock"), "IN_STOCK");
        assert_eq!(Rule::Lower.variant("InStock"), "instock");
        assert_eq!(Rule::Camel.variant("InStock"), "inStock");
    }
}
