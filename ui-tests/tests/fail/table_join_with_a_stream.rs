use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let customers = stream("customers", Utf8, Utf8);
        table("orders", Utf8, Utf8)
            .join(customers, |o: &String, c: &String| format!("{o}/{c}"))
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}
