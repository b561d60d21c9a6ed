use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("orders", Utf8, Utf8)
            .to("out", Utf8, Utf8, partitioner(|_key: &String, value: &String, _n: u32| value.clone()));
    }
}

fn main() {}
