// A bound stream nothing uses only warns; `#[allow(deprecated)]` or a `_` name silences it.
#![deny(warnings)]
use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let _orders = stream("orders", Utf8, Utf8);
        stream("in", Utf8, Utf8).to("out", Utf8, Utf8);
    }
}

fn main() {
    assert_eq!(<T as Topology>::INFO.subtopologies.len(), 2);
}
