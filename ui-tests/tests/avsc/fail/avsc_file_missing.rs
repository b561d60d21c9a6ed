use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/no_such_schema.avsc")]
struct Sentence {
    text: String,
}

fn main() {}
