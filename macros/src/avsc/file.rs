//! The `.avsc` file a type is bound to: found relative to the file that derives (as
//! `include_str!`), parsed with `apache-avro` (the parser the runtime uses), and the named type
//! picked out of it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use apache_avro::Schema;
use syn::LitStr;

/// A parsed `.avsc` file.
pub(crate) struct AvscFile {
    /// Where it is, absolute: what the generated `include_str!` reads.
    pub path: PathBuf,
    /// The path as the attribute wrote it, for messages.
    pub shown: String,
    /// The top-level schema.
    pub top: Schema,
    /// Every named type the file defines, by full name.
    pub definitions: BTreeMap<String, Schema>,
}

impl AvscFile {
    /// Reads and parses the file `lit` names, relative to `base` (the deriving file's folder).
    pub(crate) fn read(lit: &LitStr, base: Option<&Path>) -> syn::Result<AvscFile> {
        let shown = lit.value();
        let relative = Path::new(&shown);
        let joined = match base {
            Some(base) if relative.is_relative() => base.join(relative),
            _ => relative.to_path_buf(),
        };
        let text = std::fs::read_to_string(&joined).map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!(
                    "cannot read the Avro schema `{shown}` ({e}): the path is relative to this source file's folder, as include_str!'s"
                ),
            )
        })?;
        let top = Schema::parse_str(&text).map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!("`{shown}` is not a valid Avro schema: {e}"),
            )
        })?;
        let path = joined.canonicalize().unwrap_or(joined);
        let mut definitions = BTreeMap::new();
        collect(&top, &mut definitions);
        Ok(AvscFile {
            path,
            shown,
            top,
            definitions,
        })
    }

    /// The named type `name` (a full name, or a simple name only one type has), or the
    /// top-level schema for `None`; with its full name when it is a named type.
    pub(crate) fn pick(&self, name: Option<&LitStr>) -> syn::Result<(Option<String>, &Schema)> {
        let Some(lit) = name else {
            return Ok((fullname(&self.top), &self.top));
        };
        let wanted = lit.value();
        if let Some(schema) = self.definitions.get(&wanted) {
            return Ok((Some(wanted), schema));
        }
        let simple: Vec<_> = self
            .definitions
            .iter()
            .filter(|(full, _)| full.rsplit('.').next() == Some(wanted.as_str()))
            .collect();
        match simple.as_slice() {
            [(full, schema)] => Ok((Some((*full).clone()), schema)),
            _ => Err(syn::Error::new(
                lit.span(),
                format!(
                    "`{}` defines no named type `{wanted}`{}; it defines: {}",
                    self.shown,
                    if simple.is_empty() {
                        ""
                    } else {
                        " alone (several have that simple name: use the full name)"
                    },
                    self.definitions
                        .keys()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }

    /// The schema `schema` stands for: a reference's definition.
    pub(crate) fn resolve<'a>(&'a self, schema: &'a Schema) -> &'a Schema {
        match schema {
            Schema::Ref { name } => self.definitions.get(&name.fullname(None)).unwrap_or(schema),
            other => other,
        }
    }
}

/// The full name of a named schema.
pub(crate) fn fullname(schema: &Schema) -> Option<String> {
    match schema {
        Schema::Record(r) => Some(r.name.fullname(None)),
        Schema::Enum(e) => Some(e.name.fullname(None)),
        Schema::Fixed(f) | Schema::Duration(f) => Some(f.name.fullname(None)),
        Schema::Ref { name } => Some(name.fullname(None)),
        _ => None,
    }
}

/// Every named type defined in `schema`, by full name.
fn collect(schema: &Schema, into: &mut BTreeMap<String, Schema>) {
    if !matches!(schema, Schema::Ref { .. })
        && let Some(name) = fullname(schema)
    {
        into.entry(name).or_insert_with(|| schema.clone());
    }
    match schema {
        Schema::Record(r) => r.fields.iter().for_each(|f| collect(&f.schema, into)),
        Schema::Array(a) => collect(&a.items, into),
        Schema::Map(m) => collect(&m.types, into),
        Schema::Union(u) => u.variants().iter().for_each(|v| collect(v, into)),
        _ => {}
    }
}

/// What kind of schema `schema` is, in messages.
pub(crate) fn kind(schema: &Schema) -> &'static str {
    match schema {
        Schema::Null => "null",
        Schema::Boolean => "boolean",
        Schema::Int => "int",
        Schema::Long => "long",
        Schema::Float => "float",
        Schema::Double => "double",
        Schema::Bytes => "bytes",
        Schema::String => "string",
        Schema::Array(_) => "array",
        Schema::Map(_) => "map",
        Schema::Union(_) => "union",
        Schema::Record(_) => "record",
        Schema::Enum(_) => "enum",
        Schema::Fixed(_) => "fixed",
        Schema::Decimal(_) | Schema::BigDecimal => "decimal",
        Schema::Uuid(_) => "uuid",
        Schema::Date => "date",
        Schema::TimeMillis => "time-millis",
        Schema::TimeMicros => "time-micros",
        Schema::TimestampMillis => "timestamp-millis",
        Schema::TimestampMicros => "timestamp-micros",
        Schema::TimestampNanos => "timestamp-nanos",
        Schema::LocalTimestampMillis => "local-timestamp-millis",
        Schema::LocalTimestampMicros => "local-timestamp-micros",
        Schema::LocalTimestampNanos => "local-timestamp-nanos",
        Schema::Duration(_) => "duration",
        Schema::Ref { .. } => "named type",
    }
}
