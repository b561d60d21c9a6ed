//! filter_not as Kafka Streams' filterNot: the records whose predicate does not hold pass, and
//! the stream keeps its key, serdes and partitioning (one KSTREAM-FILTER node, no repartition
//! before group_by_key), while filter passes the complement.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    pub Refunds = "refunds" {
        let payments = stream("payments", Utf8, I64);
        payments.filter_not(|_, amount| *amount >= 0).group_by_key().count("refunds-per-customer");
        payments.filter(|_, amount| *amount >= 0).to("charges", Utf8, I64);
    }
}

fn main() {
    // One subtopology: no repartition topic after filter_not.
    assert_eq!(Refunds::INFO.subtopologies.len(), 1);
    assert!(Refunds::INFO.subtopologies[0].repartition_sink_topics.is_empty());
    assert!(Refunds::DESCRIPTION.contains("KSTREAM-FILTER-0000000001"));

    let d = TestDriver::<Refunds>::new();
    let payments = d.input_topic(Refunds::PAYMENTS);
    payments.pipe_input("ann".into(), 10);
    payments.pipe_input("ann".into(), -4);
    payments.pipe_input("bob".into(), -1);
    payments.pipe_input("ann".into(), -2);
    payments.pipe_input("bob".into(), 0);
    let counts = d.key_value_store(Refunds::REFUNDS_PER_CUSTOMER);
    assert_eq!(counts.get(&"ann".to_owned()), Some(2));
    assert_eq!(counts.get(&"bob".to_owned()), Some(1));
    assert_eq!(d.output_topic(Refunds::CHARGES).read_values_to_list(), [10, 0]);
}
