use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

// Cogrouped streams of different value types (one re-keyed through the store's repartition
// topic), a single-stream cogroup, and every window kind.
topology! {
    pub C = "cogroup" {
        let clicks = stream("clicks", Utf8, Utf8);
        let amounts = stream("amounts", Utf8, I64).group_by_key();
        let pages = stream("pages", Utf8, Utf8).group_by(|_k, page: &String| page.clone(), Utf8, Utf8);
        clicks
            .group_by_key()
            .cogroup(|_k, _v: String, a: i64| a + 1)
            .cogroup(amounts, |_k: &String, v: i64, a: i64| a + v)
            .cogroup(pages, |_k, _v, a: i64| a + 100)
            .aggregate("total", || 0i64, I64)
            .to_stream()
            .to("totals", Utf8, I64);
        clicks
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .windowed_by(tumbling(Duration::from_secs(10)))
            .aggregate("tumbling", String::new, Utf8)
            .to_stream()
            .to("tumbling", TimeWindowed::<Utf8>, Utf8);
        clicks
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .windowed_by(sliding(Duration::from_secs(10)))
            .aggregate("sliding", String::new, Utf8)
            .to_stream()
            .to("sliding", TimeWindowed::<Utf8>, Utf8);
        clicks
            .group_by_key()
            .cogroup(|_k, v: String, a: String| a + &v)
            .windowed_by(session(Duration::from_secs(10)))
            .aggregate("session", String::new, |_k, a: String, b: String| a + &b, Utf8)
            .to_stream()
            .to("sessions", SessionWindowed::<Utf8>, Utf8);
    }
}

fn main() {
    let driver = TestDriver::<C>::new();
    driver.input_topic(C::CLICKS).pipe_input_at("k".into(), "x".into(), 0);
    driver.input_topic(C::AMOUNTS).pipe_input_at("k".into(), 5, 1);
    driver.input_topic(C::PAGES).pipe_input_at("u".into(), "k".into(), 2);
    let totals = driver.output_topic(C::TOTALS).read_values_to_list();
    assert_eq!(totals, [1, 6, 106]);
    assert_eq!(driver.output_topic(C::TUMBLING).read_values_to_list(), ["x"]);
    assert_eq!(driver.output_topic(C::SLIDING).read_values_to_list(), ["x"]);
    assert_eq!(driver.output_topic(C::SESSIONS).read_values_to_list(), ["x"]);
}
