use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = table("customers", Utf8, Utf8);
        stream("orders", I64, Utf8)
            .join(customers, |order, customer| format!("{order} {customer}"))
            .to("out", I64, Utf8);
    }
}

fn main() {}
