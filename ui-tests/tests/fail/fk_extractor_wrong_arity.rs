use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let orders = table("orders", Utf8, Utf8);
        let customers = table("customers", Utf8, Utf8);
        orders
            .join_on_foreign_key(
                customers,
                |_key: &String, v: &String, _extra: &String| v.clone(),
                |o: &String, c: &String| format!("{o}{c}"),
            )
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}
