use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = table("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .join(customers, |o, c| format!("{o} {c}"), join_window(1000))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
