//! A topology's operators are checked against the type bound to the `.avsc`: a field the
//! schema does not have, and a sink whose serde's record is not the stream's.

use dekaf_streams::prelude::*;
use dekaf_streams::serdes::registry::{Avro, Avsc};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/sentence.avsc")]
pub struct Sentence {
    text: String,
}

#[derive(Serialize, Deserialize, Avsc)]
#[avsc(file = "../schemas/order.avsc", name = "shop.Address")]
pub struct Address {
    city: String,
}

topology! {
    pub Words = "avsc-words" {
        stream("sentences", Utf8, Avro::<Sentence>)
            .map_values(|s| s.words)
            .to("words", Utf8, Utf8);
    }
}

topology! {
    pub Copy = "avsc-copy" {
        stream("sentences", Utf8, Avro::<Sentence>)
            .to("addresses", Utf8, Avro::<Address>);
    }
}

fn main() {}
