use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("orders", Utf8, Utf8)
            .to("out", Utf8, Utf8, partitioner(|_key: &String, _value: &String| 0u32));
    }
}

fn main() {}
