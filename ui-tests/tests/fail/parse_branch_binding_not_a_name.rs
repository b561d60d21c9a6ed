use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let [a, (b, c)] = stream("in", Utf8, Utf8).branch(|_, _| true, |_, _| false);
        a.to("a", Utf8, Utf8);
    }
}

fn main() {}
