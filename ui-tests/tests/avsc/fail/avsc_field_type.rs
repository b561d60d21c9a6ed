use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Item")]
struct Item {
    // The schema says `string`.
    sku: Option<String>,
    // The schema says `int`.
    quantity: i64,
}

fn main() {}
