// The chooser names a topic: a &str or a String, not a number.
use dekaf_streams::prelude::*;

topology! {
    pub T = "to-chooser-number" {
        stream("in", Utf8, Utf8).to(["a", "b"], |_k: &String, v: &String| v.len(), Utf8, Utf8);
    }
}

fn main() {}
