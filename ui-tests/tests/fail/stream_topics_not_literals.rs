// Topic names are known while compiling.
use dekaf_streams::prelude::*;

const B: &str = "b";

topology! {
    pub T = "stream-topics-not-literals" {
        stream(["a", B], Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}
