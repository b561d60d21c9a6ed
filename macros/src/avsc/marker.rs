//! An Avro schema as a type of the runtime's `serdes::registry::avsc` markers, for the `Fits`
//! bound the derive puts on every field (`Array<Nullable<Long>>` for `{"type": "array",
//! "items": ["null", "long"]}`).

use apache_avro::Schema;
use apache_avro::schema::UuidSchema;
use proc_macro2::TokenStream;
use quote::quote;

use super::file::{AvscFile, fullname, kind};

/// The path of the runtime's marker module.
pub(crate) fn avsc() -> TokenStream {
    quote!(::dekaf_streams::serdes::registry::avsc)
}

/// FNV-1a (64 bits) of a named type's full name: the `Named<H>` marker of that type.
pub(crate) fn name_hash(fullname: &str) -> u64 {
    fullname.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The marker type of `schema`, or why it has no Rust type here.
pub(crate) fn marker(file: &AvscFile, schema: &Schema) -> Result<TokenStream, String> {
    let m = avsc();
    let named = |full: String| {
        let hash = name_hash(&full);
        quote!(#m::Named<#hash>)
    };
    Ok(match file.resolve(schema) {
        Schema::Null => quote!(#m::Null),
        Schema::Boolean => quote!(#m::Boolean),
        Schema::Int | Schema::Date | Schema::TimeMillis => quote!(#m::Int),
        Schema::Long
        | Schema::TimeMicros
        | Schema::TimestampMillis
        | Schema::TimestampMicros
        | Schema::TimestampNanos
        | Schema::LocalTimestampMillis
        | Schema::LocalTimestampMicros
        | Schema::LocalTimestampNanos => quote!(#m::Long),
        Schema::Float => quote!(#m::Float),
        Schema::Double => quote!(#m::Double),
        Schema::Bytes => quote!(#m::Bytes),
        Schema::String => quote!(#m::String),
        Schema::Uuid(UuidSchema::String) => quote!(#m::Uuid),
        Schema::Array(a) => {
            no_raw_bytes(file, &a.items)?;
            let items = marker(file, &a.items)?;
            quote!(#m::Array<#items>)
        }
        Schema::Map(map) => {
            no_raw_bytes(file, &map.types)?;
            let values = marker(file, &map.types)?;
            quote!(#m::Map<#values>)
        }
        Schema::Union(u) => match u.variants() {
            [Schema::Null, other] | [other, Schema::Null] => {
                let inner = marker(file, other)?;
                quote!(#m::Nullable<#inner>)
            }
            variants => {
                return Err(format!(
                    "a union of {} has no Rust type yet (only [\"null\", T], as Option<T>): read and write this record with AvroGeneric",
                    variants.iter().map(kind).collect::<Vec<_>>().join(", ")
                ));
            }
        },
        named_type @ (Schema::Record(_) | Schema::Enum(_)) => {
            named(fullname(named_type).unwrap_or_default())
        }
        Schema::Fixed(f) => {
            let size = f.size;
            quote!(#m::Fixed<#size>)
        }
        other => {
            return Err(format!(
                "Avro `{}` has no Rust type yet: read and write this record with AvroGeneric",
                kind(other)
            ));
        }
    })
}

/// Serde writes byte vectors and arrays as sequences; apache-avro takes them as `bytes` or
/// `fixed` only through a field's `#[serde(with = ..)]`, which an array's items cannot have.
fn no_raw_bytes(file: &AvscFile, items: &Schema) -> Result<(), String> {
    match file.resolve(items) {
        Schema::Bytes | Schema::Fixed(_) => Err(format!(
            "Avro `{}` inside an array or map has no Rust type yet (serde would write it as an array of ints): read and write this record with AvroGeneric",
            kind(file.resolve(items))
        )),
        Schema::Union(u) => u.variants().iter().try_for_each(|v| no_raw_bytes(file, v)),
        _ => Ok(()),
    }
}

/// `schema` in words that can stand in an identifier (`null_or_shop_Address`,
/// `array_of_long`): the name of the function whose bound a field's check is, which rustc's
/// error shows ("required by a bound in `address_must_fit_avro_null_or_shop_Address`").
pub(crate) fn describe(file: &AvscFile, schema: &Schema) -> String {
    match file.resolve(schema) {
        Schema::Array(a) => format!("array_of_{}", describe(file, &a.items)),
        Schema::Map(m) => format!("map_of_{}", describe(file, &m.types)),
        Schema::Union(u) => u
            .variants()
            .iter()
            .map(|v| describe(file, v))
            .collect::<Vec<_>>()
            .join("_or_"),
        Schema::Fixed(f) => format!("fixed_{}_of_{}", f.name.fullname(None), f.size),
        named @ (Schema::Record(_) | Schema::Enum(_)) => fullname(named).unwrap_or_default(),
        other => kind(other).to_owned(),
    }
    .replace(['.', '-'], "_")
}
