use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let orders = table("orders", Utf8, Utf8, "orders-store");
        let customers = table("customers", Utf8, Utf8, "customers-store");
        orders
            .join_on_foreign_key(customers, |o: &String| o.clone(), |o: &String, c: &String| format!("{o}{c}"))
            .filter(|_k: &String, v: &String| !v.is_empty())
            .to_stream()
            .to("out", Utf8, Utf8);
    }
}

fn main() {}
