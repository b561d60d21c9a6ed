use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("in", Utf8, Utf8).print();
    }
}

fn main() {}
