// A source reads each topic once.
use dekaf_streams::prelude::*;

topology! {
    pub T = "stream-topic-twice" {
        stream(["a", "b", "a"], Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}
