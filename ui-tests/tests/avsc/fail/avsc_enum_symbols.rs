use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Status")]
#[serde(rename_all = "UPPERCASE")]
enum Status {
    New,
    Payed,
}

fn main() {}
