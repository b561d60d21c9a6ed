use dekaf_streams::serdes::registry::Avsc;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/broken.avsc")]
struct Broken {
    x: String,
}

fn main() {}
