use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let orders = stream("orders", I64, Utf8).group_by_key();
        stream("clicks", Utf8, Utf8)
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .cogroup(orders, |_k, v: String, a: String| a + &v)
            .aggregate("activity", String::new, Utf8)
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
