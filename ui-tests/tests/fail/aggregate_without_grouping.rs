use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        stream("in", Utf8, I64).aggregate("sums", || 0i64, |_, v, a| a + v, I64);
    }
}

fn main() {}
