use dekaf_streams::prelude::*;
topology! {
    pub T = "app" {
        table("customers", Utf8, Utf8).flat_map_values(|v: &String| v.split(',').map(str::to_owned).collect::<Vec<_>>());
    }
}

fn main() {}
