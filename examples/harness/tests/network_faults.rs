//! Network faults between the application and the broker, injected by the test proxy
//! ([`dekaf_streams_harness::faults::proxy`]) at the exact step that matters.
//!
//! Needs a broker started by `scripts/kafka.sh` (it has the `PROXIED` listener):
//! `eval "$(scripts/kafka.sh env)"` exports `DEKAF_BOOTSTRAP`, `DEKAF_PROXIED_LISTENER` and
//! `DEKAF_PROXY_ADDRESS`. The tests share the proxy's address and run one at a time.
//!
//! | test | fault | what must hold |
//! |---|---|---|
//! | `a_late_offset_commit_…` | a `TxnOffsetCommit` of an aborted interval delivered late | refused; exactly once |
//! | `a_member_partitioned_…` | one of two instances cut off from the broker (its group coordinator) | fenced, tasks move, rejoins when healed; exactly once |
//! | `a_broker_stall_…` | all traffic of an instance stalled past its request timeout | no loss, no duplicate |
//! | `a_slow_link_…` | every frame delayed 200 ms both ways | progress; exactly once |
//! | `a_lost_heartbeat_response_…` | the heartbeat response that gives a member its tasks never arrives | the member learns them and processes; exactly once |
//! | `a_heartbeat_answered_with_an_error_…` | that response arrives as `COORDINATOR_NOT_AVAILABLE` while the coordinator keeps the assignment | the member learns its tasks and processes; exactly once |

/// Every test of this file is named `on_the_proxy::…`: `scripts/test.sh` runs them (one at a
/// time, they share the proxy) beside the other tests, which skip them with
/// `--skip on_the_proxy::`; most of their time is waiting for timeouts to pass.
mod on_the_proxy {
    use std::collections::HashMap;
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use dekaf_streams::ProcessingGuarantee;
    use dekaf_streams::prelude::*;
    use dekaf_streams_harness::e2e::{InProcess, Reader, fresh, wait_for_members_with_tasks};
    use dekaf_streams_harness::faults::proxy::{
        END_TXN, INIT_PRODUCER_ID, Proxy, Request, TXN_OFFSET_COMMIT,
    };
    use dekaf_streams_harness::kafka_io::{bootstrap, produce, read_all};

    topology! {
        /// Copies every record: an input record lost or doubled shows in the output at once.
        pub StaleOffsets = "net-stale-offsets" {
            stream("net-stale-offsets-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-stale-offsets-out", Utf8, Utf8);
        }
    }

    topology! {
        /// Copies every record (upper-cased) for the partition test.
        pub Partitioned = "net-partition" {
            stream("net-partition-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-partition-out", Utf8, Utf8);
        }
    }

    topology! {
        /// Copies every record (upper-cased) for the stall test.
        pub Stalled = "net-stall" {
            stream("net-stall-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-stall-out", Utf8, Utf8);
        }
    }

    topology! {
        /// Copies every record (upper-cased) for the slow-link test.
        pub SlowLink = "net-slow" {
            stream("net-slow-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-slow-out", Utf8, Utf8);
        }
    }

    topology! {
        /// Copies every record (upper-cased) for the failed-response test.
        pub FailedResponse = "net-failed-response" {
            stream("net-failed-response-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-failed-response-out", Utf8, Utf8);
        }
    }

    topology! {
        /// Copies every record (upper-cased) for the lost-response test.
        pub LostResponse = "net-lost-response" {
            stream("net-lost-response-in", Utf8, Utf8)
                .map_values(|v| v.to_uppercase())
                .to("net-lost-response-out", Utf8, Utf8);
        }
    }

    /// One test at a time: they all listen on the proxy's address.
    static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

    /// The proxy's listen address and the broker's proxied listener, from the environment.
    fn proxy_addresses() -> (SocketAddr, SocketAddr) {
        let var = |name: &str| {
            std::env::var(name)
                .unwrap_or_else(|_| {
                    panic!(
                        "{name} is not set: start the broker with scripts/kafka.sh (it has the \
                     PROXIED listener) and export what `scripts/kafka.sh env` prints"
                    )
                })
                .parse::<SocketAddr>()
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        };
        (var("DEKAF_PROXY_ADDRESS"), var("DEKAF_PROXIED_LISTENER"))
    }

    /// Records `k<from>..k<to>` with values `v<i>`.
    fn records(from: usize, to: usize) -> Vec<(String, String)> {
        (from..to)
            .map(|i| (format!("k{i:05}"), format!("v{i}")))
            .collect()
    }

    async fn send(servers: &str, topic: &str, batch: &[(String, String)]) {
        produce(
            servers,
            topic,
            batch
                .iter()
                .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes()))),
        )
        .await
        .expect("produce input");
    }

    /// Every output key with how often it was written (read_committed).
    async fn output_counts(servers: &str, topic: &str) -> HashMap<String, usize> {
        let records = read_all(
            servers,
            topic,
            Duration::from_secs(2),
            Duration::from_secs(30),
        )
        .await
        .expect("read output");
        let mut counts = HashMap::new();
        for r in records {
            let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
            *counts.entry(key).or_insert(0) += 1;
        }
        counts
    }

    /// The first partition error code of a `TxnOffsetCommit` response frame (v3: flexible
    /// header, throttle time, topics with partitions), `None` when it does not parse.
    fn txn_offset_commit_error(frame: &[u8]) -> Option<i16> {
        use kafka_protocol::messages::{ResponseHeader, TxnOffsetCommitResponse};
        use kafka_protocol::protocol::Decodable;
        let mut bytes = bytes::Bytes::copy_from_slice(frame.get(4..)?);
        ResponseHeader::decode(&mut bytes, 1).ok()?;
        let response = TxnOffsetCommitResponse::decode(&mut bytes, 3).ok()?;
        response
            .topics
            .iter()
            .flat_map(|t| t.partitions.iter())
            .map(|p| p.error_code)
            .next()
    }

    fn offset_commits_after(requests: &[Request], after: u64) -> Vec<Request> {
        requests
            .iter()
            .filter(|r| r.api_key == TXN_OFFSET_COMMIT && r.id > after)
            .cloned()
            .collect()
    }

    /// A `TxnOffsetCommit` of an aborted interval that reaches the group coordinator late, while
    /// the next transaction of the same producer is open, must not commit: its offsets lie past
    /// the aborted records, which would then never be processed again (the loss seen once in
    /// twelve fault runs: every offset committed, a stretch of records never counted).
    ///
    /// The proxy holds every `TxnOffsetCommit` until the application's commit gives up and aborts
    /// the interval; holds the next transaction's `EndTxn`; lets that transaction's own
    /// `TxnOffsetCommit` through; then delivers the held ones of the aborted interval, and lets the
    /// transaction commit. Every input record must be in the output exactly once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_late_offset_commit_of_an_aborted_interval_does_not_commit() {
        let _serial = SERIAL.lock().await;
        let servers = bootstrap();
        let (listen, proxied) = proxy_addresses();
        let (input, output) = ("net-stale-offsets-in", "net-stale-offsets-out");
        fresh(&servers, "net-stale-offsets", &[(input, 1), (output, 1)]).await;
        let proxy = Proxy::start(listen, proxied)
            .await
            .expect("start the proxy");
        let streams = dekaf_streams::KafkaStreams::builder(StaleOffsets)
            .bootstrap_servers(proxy.address().to_string())
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            // Longer than the commit's own patience (30 s): the application gives up on the offsets
            // and aborts before the broker would abort the transaction for its timeout (which
            // bumps the epoch by itself).
            .transaction_timeout(Duration::from_secs(60))
            .cache_max_bytes(0)
            // A request unanswered for 6 s is given up (and its connection closed) by librdkafka:
            // the held offsets are retried a few times within the commit's 30 s.
            .property("socket.timeout.ms", "6000")
            .build()
            .expect("valid settings");
        let app = InProcess::run(streams);

        // Warm up: the first records go through.
        send(&servers, input, &records(0, 100)).await;
        let warm = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                if output_counts(&servers, output).await.len() >= 100 {
                    return;
                }
            }
        })
        .await;
        assert!(warm.is_ok(), "the first 100 records did not come through");

        // The interval's offsets never reach the coordinator in time: the commit gives up and the
        // interval is aborted. Nothing else is sent meanwhile (no new input, so no records are
        // produced behind the held request, whose timeout would make librdkafka bump the epoch
        // by itself): only the offsets are late.
        proxy.hold(TXN_OFFSET_COMMIT);
        let armed = proxy.requests().last().map_or(0, |r| r.id);
        send(&servers, input, &records(100, 150)).await;
        let first = proxy
            .wait_for(Duration::from_secs(60), "a held TxnOffsetCommit", |rs| {
                !offset_commits_after(rs, armed).is_empty()
            })
            .await
            .expect("the application commits");
        let first_held = offset_commits_after(&first, armed)[0].id;
        // The abort: EndTxn (abort_transaction) or InitProducerId (a new producer fencing the old).
        let ended = proxy
            .wait_for(Duration::from_secs(90), "the interval's abort", |rs| {
                rs.iter().any(|r| {
                    r.id > first_held
                        && (r.api_key == END_TXN || r.api_key == INIT_PRODUCER_ID)
                        && r.forwarded
                })
            })
            .await
            .expect("the application aborts the interval");
        let abort = ended
            .iter()
            .find(|r| r.id > first_held && (r.api_key == END_TXN || r.api_key == INIT_PRODUCER_ID))
            .map(|r| r.id)
            .expect("the abort");
        // The redone interval covers more input than the aborted one: late offsets that commit
        // move the group back, and the records after them are written twice once the task starts
        // again from the group's offsets.
        send(&servers, input, &records(150, 200)).await;
        let redone = proxy
            .wait_for(
                Duration::from_secs(90),
                "the next transaction's TxnOffsetCommit",
                |rs| !offset_commits_after(rs, abort).is_empty(),
            )
            .await
            .expect("the application commits again");
        let next = offset_commits_after(&redone, abort)[0].id;
        let stale: Vec<u64> = offset_commits_after(&redone, armed)
            .iter()
            .filter(|r| r.id < abort)
            .map(|r| r.id)
            .collect();
        assert!(
            !stale.is_empty(),
            "no TxnOffsetCommit of the aborted interval was held"
        );
        // The next transaction's commit waits until the late offsets have been delivered.
        proxy.hold(END_TXN);
        proxy.pass(TXN_OFFSET_COMMIT);
        proxy.release(next);
        proxy
            .wait_for(
                Duration::from_secs(30),
                "the next transaction's EndTxn",
                |rs| {
                    rs.iter()
                        .any(|r| r.api_key == END_TXN && r.id > next && r.held)
                },
            )
            .await
            .expect("the application ends the next transaction");
        for id in &stale {
            proxy.release(*id);
        }
        proxy
            .wait_for(Duration::from_secs(30), "the late offsets answered", |rs| {
                stale.iter().all(|id| rs[*id as usize].answered)
            })
            .await
            .expect("the broker answers the late offsets");
        // The broker must refuse them: the abort ended the producer epoch they carry. (With an
        // abort that keeps the epoch, Kafka 4.4 answers them with no error: they join the open
        // transaction, and their offsets commit with it.)
        let requests = proxy.requests();
        for id in &stale {
            let request = &requests[*id as usize];
            let code = request
                .response
                .as_deref()
                .and_then(txn_offset_commit_error);
            // What the connection carried, to tell a refusal from a response that did not decode.
            let on_connection: Vec<(u64, i16, i16, i32, bool, bool)> = requests
                .iter()
                .filter(|r| r.connection == request.connection)
                .map(|r| {
                    (
                        r.id,
                        r.api_key,
                        r.api_version,
                        r.correlation_id,
                        r.forwarded,
                        r.answered,
                    )
                })
                .collect();
            assert!(
                code.is_some_and(|c| c != 0),
                "the late TxnOffsetCommit {id} of the aborted interval was accepted into the next \
             transaction (error code {code:?}): its offsets would commit with it; request \
             version {}, correlation id {}, response {:02x?}; requests on its connection (id, \
             api, version, correlation id, forwarded, answered): {on_connection:?}",
                request.api_version,
                request.correlation_id,
                request.response.as_deref().map(|f| &f[..f.len().min(96)]),
            );
        }
        proxy.pass(END_TXN);
        for r in proxy.requests().iter().filter(|r| r.held) {
            proxy.release(r.id);
        }
        // Caught up and idle: every record so far out once.
        let caught_up = tokio::time::timeout(Duration::from_secs(60), async {
            loop {
                if output_counts(&servers, output).await.len() >= 200 {
                    return;
                }
            }
        })
        .await;
        assert!(
            caught_up.is_ok(),
            "the first 200 records did not come through"
        );
        // The task starts again from the group's committed offsets (a restart, as after a crash
        // or a move to another instance), then the rest of the input comes.
        app.stop().await.expect("the application stops cleanly");
        let streams = dekaf_streams::KafkaStreams::builder(StaleOffsets)
            .bootstrap_servers(&servers)
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            .cache_max_bytes(0)
            .build()
            .expect("valid settings");
        let app = InProcess::run(streams);
        send(&servers, input, &records(200, 500)).await;

        // Every record exactly once, read by an independent read_committed consumer.
        let expected = 500;
        let mut counts = HashMap::new();
        for _ in 0..30 {
            counts = output_counts(&servers, output).await;
            if counts.len() >= expected {
                break;
            }
        }
        let stopped = app.stop().await;
        let missing: Vec<String> = records(0, expected)
            .into_iter()
            .map(|(k, _)| k)
            .filter(|k| !counts.contains_key(k))
            .collect();
        let doubled: Vec<&String> = counts
            .iter()
            .filter(|(_, n)| **n > 1)
            .map(|(k, _)| k)
            .collect();
        assert!(
            missing.is_empty() && doubled.is_empty(),
            "not exactly once: {} records missing (first {:?}), {} doubled (e.g. {:?})",
            missing.len(),
            missing.first(),
            doubled.len(),
            doubled.first()
        );
        stopped.expect("the application stops cleanly");
    }

    /// A record's key and value as `produce` takes them.
    type KeyValue<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

    /// Produces records `k<i>` -> `v<i>` to `topic` in small batches, one batch every 50 ms, from
    /// `from` on until stopped: input arriving throughout a fault.
    struct Feeder {
        stop: Arc<AtomicBool>,
        sent: Arc<AtomicUsize>,
        task: tokio::task::JoinHandle<()>,
    }

    impl Feeder {
        fn start(servers: &str, topic: &str, from: usize) -> Feeder {
            let stop = Arc::new(AtomicBool::new(false));
            let sent = Arc::new(AtomicUsize::new(from));
            let task = tokio::spawn({
                let (servers, topic) = (servers.to_owned(), topic.to_owned());
                let (stop, sent) = (Arc::clone(&stop), Arc::clone(&sent));
                async move {
                    while !stop.load(Ordering::SeqCst) {
                        let at = sent.load(Ordering::SeqCst);
                        let batch = records(at, at + 10);
                        // Collected first: a spawned task's future must not hold the closure.
                        let pairs: Vec<KeyValue<'_>> = batch
                            .iter()
                            .map(|(k, v)| (Some(k.as_bytes()), Some(v.as_bytes())))
                            .collect();
                        produce(&servers, &topic, pairs)
                            .await
                            .expect("produce input");
                        sent.store(at + 10, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            });
            Feeder { stop, sent, task }
        }

        /// Records sent so far (keys `k<from>`..`k<sent>`).
        fn sent(&self) -> usize {
            self.sent.load(Ordering::SeqCst)
        }

        /// Stops it; returns the end of the keys it sent.
        async fn stop(self) -> usize {
            self.stop.store(true, Ordering::SeqCst);
            self.task.await.expect("the feeder does not panic");
            self.sent.load(Ordering::SeqCst)
        }
    }

    /// How many times each key was read.
    fn per_key(records: &[dekaf_streams_harness::kafka_io::ReadRecord]) -> HashMap<String, usize> {
        let mut seen = HashMap::new();
        for r in records {
            let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
            *seen.entry(key).or_insert(0) += 1;
        }
        seen
    }

    /// Whether keys `k0`..`k<n>` were all read.
    fn all_out(records: &[dekaf_streams_harness::kafka_io::ReadRecord], n: usize) -> bool {
        let seen = per_key(records);
        (0..n).all(|i| seen.contains_key(&format!("k{i:05}")))
    }

    /// Exactly-once check of `k0`..`k<n>`: each key read once with its upper-cased value, and no
    /// other key.
    fn assert_each_once(read: &[dekaf_streams_harness::kafka_io::ReadRecord], n: usize) {
        let seen = per_key(read);
        let wrong: Vec<String> = records(0, n)
            .into_iter()
            .filter(|(k, _)| seen.get(k) != Some(&1))
            .map(|(k, _)| format!("{k}: {:?}", seen.get(&k)))
            .collect();
        assert!(
            wrong.is_empty(),
            "not exactly once: {} keys wrong, first {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(10)]
        );
        assert_eq!(seen.len(), n, "keys that were never sent came out");
        for r in read {
            let key = String::from_utf8_lossy(r.key.as_deref().unwrap_or_default()).into_owned();
            let value =
                String::from_utf8_lossy(r.value.as_deref().unwrap_or_default()).into_owned();
            let i = key.trim_start_matches('k').trim_start_matches('0');
            let i = if i.is_empty() { "0" } else { i };
            assert_eq!(value, format!("V{i}"), "the value of {key}");
        }
    }

    /// One of two instances is cut off from the broker, which is its group coordinator: its open
    /// connections stall (nothing moves either way, as with a link that drops every packet) and
    /// new ones are refused, while the other instance reaches the broker directly. The coordinator
    /// must fence the partitioned member (its session expires) and move its tasks to the other
    /// instance, which then processes the input that arrives meanwhile; when the partition heals
    /// (the stalled bytes are delivered late, as TCP would retransmit them) the member rejoins and
    /// gets tasks again. Every record comes out exactly once, as an independent read_committed
    /// reader sees it, and neither instance stops.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_member_partitioned_from_its_coordinator_is_fenced_and_rejoins_when_healed() {
        let _serial = SERIAL.lock().await;
        let servers = bootstrap();
        let (listen, proxied) = proxy_addresses();
        let (group, input, output) = ("net-partition", "net-partition-in", "net-partition-out");
        fresh(&servers, group, &[(input, 4), (output, 4)]).await;
        let proxy = Proxy::start(listen, proxied)
            .await
            .expect("start the proxy");
        let instance = |bootstrap: String| {
            dekaf_streams::KafkaStreams::builder(Partitioned)
                .bootstrap_servers(bootstrap)
                .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
                // The partitioned member's open transaction holds read_committed readers back until
                // the broker aborts it.
                .transaction_timeout(Duration::from_secs(5))
                .cache_max_bytes(0)
                .build()
                .expect("valid settings")
        };
        let partitioned = InProcess::run(instance(proxy.address().to_string()));
        let direct = InProcess::run(instance(servers.clone()));
        assert!(
            wait_for_members_with_tasks(&servers, group, 2, Duration::from_secs(60)).await,
            "both instances hold tasks within 60 s"
        );
        let mut reader = Reader::new(&servers, output).await;
        let feeder = Feeder::start(&servers, input, 0);
        assert!(
            reader
                .read_until(Duration::from_secs(60), |r| per_key(r).len() >= 100)
                .await,
            "the first records came out within 60 s"
        );

        // The partition.
        proxy.refuse(true);
        proxy.stall();
        let cut = Instant::now();
        let cut_at = feeder.sent();
        assert!(
            wait_for_members_with_tasks(&servers, group, 1, Duration::from_secs(90)).await,
            "the partitioned member was not fenced (or its tasks did not move) within 90 s"
        );
        eprintln!("fenced and its tasks moved after {:?}", cut.elapsed());
        // The other instance processes what arrives for every partition meanwhile, the moved
        // tasks' included.
        let during = cut_at + 200;
        while feeder.sent() < during {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(
            reader
                .read_until(Duration::from_secs(90), |r| all_out(r, during))
                .await,
            "the records sent during the partition did not all come out within 90 s"
        );
        eprintln!(
            "caught up without the partitioned member after {:?}",
            cut.elapsed()
        );

        // Healed: the stalled bytes flow and new connections are accepted; the member rejoins.
        proxy.refuse(false);
        proxy.resume();
        let healed = Instant::now();
        assert!(
            wait_for_members_with_tasks(&servers, group, 2, Duration::from_secs(90)).await,
            "the partitioned member did not rejoin with tasks within 90 s of the heal"
        );
        eprintln!("rejoined {:?} after the heal", healed.elapsed());
        let after = feeder.sent() + 200;
        while feeder.sent() < after {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let end = feeder.stop().await;
        let done = reader
            .read_until(Duration::from_secs(90), |r| all_out(r, end))
            .await;
        let stopped = (partitioned.stop().await, direct.stop().await);
        reader.drain(Duration::from_secs(2)).await;
        assert!(done, "not every record came out within 90 s after the heal");
        stopped
            .0
            .expect("the partitioned instance kept running and stops cleanly");
        stopped.1.expect("the other instance stops cleanly");
        assert_each_once(&reader.records, end);
    }

    /// All traffic of an instance stalls (a broker frozen, or a link black-holing packets) while
    /// input arrives and a transaction is open, for longer than its request timeout: librdkafka
    /// gives its requests up and reconnects, and the new connections stall too. Released, the
    /// stalled requests reach the broker late. No record may be lost or written twice.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_broker_stall_past_the_request_timeout_loses_and_doubles_nothing() {
        let _serial = SERIAL.lock().await;
        let servers = bootstrap();
        let (listen, proxied) = proxy_addresses();
        let (group, input, output) = ("net-stall", "net-stall-in", "net-stall-out");
        fresh(&servers, group, &[(input, 2), (output, 2)]).await;
        let proxy = Proxy::start(listen, proxied)
            .await
            .expect("start the proxy");
        let request_timeout = Duration::from_secs(5);
        let streams = dekaf_streams::KafkaStreams::builder(Stalled)
            .bootstrap_servers(proxy.address().to_string())
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            .transaction_timeout(Duration::from_secs(10))
            .cache_max_bytes(0)
            // librdkafka's request timeout: a request unanswered this long is given up and its
            // connection closed.
            .property("socket.timeout.ms", request_timeout.as_millis().to_string())
            .build()
            .expect("valid settings");
        let app = InProcess::run(streams);
        assert!(
            wait_for_members_with_tasks(&servers, group, 1, Duration::from_secs(60)).await,
            "the instance holds tasks within 60 s"
        );
        let mut reader = Reader::new(&servers, output).await;
        let feeder = Feeder::start(&servers, input, 0);
        assert!(
            reader
                .read_until(Duration::from_secs(60), |r| per_key(r).len() >= 100)
                .await,
            "the first records came out within 60 s"
        );

        // Stalled mid-stream: whatever was on its way waits in the proxy.
        let opened_before = proxy.connections();
        proxy.stall();
        let stalled = Instant::now();
        // Past the request timeout: the client gave a request up and closed a connection it had
        // opened before the stall, and came back on a new connection (which stalls too).
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let gave_up = proxy
                .closed_by_client()
                .iter()
                .any(|(c, at)| *c < opened_before && *at >= stalled);
            if gave_up {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the client did not give a stalled request up within 60 s"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        proxy
            .wait_for(
                Duration::from_secs(60),
                "a request on a connection opened during the stall",
                |rs| rs.iter().any(|r| r.connection >= opened_before),
            )
            .await
            .expect("the client reconnects");
        assert!(
            stalled.elapsed() >= request_timeout,
            "the client gave up before its request timeout: {:?}",
            stalled.elapsed()
        );
        eprintln!("released after {:?}", stalled.elapsed());
        proxy.resume();
        let after = feeder.sent() + 200;
        while feeder.sent() < after {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let end = feeder.stop().await;
        let done = reader
            .read_until(Duration::from_secs(120), |r| all_out(r, end))
            .await;
        let stopped = app.stop().await;
        reader.drain(Duration::from_secs(2)).await;
        assert!(
            done,
            "not every record came out within 120 s after the stall"
        );
        stopped.expect("the instance kept running and stops cleanly");
        assert_each_once(&reader.records, end);
    }

    /// Every frame takes 200 ms more each way (a slow link): a commit's round trips add up to
    /// seconds, heartbeats take 400 ms. Processing must go on (output grows while input arrives)
    /// and stay exactly once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_slow_link_slows_processing_but_keeps_it_exactly_once() {
        let _serial = SERIAL.lock().await;
        let servers = bootstrap();
        let (listen, proxied) = proxy_addresses();
        let (group, input, output) = ("net-slow", "net-slow-in", "net-slow-out");
        fresh(&servers, group, &[(input, 2), (output, 2)]).await;
        let proxy = Proxy::start(listen, proxied)
            .await
            .expect("start the proxy");
        proxy.delay(Duration::from_millis(200));
        let streams = dekaf_streams::KafkaStreams::builder(SlowLink)
            .bootstrap_servers(proxy.address().to_string())
            .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
            .cache_max_bytes(0)
            .build()
            .expect("valid settings");
        let started = Instant::now();
        let app = InProcess::run(streams);
        let mut reader = Reader::new(&servers, output).await;
        let feeder = Feeder::start(&servers, input, 0);
        // Progress while input keeps arriving: 100, then 300, then 600 records out.
        for n in [100, 300, 600] {
            assert!(
                reader
                    .read_until(Duration::from_secs(120), |r| per_key(r).len() >= n)
                    .await,
                "{n} records did not come out within 120 s over the slow link ({} sent)",
                feeder.sent()
            );
            eprintln!("{n} out after {:?}", started.elapsed());
        }
        let end = feeder.stop().await;
        let done = reader
            .read_until(Duration::from_secs(120), |r| all_out(r, end))
            .await;
        let stopped = app.stop().await;
        reader.drain(Duration::from_secs(2)).await;
        assert!(
            done,
            "not every record came out within 120 s over the slow link"
        );
        stopped.expect("the instance stops cleanly");
        assert_each_once(&reader.records, end);
    }

    /// The heartbeat response that gives a new member its tasks (half of what the first instance
    /// held, released by it) never arrives: the connection closes right after the coordinator
    /// stored the new assignment, as when its broker dies then. A streams group's coordinator sends
    /// an assignment only in the response to the heartbeat that changed it (or to a join), so the
    /// new member, heartbeating again with its previous epoch and no tasks, would hear nothing
    /// more about them: they would stay assigned to it, processed by no one, until the next
    /// rebalance (a fault-loop run saw every member sit idle for 4.5 minutes this way, output
    /// short for every word). The member must learn its tasks (it describes the group after a lost
    /// response) and process them; exactly once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_lost_heartbeat_response_does_not_leave_tasks_unprocessed() {
        member_learns_tasks_its_response_did_not_bring(
            LostResponse,
            ("net-lost-response-in", "net-lost-response-out"),
            Proxy::lose_next_assignment,
            Proxy::assignments_lost,
        )
        .await;
    }

    /// The heartbeat response that gives a new member its tasks arrives as an error
    /// (`COORDINATOR_NOT_AVAILABLE`), while the coordinator keeps the assignment: what Kafka 4.4's
    /// coordinator does when the write of the new assignment times out (its `CoordinatorRuntime`
    /// fails the write event after 5 s, the member gets the error, and the records commit once the
    /// replicas catch up). Seen in a fault-loop run over SASL_SSL: a member assigned the count
    /// task of one partition after its old owner's session expired got the error, never learned
    /// the task, and the partition's backlog was counted by no one for the rest of the run (45
    /// words short, no gap in any word's updates). The member must treat an error response like a
    /// lost one and learn its tasks; exactly once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_heartbeat_answered_with_an_error_after_the_assignment_changed_does_not_leave_tasks_unprocessed()
     {
        member_learns_tasks_its_response_did_not_bring(
            FailedResponse,
            ("net-failed-response-in", "net-failed-response-out"),
            |proxy| proxy.fail_next_assignment(COORDINATOR_NOT_AVAILABLE),
            Proxy::assignments_failed,
        )
        .await;
    }

    /// Kafka's COORDINATOR_NOT_AVAILABLE.
    const COORDINATOR_NOT_AVAILABLE: i16 = 15;

    /// One instance runs with input arriving; a second joins through the proxy, which does `fault`
    /// to the heartbeat response that gives it its tasks (counted by `faults`); every record must
    /// come out exactly once, those of the second instance's partitions within 60 s of its
    /// assignment.
    async fn member_learns_tasks_its_response_did_not_bring<T: Topology + Send + Clone>(
        topology: T,
        (input, output): (&str, &str),
        fault: impl FnOnce(&Proxy),
        faults: impl Fn(&Proxy) -> u64,
    ) {
        let _serial = SERIAL.lock().await;
        let servers = bootstrap();
        let (listen, proxied) = proxy_addresses();
        let group = T::APPLICATION_ID;
        fresh(&servers, group, &[(input, 4), (output, 4)]).await;
        let proxy = Proxy::start(listen, proxied)
            .await
            .expect("start the proxy");
        let instance = |bootstrap: String| {
            dekaf_streams::KafkaStreams::builder(topology.clone())
                .bootstrap_servers(bootstrap)
                .processing_guarantee(ProcessingGuarantee::ExactlyOnce)
                .cache_max_bytes(0)
                .build()
                .expect("valid settings")
        };
        let first = InProcess::run(instance(servers.clone()));
        assert!(
            wait_for_members_with_tasks(&servers, group, 1, Duration::from_secs(60)).await,
            "the first instance holds tasks within 60 s"
        );
        let mut reader = Reader::new(&servers, output).await;
        let feeder = Feeder::start(&servers, input, 0);
        assert!(
            reader
                .read_until(Duration::from_secs(60), |r| per_key(r).len() >= 50)
                .await,
            "the first records came out within 60 s"
        );
        // The second instance (through the proxy) does not get the response that gives it tasks.
        fault(&proxy);
        let second = InProcess::run(instance(proxy.address().to_string()));
        let joined = Instant::now();
        let moved = wait_for_members_with_tasks(&servers, group, 2, Duration::from_secs(60)).await;
        assert!(moved, "the second instance was assigned tasks within 60 s");
        // Assigned is not processing: every record sent from now on must come out, those of the
        // second instance's partitions included, while the first instance does not hold them.
        let after = feeder.sent() + 200;
        while feeder.sent() < after {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let caught_up = reader
            .read_until(Duration::from_secs(60), |r| all_out(r, after))
            .await;
        assert_eq!(
            faults(&proxy),
            1,
            "the response with the second instance's tasks did not reach it"
        );
        assert!(
            caught_up,
            "the records of the tasks given in the response that did not arrive were not processed within 60 s"
        );
        eprintln!("processing on both after {:?}", joined.elapsed());
        let end = feeder.stop().await;
        let done = reader
            .read_until(Duration::from_secs(90), |r| all_out(r, end))
            .await;
        let stopped = (first.stop().await, second.stop().await);
        reader.drain(Duration::from_secs(2)).await;
        assert!(done, "not every record came out within 90 s");
        stopped.0.expect("the first instance stops cleanly");
        stopped.1.expect("the second instance stops cleanly");
        assert_each_once(&reader.records, end);
    }
}
