use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/choice.avsc")]
struct Choice {
    value: String,
}

fn main() {}
