use dekaf_streams::prelude::*;
const LABEL: &str = "orders";
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8).print(LABEL);
    }
}

fn main() {}
