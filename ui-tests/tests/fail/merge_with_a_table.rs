use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let more = table("more-orders", Utf8, Utf8);
        stream("orders", Utf8, Utf8).merge(more).to("out", Utf8, Utf8);
    }
}

fn main() {}
