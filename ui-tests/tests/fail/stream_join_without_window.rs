use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = stream("customers", Utf8, Utf8);
        stream("orders", Utf8, Utf8)
            .join(customers, |order, customer| format!("{order} {customer}"))
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
