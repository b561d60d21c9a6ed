use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, Utf8)
            .select_key(|_, v| v.clone())
            .repartition("by-value", Utf8, Utf8, partitions(0))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
