use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = table("customers", Utf8, Utf8);
        let orders = table("orders", I64, Utf8);
        orders
            .join(customers, |o: &String, c: &String| format!("{o}/{c}"))
            .to_stream()
            .to("out", I64, Nullable::<Utf8>);
    }
}

fn main() {}
