use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("orders", Utf8, Utf8)
            .join_on_foreign_key(customers, |order: &String| order.clone(), |o: &String, c: &String| format!("{o}/{c}"))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}
