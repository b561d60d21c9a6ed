use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Adress")]
struct Address {
    city: String,
}

fn main() {}
