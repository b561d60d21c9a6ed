use dekaf_streams::prelude::*;
#[derive(serde::Serialize, serde::Deserialize)]
struct Id(u64);
topology! {
    pub T = "app" {
        let a = stream("a", Json::<Id>, Utf8);
        let b = stream("b", Utf8, Utf8);
        a.merge(b).to("out", Utf8, Utf8);
    }
}

fn main() {}
