//! group_by, group_by_key (with and without repartition), count, reduce, aggregate, windowed
//! reduce and aggregate, to_stream.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    pub Stateful = "stateful" {
        let sales = stream("sales", Utf8, I64);
        sales.group_by_key().reduce("totals", |a, b| a + b).to_stream().to("totals-out", Utf8, I64);
        sales
            .group_by_key()
            .aggregate("stats", || (0i64, 0i64), |_, v, (n, sum)| (n + 1, sum + v), Json::<(i64, i64)>)
            .to_stream()
            .to("stats-out", Utf8, Json::<(i64, i64)>);
        sales
            .select_key(|k, _| k.len() as i64)
            .group_by_key(I64, I64)
            .count("by-key-length")
            .to_stream()
            .to("by-key-length-out", I64, I64);
        sales
            .group_by(|_, v| if *v >= 100 { "big".to_owned() } else { "small".to_owned() }, Utf8, I64)
            .windowed_by(tumbling(1000).grace(0))
            .reduce("max-per-second", |a, b| a.max(b))
            .to_stream()
            .to("max-out", TimeWindowed::<Utf8, 1000>, I64);
        sales
            .group_by_key()
            .windowed_by(hopping(Duration::from_millis(1000), Duration::from_millis(500)))
            .aggregate("sum-hopping", || 0i64, |_, v, a| a + v, I64)
            .to_stream()
            .to("sum-hopping-out", TimeWindowed::<Utf8>, I64);
    }
}

fn main() {
    let d = TestDriver::<Stateful>::new();
    let sales = d.input_topic(Stateful::SALES);
    sales.pipe_input_at("ab".into(), 10, 0);
    sales.pipe_input_at("c".into(), 200, 600);
    sales.pipe_input_at("ab".into(), 5, 1200);
    let s = |v: &str| v.to_owned();
    assert_eq!(d.output_topic(Stateful::TOTALS_OUT).read_key_values_to_list(), [(s("ab"), 10), (s("c"), 200), (s("ab"), 15)]);
    assert_eq!(d.output_topic(Stateful::STATS_OUT).read_values_to_list(), [(1, 10), (1, 200), (2, 15)]);
    assert_eq!(d.output_topic(Stateful::BY_KEY_LENGTH_OUT).read_key_values_to_list(), [(2, 1), (1, 1), (2, 2)]);
    let max: Vec<_> = d
        .output_topic(Stateful::MAX_OUT)
        .read_key_values_to_list()
        .into_iter()
        .map(|(w, v)| (w.key, w.window.start, w.window.end, v))
        .collect();
    assert_eq!(max, [(s("small"), 0, 1000, 10), (s("big"), 0, 1000, 200), (s("small"), 1000, 2000, 5)]);
    let hop: Vec<_> = d
        .output_topic(Stateful::SUM_HOPPING_OUT)
        .read_key_values_to_list()
        .into_iter()
        .map(|(w, v)| (w.key, w.window.start, v))
        .collect();
    assert_eq!(hop, [(s("ab"), 0, 10), (s("c"), 0, 200), (s("c"), 500, 200), (s("ab"), 500, 5), (s("ab"), 1000, 5)]);
    assert_eq!(d.key_value_store(Stateful::TOTALS).get(&s("ab")), Some(15));
    // group_by_key without a key change needs no repartition: 1 + 2 repartitioned.
    assert_eq!(Stateful::INFO.subtopologies.len(), 3);
}
