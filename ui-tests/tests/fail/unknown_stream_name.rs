use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let input = stream("in", Utf8, Utf8);
        inptu.to("out", Utf8, Utf8);
    }
}

fn main() {}
