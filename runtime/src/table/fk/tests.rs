//! The hash and the wire formats against bytes Kafka Streams 4.4 wrote (its `Murmur3`,
//! `SubscriptionWrapperSerde` and `SubscriptionResponseWrapperSerde`, run from the
//! kafka-streams-4.4.0 jar).

use super::*;

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

#[test]
fn murmur3_is_kafka_streams_hash128() {
    let cases: [(&str, u64, u64); 7] = [
        ("", 11324130426821486914, 10105219602051204376),
        ("a", 3702349557448790408, 16845676620377109099),
        ("alice", 14162827141865323576, 12341250047745895317),
        (
            "0123456789abcde",
            14159570896737626489,
            11587818338473965828,
        ),
        (
            "0123456789abcdef",
            1904622552327088487,
            15553225332059657905,
        ),
        (
            "0123456789abcdef0",
            9647562087207802550,
            13586245343677819832,
        ),
        (
            "the quick brown fox jumps over the lazy dog!",
            13306476939498501799,
            11204860930195819867,
        ),
    ];
    for (input, h1, h2) in cases {
        assert_eq!(murmur3::hash128(input.as_bytes()), [h1, h2], "{input:?}");
    }
}

#[test]
fn subscriptions_are_written_and_read_as_kafka_streams_does() {
    let hash = Some(fk_hash(b"v"));
    let java = unhex("0103e001ba9f5f750d0518bc9338ae3e72f3706b00000002");
    let sub = Subscription {
        hash,
        instruction: Instruction::PropagateOnlyIfFkValAvailable,
        primary_key: b"pk",
        primary_partition: Some(2),
    };
    let mut out = Vec::new();
    sub.write(&mut out);
    assert_eq!(out, java);
    assert_eq!(Subscription::read(&java), Ok(sub));

    let java = unhex("8101706b00000002");
    let sub = Subscription {
        hash: None,
        instruction: Instruction::DeleteKeyAndPropagate,
        primary_key: b"pk",
        primary_partition: Some(2),
    };
    out.clear();
    sub.write(&mut out);
    assert_eq!(out, java);
    assert_eq!(Subscription::read(&java), Ok(sub));
    assert!(Subscription::read(&[0x02, 0x00]).is_err(), "version 2");
    assert!(Subscription::read(&[0x01, 0x07]).is_err(), "instruction 7");
    assert!(Subscription::read(&[0x01]).is_err(), "truncated");
}

#[test]
fn responses_are_written_and_read_as_kafka_streams_does() {
    let java = unhex("00e001ba9f5f750d0518bc9338ae3e72f36676");
    let resp = Response {
        hash: Some(fk_hash(b"v")),
        foreign: Some(b"fv"),
    };
    let mut out = Vec::new();
    resp.write(&mut out);
    assert_eq!(out, java);
    assert_eq!(Response::read(&java), Ok(resp));
    let java = unhex("80");
    let resp = Response {
        hash: None,
        foreign: None,
    };
    out.clear();
    resp.write(&mut out);
    assert_eq!(out, java);
    assert_eq!(Response::read(&java), Ok(resp));
}
