//! Rust types checked against `.avsc` files while they compile: `#[derive(Avsc)]`.
//!
//! An estate that keeps its Avro schemas in `.avsc` files (shared with Java services, reviewed
//! as the contract of a topic) wants the Rust type that reads and writes a topic to be *that*
//! schema, not a schema derived from the Rust type that may drift from it. The derive binds a
//! type to a named type of a file and checks, at compile time, that the two fit:
//!
//! ```
//! use dekaf_streams::serdes::registry::Avsc;
//!
//! /// `schemas/word_count.avsc` (relative to this file, as `include_str!`):
//! /// `{"type": "record", "name": "WordCount", "namespace": "demo",
//! ///   "fields": [{"name": "word", "type": "string"}, {"name": "count", "type": "long"}]}`
//! #[derive(serde::Serialize, serde::Deserialize, Avsc)]
//! #[avsc(file = "schemas/word_count.avsc")]
//! pub struct WordCount {
//!     pub word: String,
//!     pub count: i64,
//! }
//! ```
//!
//! The type's schema (`apache_avro::AvroSchema`, what [`Avro<T>`](super::Avro) registers and
//! reads with) is then the file's, docs, defaults and all; the file is read while compiling and
//! again whenever it changes. What the derive rejects, each error at the field or attribute it is
//! about, naming the fix:
//! - a file that cannot be read or does not parse as Avro (the same parser as at run time), or
//!   has no named type `name = ".."`;
//! - a field of the struct that the record does not have (unless `#[serde(skip)]`), and a field
//!   of the record without a default that the struct does not have;
//! - a field whose Rust type does not fit the field's Avro type: checked by the trait [`Fits`],
//!   so type aliases and your own types (`impl Fits<avsc::String> for OrderId`) work;
//! - a record, enum or fixed field whose Rust type is not bound to that named type (derive
//!   `Avsc` on it with `name = "<full name>"`);
//! - an enum whose unit variants are not exactly the Avro enum's symbols.
//!
//! Names follow serde: `#[serde(rename = "..")]` on fields and variants, `#[serde(rename_all =
//! "..")]` on the type. A unit struct binds only the schema (for [`AvroGeneric<S>`](super::AvroGeneric)).
//!
//! | Avro | Rust |
//! |---|---|
//! | `null` | `()` |
//! | `boolean` | `bool` |
//! | `int`, `date`, `time-millis` | `i32` (and `i8`, `i16`, `u8`, `u16`) |
//! | `long`, `timestamp-*`, `local-timestamp-*`, `time-micros` | `i64` (and `u32`) |
//! | `float`, `double` | `f32`, `f64` |
//! | `bytes` | `Vec<u8>` with `#[serde(with = "apache_avro::serde::bytes")]` (`bytes_opt` for `Option`) |
//! | `string` | `String`, `Box<str>`, `Arc<str>` |
//! | `uuid` | `String`, `uuid::Uuid` |
//! | `["null", T]` (either order) | `Option<T>` |
//! | `array` | `Vec<T>` |
//! | `map` | `HashMap<String, T>`, `BTreeMap<String, T>` |
//! | `fixed` of size N | `[u8; N]` with `#[serde(with = "apache_avro::serde::fixed")]` (`fixed_opt`) |
//! | `record`, `enum` | a type bound to it with `#[derive(Avsc)]` |
//!
//! Any `T` above can be boxed (`Box<T>`, for recursive records). Not yet: unions of two or more
//! non-null types, `decimal` and `duration`, and `bytes` or `fixed` inside an array or map
//! (serde would write them as arrays of ints; read and write those with
//! [`AvroGeneric`](super::AvroGeneric)).
//!
//! Protobuf needs no such check: its Rust types are generated from the `.proto` files
//! (`prost-build`), so they cannot drift from them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::marker::PhantomData;
use std::sync::Arc;

use apache_avro::Schema;
use apache_avro::schema::{ArraySchema, MapSchema, RecordField, UnionSchema};

/// Rust type `Self` reads and writes values of the Avro type that `S` stands for (one of this
/// module's markers). `#[derive(Avsc)]` requires it of every field; implement it for your own
/// types whose serde form is one of the table's (a `#[serde(transparent)]` newtype).
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not fit the Avro type of this field",
    label = "this Rust type does not read and write the Avro type `{S}`",
    note = "Avro int is i32, long is i64, float f32, double f64, string String, bytes Vec<u8> with #[serde(with = \"apache_avro::serde::bytes\")], [\"null\", T] Option<T>, array Vec<T>, map HashMap<String, T>; a record, enum or fixed is a type with #[derive(Avsc)] and #[avsc(file = .., name = \"<its full name>\")]"
)]
pub trait Fits<S> {}

macro_rules! markers {
    ($($(#[$doc:meta])* $name:ident: $($rust:ty),*;)*) => {$(
        $(#[$doc])*
        #[derive(Debug)]
        pub enum $name {}
        $(impl Fits<$name> for $rust {})*
    )*};
}

markers! {
    /// Avro `null`.
    Null: ();
    /// Avro `boolean`.
    Boolean: bool;
    /// Avro `int` (and the logical types `date`, `time-millis`).
    Int: i32, i16, i8, u16, u8;
    /// Avro `long` (and the logical types `time-micros`, `timestamp-*`, `local-timestamp-*`).
    Long: i64, u32;
    /// Avro `float`.
    Float: f32;
    /// Avro `double`.
    Double: f64;
    /// Avro `bytes`.
    Bytes: Vec<u8>;
    /// Avro `string`.
    String: std::string::String, Box<str>, Arc<str>;
    /// Avro `string` with the logical type `uuid`.
    Uuid: std::string::String, ::uuid::Uuid;
}

/// Avro `["null", S]`: `Option<T>` where `T` fits `S`.
#[derive(Debug)]
pub struct Nullable<S>(PhantomData<S>);
/// Avro `array` of `S`.
#[derive(Debug)]
pub struct Array<S>(PhantomData<S>);
/// Avro `map` of `S`.
#[derive(Debug)]
pub struct Map<S>(PhantomData<S>);
/// Avro `fixed` of `N` bytes.
#[derive(Debug)]
pub struct Fixed<const N: usize>;
/// The Avro named type (record, enum or fixed) whose full name hashes to `H` (FNV-1a, 64 bits):
/// fitted by the type `#[derive(Avsc)]` binds to it.
#[derive(Debug)]
pub struct Named<const H: u64>;

impl<T: Fits<S>, S> Fits<Nullable<S>> for Option<T> {}
impl<T: Fits<S>, S> Fits<Array<S>> for Vec<T> {}
impl<T: Fits<S>, S> Fits<Map<S>> for HashMap<std::string::String, T> {}
impl<T: Fits<S>, S> Fits<Map<S>> for BTreeMap<std::string::String, T> {}
impl<const N: usize> Fits<Fixed<N>> for [u8; N] {}
impl<T: Fits<S>, S> Fits<S> for Box<T> {}

/// The schema of the named type `name` in the `.avsc` text `text` (the top-level schema for
/// `None`), self-contained: the named types it uses that the file defines outside it are
/// inlined where first used. What `#[derive(Avsc)]`'s `AvroSchema` impl returns.
///
/// # Panics
///
/// When `text` does not parse or has no such name. The derive checked both while compiling,
/// with this crate's parser, on the text it embeds, so it cannot happen in derived code.
pub fn named_schema(text: &str, name: Option<&str>) -> Schema {
    let top = Schema::parse_str(text)
        .unwrap_or_else(|e| panic!("an .avsc checked by #[derive(Avsc)] no longer parses: {e}"));
    let Some(name) = name else {
        return top;
    };
    let mut definitions = HashMap::new();
    collect(&top, &mut definitions);
    let Some(found) = definitions.get(name) else {
        panic!("an .avsc checked by #[derive(Avsc)] no longer defines `{name}`");
    };
    inline(found, &definitions, &mut HashSet::new())
}

/// The full name of a named schema.
fn fullname(schema: &Schema) -> Option<std::string::String> {
    match schema {
        Schema::Record(r) => Some(r.name.fullname(None)),
        Schema::Enum(e) => Some(e.name.fullname(None)),
        Schema::Fixed(f) | Schema::Duration(f) => Some(f.name.fullname(None)),
        _ => None,
    }
}

/// Every named type defined in `schema`, by full name.
fn collect<'a>(schema: &'a Schema, into: &mut HashMap<std::string::String, &'a Schema>) {
    if let Some(name) = fullname(schema) {
        into.entry(name).or_insert(schema);
    }
    match schema {
        Schema::Record(r) => r.fields.iter().for_each(|f| collect(&f.schema, into)),
        Schema::Array(a) => collect(&a.items, into),
        Schema::Map(m) => collect(&m.types, into),
        Schema::Union(u) => u.variants().iter().for_each(|v| collect(v, into)),
        _ => {}
    }
}

/// `schema` with every reference to a type not defined before it (in `defined`) replaced by that
/// type's definition, itself inlined the same way.
fn inline(
    schema: &Schema,
    definitions: &HashMap<std::string::String, &Schema>,
    defined: &mut HashSet<std::string::String>,
) -> Schema {
    if let Some(name) = fullname(schema) {
        defined.insert(name);
    }
    match schema {
        Schema::Ref { name } => {
            let full = name.fullname(None);
            match definitions.get(&full) {
                Some(definition) if !defined.contains(&full) => {
                    inline(definition, definitions, defined)
                }
                _ => schema.clone(),
            }
        }
        Schema::Record(r) => {
            let mut record = r.clone();
            record.fields = r
                .fields
                .iter()
                .map(|f| RecordField {
                    schema: inline(&f.schema, definitions, defined),
                    ..f.clone()
                })
                .collect();
            Schema::Record(record)
        }
        Schema::Array(a) => Schema::Array(ArraySchema {
            items: Box::new(inline(&a.items, definitions, defined)),
            attributes: a.attributes.clone(),
        }),
        Schema::Map(m) => Schema::Map(MapSchema {
            types: Box::new(inline(&m.types, definitions, defined)),
            attributes: m.attributes.clone(),
        }),
        Schema::Union(u) => {
            let variants = u
                .variants()
                .iter()
                .map(|v| inline(v, definitions, defined))
                .collect();
            UnionSchema::new(variants).map_or_else(|_| schema.clone(), Schema::Union)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"{"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "id", "type": "string"},
        {"name": "address", "type": {"type": "record", "name": "Address", "fields": [
            {"name": "city", "type": "string"}]}},
        {"name": "items", "type": {"type": "array", "items": {"type": "record", "name": "Item",
            "fields": [{"name": "from", "type": "Address"}, {"name": "to", "type": ["null", "Address"]}]}}}
    ]}"#;

    #[test]
    fn the_top_level_schema_without_a_name() {
        let schema = named_schema(FILE, None);
        assert_eq!(fullname(&schema).as_deref(), Some("shop.Order"));
    }

    #[test]
    fn a_nested_type_is_self_contained() {
        let item = named_schema(FILE, Some("shop.Item"));
        let Schema::Record(record) = &item else {
            panic!("not a record: {item:?}");
        };
        // `Address` is defined outside `Item`: its first use carries the definition, the
        // second refers to it.
        assert!(matches!(record.fields[0].schema, Schema::Record(_)));
        let Schema::Union(to) = &record.fields[1].schema else {
            panic!("not a union");
        };
        assert!(matches!(to.variants()[1], Schema::Ref { .. }));
        // What the registry gets must parse on its own.
        let text = serde_json::to_string(&item).unwrap();
        assert!(Schema::parse_str(&text).is_ok(), "{text}");
    }
}
