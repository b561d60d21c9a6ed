use dekaf_streams::prelude::*;
const N: u32 = 8;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .select_key(|_, v| v.clone())
            .repartition("by-value", Utf8, Utf8, N)
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
