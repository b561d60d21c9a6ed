use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Address {
    city: String,
}

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Item")]
struct Item {
    sku: String,
    quantity: i32,
}

/// `Order.items` are `shop.Item`s, `Order.address` a `shop.Address`: the Rust types must be
/// bound to those names.
#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Order")]
#[serde(rename_all = "camelCase")]
struct Order {
    id: String,
    customer_id: i64,
    status: String,
    items: Vec<Item>,
    address: Option<Address>,
    tags: std::collections::HashMap<String, String>,
    #[serde(with = "dekaf_streams::serdes::registry::apache_avro::serde::fixed")]
    checksum: [u8; 8],
    placed_at: i64,
    reference: String,
}

fn main() {}
