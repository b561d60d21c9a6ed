use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Address")]
struct Address {
    city: String,
    // Not in the schema: writing would fail on every record.
    zip: String,
}

fn main() {}
