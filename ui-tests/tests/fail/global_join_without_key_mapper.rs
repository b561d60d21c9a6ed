use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = global_table("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .join(customers, |order: String, name: String| format!("{order} {name}"))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
