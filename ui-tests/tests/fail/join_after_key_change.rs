use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = table("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .select_key(|_, v| v.clone())
            .join(customers, |order, customer| format!("{order} {customer}"))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
