// The topic chooser takes the key and the value.
use dekaf_streams::prelude::*;

topology! {
    pub T = "to-chooser-arity" {
        stream("in", Utf8, Utf8).to(["a", "b"], |v: &String| v.clone(), Utf8, Utf8);
    }
}

fn main() {}
