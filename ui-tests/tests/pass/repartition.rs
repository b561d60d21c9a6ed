//! repartition(..) re-partitions a re-keyed stream so it can join a table.
use dekaf_streams::prelude::*;
use dekaf_streams::testing::TestDriver;

topology! {
    pub Rekey = "rekey" {
        let names = table("names", I64, Utf8);
        stream("events", Utf8, I64)
            .select_key(|_, id| *id)
            .repartition("by-id", I64, I64)
            .join(names, |id, name| format!("{id}={name}"))
            .to("named", I64, Utf8);
    }
}

fn main() {
    let d = TestDriver::<Rekey>::new();
    d.input_topic(Rekey::NAMES).pipe_input(7, "seven".to_owned());
    d.input_topic(Rekey::EVENTS).pipe_input("e".to_owned(), 7);
    d.input_topic(Rekey::EVENTS).pipe_input("f".to_owned(), 8);
    assert_eq!(d.output_topic(Rekey::NAMED).read_key_values_to_list(), [(7, "7=seven".to_owned())]);
    let joined = Rekey::INFO.subtopologies.iter().find(|s| !s.copartition_groups.is_empty()).expect("the join");
    assert_eq!(joined.copartition_groups[0].source_topics, ["names"]);
    assert_eq!(joined.copartition_groups[0].repartition_source_topics, ["rekey-by-id-repartition"]);
}
