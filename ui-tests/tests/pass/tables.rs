//! Every table operator compiles and runs: filter, filter_not, map_values, the three
//! table-table joins, group_by with count/reduce/aggregate, to_table and to_stream.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    pub Tables = "tables" {
        let prices = table("prices", Utf8, I64);
        let names = stream("names", Utf8, Utf8).to_table("names-store");
        let cheap = prices.filter(|_, p| *p < 10).filter_not(|_, p| *p < 0);
        let labels = cheap.map_values(|k: &String, p: i64| format!("{k}={p}"));
        labels
            .join(names, |l: &String, n: &String| format!("{l}/{n}"))
            .to_stream()
            .to("inner", Utf8, Nullable::<Utf8>);
        names
            .left_join(prices, |n: &String, p: Option<&i64>| format!("{n}:{p:?}"))
            .to_stream()
            .to("left", Utf8, Nullable::<Utf8>);
        prices
            .outer_join(labels, |p: Option<&i64>, l: Option<&String>| format!("{p:?}{l:?}"))
            .group_by(|k: &String, v: String| (k.clone(), v), Utf8, Utf8)
            .count("outer-counts")
            .to_stream()
            .to("counts", Utf8, Nullable::<I64>);
    }
}

fn main() {
    let driver = TestDriver::<Tables>::new();
    driver.input_topic(Tables::PRICES).pipe_input("a".to_owned(), 5);
    driver.input_topic(Tables::NAMES).pipe_input("a".to_owned(), "ann".to_owned());
    let inner = driver.output_topic(Tables::INNER).read_key_values_to_list();
    assert_eq!(inner, [("a".to_owned(), Some("a=5/ann".to_owned()))]);
    let left = driver.output_topic(Tables::LEFT).read_key_values_to_list();
    assert_eq!(left, [("a".to_owned(), Some("ann:Some(5)".to_owned()))]);
    let counts = driver.output_topic(Tables::COUNTS).read_key_values_to_list();
    // The outer join reads one topic on both sides, so one price update reaches it twice.
    assert_eq!(counts.last(), Some(&("a".to_owned(), Some(1))));
}
