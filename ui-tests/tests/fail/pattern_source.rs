use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream(pattern("orders-.*"), Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}
