use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("owners", Utf8, Utf8)
            .group_by(|car: &String, owner: String| (owner, car.clone()), Utf8, Utf8)
            .aggregate("cars", || 0i64, |_k: &String, _car: String, n: i64| n + 1, I64)
            .to_stream()
            .to("out", Utf8, Nullable::<I64>);
    }
}

fn main() {}
