use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {}
}

fn main() {}
