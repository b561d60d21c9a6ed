use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let a = table("a", Utf8, Utf8);
        let b = table("b", Utf8, Utf8);
        a.join(b, |v: &String| v.clone())
            .to_stream()
            .to("out", Utf8, Nullable::<Utf8>);
    }
}

fn main() {}
