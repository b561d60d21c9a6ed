use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        1 + 2;
    }
}

fn main() {}
