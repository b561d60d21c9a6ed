use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let a = stream("a", Utf8, Utf8);
        let b = stream("b", I64, Utf8);
        a.merge(b).to("out", Utf8, Utf8);
    }
}

fn main() {}
