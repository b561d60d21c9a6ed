// A sink names each topic it chooses among once.
use dekaf_streams::prelude::*;

topology! {
    pub T = "to-chooser-twice" {
        stream("in", Utf8, Utf8).to(["a", "b", "b"], |_k: &String, v: &String| v.clone(), Utf8, Utf8);
    }
}

fn main() {}
