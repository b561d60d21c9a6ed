use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        let s = stream("in", Utf8, Utf8);
        s.group_by_key().count("counts");
        s.group_by_key().reduce("counts", |a, b| a + &b);
    }
}

fn main() {}
