use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("orders", Utf8, Utf8)
            .repartition("by-id", Utf8, Utf8, |_key: &String, _value: &String, _n: u32| 0u32)
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
