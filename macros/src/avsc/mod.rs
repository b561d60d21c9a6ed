//! `#[derive(Avsc)]`: binds a Rust type to a named type of an `.avsc` file and checks, while
//! compiling, that they fit (the runtime's `serdes::registry::avsc` documents the rules).
//!
//! What the macro itself checks (it sees the file and the item): the file, the named type, the
//! kind of item against the kind of schema, field and symbol names. What it leaves to the
//! compiler, as `Fits` bounds spanned at each field's type: whether that Rust type reads and
//! writes the field's Avro type (so aliases and the user's own types resolve as Rust resolves
//! them).

mod file;
mod marker;
mod serde_names;

use std::path::Path;

use apache_avro::Schema;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr};

use file::{AvscFile, kind};
use serde_names::{Rule, SerdeNames};

/// The expansion of `#[derive(Avsc)]` on `input`, whose source file is in folder `base`.
pub(crate) fn derive(input: TokenStream, base: Option<&Path>) -> TokenStream {
    match syn::parse2::<DeriveInput>(input).and_then(|input| expand(&input, base)) {
        Ok(tokens) => tokens,
        Err(e) => e.to_compile_error(),
    }
}

/// `#[avsc(file = "..", name = "..")]`.
struct Binding {
    file: LitStr,
    name: Option<LitStr>,
}

fn binding(input: &DeriveInput) -> syn::Result<Binding> {
    let mut file = None;
    let mut name = None;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("avsc")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("file") {
                file = Some(meta.value()?.parse::<LitStr>()?);
            } else if meta.path.is_ident("name") {
                name = Some(meta.value()?.parse::<LitStr>()?);
            } else {
                return Err(meta.error(
                    "unknown avsc option: write #[avsc(file = \"path/to/x.avsc\")], and name = \"<full name>\" for a named type inside the file",
                ));
            }
            Ok(())
        })?;
    }
    let file = file.ok_or_else(|| {
        syn::Error::new(
            input.ident.span(),
            "#[derive(Avsc)] needs the schema file: add #[avsc(file = \"path/to/x.avsc\")] (relative to this file's folder)",
        )
    })?;
    Ok(Binding { file, name })
}

fn expand(input: &DeriveInput, base: Option<&Path>) -> syn::Result<TokenStream> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "#[derive(Avsc)] binds one type to one schema: a generic type cannot be bound (bind each concrete type)",
        ));
    }
    let binding = binding(input)?;
    let file = AvscFile::read(&binding.file, base)?;
    let (fullname, schema) = file.pick(binding.name.as_ref())?;
    let what = match &fullname {
        Some(name) => format!("`{name}` in `{}`", file.shown),
        None => format!("the schema of `{}`", file.shown),
    };
    let type_attrs = SerdeNames::of(&input.attrs)?;
    let rule = match &type_attrs.rename_all {
        Some((name, lit)) => Some(Rule::parse(name, lit)?),
        None => None,
    };
    let checks = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Unit => TokenStream::new(),
            Fields::Named(fields) => {
                let Schema::Record(record) = schema else {
                    return Err(kind_error(input, &what, schema, "a record"));
                };
                record_checks(input, &file, &what, record, fields, rule)?
            }
            Fields::Unnamed(_) => {
                return Err(syn::Error::new(
                    input.ident.span(),
                    "#[derive(Avsc)] binds a struct with named fields to a record, an enum of unit variants to an enum, or a unit struct to any schema (for AvroGeneric): not a tuple struct",
                ));
            }
        },
        Data::Enum(e) => {
            let Schema::Enum(avro) = schema else {
                return Err(kind_error(input, &what, schema, "an enum"));
            };
            symbol_checks(input, &what, &avro.symbols, e, rule)?;
            TokenStream::new()
        }
        Data::Union(_) => {
            return Err(syn::Error::new(
                input.ident.span(),
                "#[derive(Avsc)] does not bind unions: use a struct or an enum",
            ));
        }
    };
    // A unit struct only names a schema (for AvroGeneric): it is no field type.
    let field_type = !matches!(&input.data, Data::Struct(s) if matches!(s.fields, Fields::Unit));
    let fits = fullname.as_deref().filter(|_| field_type);
    Ok(impls(
        input,
        &file,
        fullname.as_deref(),
        binding.name.is_some(),
        fits,
        checks,
    ))
}

fn kind_error(input: &DeriveInput, what: &str, schema: &Schema, wanted: &str) -> syn::Error {
    syn::Error::new(
        input.ident.span(),
        format!(
            "{what} is {} {}, and `{}` needs {wanted}: bind it with name = \"..\" to {wanted} of the file, or change the Rust type",
            if kind(schema).starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            },
            kind(schema),
            input.ident
        ),
    )
}

/// Field names both ways, and a `Fits` bound per field spanned at its type.
fn record_checks(
    input: &DeriveInput,
    file: &AvscFile,
    what: &str,
    record: &apache_avro::schema::RecordSchema,
    fields: &syn::FieldsNamed,
    rule: Option<Rule>,
) -> syn::Result<TokenStream> {
    let m = marker::avsc();
    let mut errors = Errors::default();
    let mut push = |e| errors.push(e);
    let mut checks = TokenStream::new();
    let mut seen = Vec::new();
    let avro_fields = || {
        record
            .fields
            .iter()
            .map(|f| f.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    for field in &fields.named {
        let Some(ident) = &field.ident else { continue };
        let names = SerdeNames::of(&field.attrs)?;
        if names.skip {
            continue;
        }
        let rust = ident.to_string();
        let rust = rust.strip_prefix("r#").unwrap_or(&rust);
        let avro_name = names
            .rename
            .clone()
            .unwrap_or_else(|| rule.map_or_else(|| rust.to_owned(), |r| r.field(rust)));
        let Some(avro) = record.fields.iter().find(|f| f.name == avro_name) else {
            push(syn::Error::new(
                ident.span(),
                format!(
                    "field `{rust}` (written as `{avro_name}`) is not a field of {what}, whose fields are: {}. Rename it (#[serde(rename = \"..\")]), skip it (#[serde(skip)]), or add it to the schema",
                    avro_fields()
                ),
            ));
            continue;
        };
        seen.push(avro_name.clone());
        if let Some(raw) = raw_bytes(file, &avro.schema)
            && names.with.is_none()
        {
            push(syn::Error::new(
                field.ty.span(),
                format!(
                    "field `{avro_name}` of {what} is Avro `{raw}`, which serde does not write from a byte array or vector by itself: add #[serde(with = \"apache_avro::serde::{raw}{}\")]",
                    if matches!(file.resolve(&avro.schema), Schema::Union(_)) {
                        "_opt"
                    } else {
                        ""
                    }
                ),
            ));
            continue;
        }
        match marker::marker(file, &avro.schema) {
            Ok(marker) => {
                // The bound is on a function named after the field and its Avro type, so that
                // rustc's "required by a bound in `..`" reads as the rule broken.
                let ty = &field.ty;
                let check = quote::format_ident!(
                    "{}_must_fit_avro_{}",
                    rust,
                    marker::describe(file, &avro.schema)
                );
                checks.extend(quote! {
                    #[allow(non_snake_case)]
                    const fn #check<T: #m::Fits<#marker> + ?::core::marker::Sized>() {}
                });
                checks.extend(quote_spanned! {ty.span()=>
                    const _: () = #check::<#ty>();
                });
            }
            Err(why) => push(syn::Error::new(
                field.ty.span(),
                format!("field `{avro_name}` of {what}: {why}"),
            )),
        }
    }
    let missing: Vec<_> = record
        .fields
        .iter()
        .filter(|f| f.default.is_none() && !seen.contains(&f.name))
        .map(|f| format!("`{}` ({})", f.name, kind(file.resolve(&f.schema))))
        .collect();
    if !missing.is_empty() {
        push(syn::Error::new(
            input.ident.span(),
            format!(
                "`{}` lacks the field{} {} of {what}, which {} no default: add {}, or give {} a default in the schema",
                input.ident,
                if missing.len() == 1 { "" } else { "s" },
                missing.join(", "),
                if missing.len() == 1 { "has" } else { "have" },
                if missing.len() == 1 { "it" } else { "them" },
                if missing.len() == 1 { "it" } else { "each" },
            ),
        ));
    }
    errors.or(checks)
}

/// `Some("bytes")` or `Some("fixed")` when `schema` (or its non-null branch) is one: serde writes
/// `Vec<u8>` and `[u8; N]` as sequences, which apache-avro writes as Avro bytes only through its
/// `serde::bytes` and `serde::fixed` modules.
fn raw_bytes(file: &AvscFile, schema: &Schema) -> Option<&'static str> {
    match file.resolve(schema) {
        Schema::Bytes => Some("bytes"),
        Schema::Fixed(_) => Some("fixed"),
        Schema::Union(u) => match u.variants() {
            [Schema::Null, other] | [other, Schema::Null] => raw_bytes(file, other),
            _ => None,
        },
        _ => None,
    }
}

/// The enum's unit variants are the Avro enum's symbols, both ways.
fn symbol_checks(
    input: &DeriveInput,
    what: &str,
    symbols: &[String],
    e: &syn::DataEnum,
    rule: Option<Rule>,
) -> syn::Result<()> {
    let mut errors = Errors::default();
    let mut push = |e| errors.push(e);
    let mut seen = Vec::new();
    for variant in &e.variants {
        if !matches!(variant.fields, Fields::Unit) {
            push(syn::Error::new(
                variant.span(),
                "an Avro enum's symbols are unit variants: this variant carries data",
            ));
            continue;
        }
        let names = SerdeNames::of(&variant.attrs)?;
        if names.skip {
            continue;
        }
        let rust = variant.ident.to_string();
        let symbol = names
            .rename
            .unwrap_or_else(|| rule.map_or_else(|| rust.clone(), |r| r.variant(&rust)));
        if symbols.contains(&symbol) {
            seen.push(symbol);
        } else {
            push(syn::Error::new(
                variant.ident.span(),
                format!(
                    "variant `{rust}` (written as `{symbol}`) is not a symbol of {what}, whose symbols are: {}",
                    symbols.join(", ")
                ),
            ));
        }
    }
    let missing: Vec<_> = symbols.iter().filter(|s| !seen.contains(s)).collect();
    if !missing.is_empty() {
        push(syn::Error::new(
            input.ident.span(),
            format!(
                "`{}` has no variant for the symbol{} {} of {what}: records with {} would not read",
                input.ident,
                if missing.len() == 1 { "" } else { "s" },
                missing
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                if missing.len() == 1 { "it" } else { "them" },
            ),
        ));
    }
    errors.or(())
}

/// Every error of one item, reported together (one compile shows them all).
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    /// `Ok(value)` when nothing was pushed.
    fn or<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

/// The impls: the schema (`AvroSchemaComponent`, hence `AvroSchema`), `Fits<Named<H>>` for the
/// fields of other bound types, and the checks. The file is embedded with `include_str!`, so
/// the crate rebuilds when it changes.
fn impls(
    input: &DeriveInput,
    file: &AvscFile,
    fullname: Option<&str>,
    picked: bool,
    fits: Option<&str>,
    checks: TokenStream,
) -> TokenStream {
    let ident = &input.ident;
    let m = marker::avsc();
    let avro = quote!(::dekaf_streams::serdes::registry::apache_avro);
    let path = LitStr::new(&file.path.to_string_lossy(), Span::call_site());
    let name = match (picked, fullname) {
        (true, Some(name)) => quote!(::core::option::Option::Some(#name)),
        _ => quote!(::core::option::Option::None),
    };
    let fits = fits.map(|full| {
        let hash = marker::name_hash(full);
        quote!(impl #m::Fits<#m::Named<#hash>> for #ident {})
    });
    // Inside a schema that defines this type already (apache-avro's derive around it), a
    // reference to it.
    let reference = fullname.map(|full| {
        quote! {
            if let ::core::result::Result::Ok(__dk_name) = #avro::schema::Name::new(#full) {
                if !__dk_named.insert(__dk_name.clone()) {
                    return #avro::Schema::Ref { name: __dk_name };
                }
            }
        }
    });
    quote! {
        const _: () = {
            const __DK_AVSC: &str = ::core::include_str!(#path);

            impl #avro::AvroSchemaComponent for #ident {
                fn get_schema_in_ctxt(
                    __dk_named: &mut ::std::collections::HashSet<#avro::schema::Name>,
                    _: #avro::schema::NamespaceRef,
                ) -> #avro::Schema {
                    #reference
                    static SCHEMA: ::std::sync::OnceLock<#avro::Schema> = ::std::sync::OnceLock::new();
                    SCHEMA.get_or_init(|| #m::named_schema(__DK_AVSC, #name)).clone()
                }
            }

            #fits

            #checks
        };
    }
}
