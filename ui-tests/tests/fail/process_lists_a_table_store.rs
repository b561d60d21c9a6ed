use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = table("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .process(["customers"], |ctx, k, v| Ok(Some((k, v))))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
