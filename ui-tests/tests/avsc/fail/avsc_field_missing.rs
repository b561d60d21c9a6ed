use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Item")]
struct Item {
    // `quantity` has no default: records could not be written.
    sku: String,
}

fn main() {}
