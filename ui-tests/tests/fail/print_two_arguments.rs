use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8).print("orders", "again");
    }
}

fn main() {}
