// The macro warns about a bound stream or table nothing uses; denied here so the snapshot
// records the warning.
#![deny(deprecated)]
use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let orders = stream("orders", Utf8, Utf8).filter(|_, v| !v.is_empty());
        let customers = table("customers", Utf8, Utf8);
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {}
