//! A record with every kind of field the derive binds, its nested record and enum bound to the
//! file's named types, and a round trip through the schema the derive gives.

use std::collections::HashMap;

use dekaf_streams::serdes::registry::Avsc;
use dekaf_streams::serdes::registry::apache_avro::reader::datum::GenericDatumReader;
use dekaf_streams::serdes::registry::apache_avro::writer::datum::GenericDatumWriter;
use dekaf_streams::serdes::registry::apache_avro::{self, AvroSchema};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc")]
#[serde(rename_all = "camelCase")]
struct Order {
    id: String,
    customer_id: i64,
    status: Status,
    items: Vec<Item>,
    address: Option<Address>,
    tags: HashMap<String, String>,
    #[serde(with = "apache_avro::serde::fixed")]
    checksum: [u8; 16],
    placed_at: i64,
    reference: String,
    // `note` has a default: the struct may leave it out.
    #[serde(skip)]
    cached_total: u64,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Status")]
#[serde(rename_all = "UPPERCASE")]
enum Status {
    New,
    Paid,
    Shipped,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "Item")]
struct Item {
    sku: String,
    #[serde(rename = "quantity")]
    qty: i32,
}

#[derive(Debug, PartialEq, Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Address")]
struct Address {
    city: String,
}

/// A unit struct names the schema only (for AvroGeneric).
#[derive(Avsc)]
#[avsc(file = "../schemas/order.avsc")]
struct OrderSchema;

fn main() {
    let order = Order {
        id: "o-1".into(),
        customer_id: 7,
        status: Status::Paid,
        items: vec![Item { sku: "s-1".into(), qty: 2 }],
        address: Some(Address { city: "Lyon".into() }),
        tags: HashMap::from([("gift".to_owned(), "yes".to_owned())]),
        checksum: [1; 16],
        placed_at: 1_700_000_000_000,
        reference: "123e4567-e89b-12d3-a456-426614174000".into(),
        cached_total: 0,
    };
    let schema = Order::get_schema();
    assert_eq!(schema.canonical_form(), OrderSchema::get_schema().canonical_form());
    // As `Avro<Order>` writes and reads: serde straight to and from the schema.
    let mut bytes = Vec::new();
    GenericDatumWriter::builder(&schema)
        .build()
        .unwrap()
        .write_ser(&mut bytes, &order)
        .unwrap();
    let back: Order = GenericDatumReader::builder(&schema)
        .build()
        .unwrap()
        .read_deser(&mut &bytes[..])
        .unwrap();
    assert_eq!(back, order);
    // And as it reads a record of another writer's schema: resolved to ours, then into `Order`.
    let value = GenericDatumReader::builder(&schema)
        .reader_schema(&schema)
        .build()
        .unwrap()
        .read_value(&mut &bytes[..])
        .unwrap();
    assert_eq!(apache_avro::from_value::<Order>(&value).unwrap(), order);
    // The nested types' schemas stand alone.
    assert_eq!(Item::get_schema().name().unwrap().fullname(None), "shop.Item");
}
