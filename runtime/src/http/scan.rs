//! Scans (`all` and `range`): this instance's page of its own tasks, and the pages of every
//! instance merged into one that covers each partition of the store exactly once.
//!
//! A stale scan (`stale=true`) may read standby copies, so several instances may offer the
//! same partition. It first asks every instance which partitions it answers for and from which
//! copy (a page of one entry), chooses one instance per partition (an active task first, else
//! the standby with the smallest known lag, this instance first on a tie), and then asks each
//! chosen instance for its page of exactly the partitions chosen from it (`partitions=`): the
//! pages then cover each partition once, and merge as a strict scan's do.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::QueryServer;
use super::reply::{error_body, query_error, relay, replicas_json, reply, unavailable};
use super::routes::{Local, LocalRange, PageEntry, ScanRead, StoreRoute};
use super::url::percent_encode;
use crate::query::{HostInfo, Replica};
use crate::task::Topology;

impl<T: Topology> QueryServer<T> {
    /// This instance's page of a scan, read off the runtime's worker threads.
    async fn local_page(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        scan: &ScanRead,
    ) -> Result<LocalRange, Response<Full<Bytes>>> {
        let (route, queries, scan) = (Arc::clone(route), self.queries.clone(), scan.clone());
        let read = tokio::task::spawn_blocking(move || route.range(&queries, &scan)).await;
        match read {
            Ok(Ok(local)) => Ok(local),
            Ok(Err(Local::Failed(error))) => Err(query_error(&error)),
            Ok(Err(Local::BadRequest(message))) => {
                Err(reply(StatusCode::BAD_REQUEST, &error_body(&message)))
            }
            Ok(Err(Local::Found(_) | Local::NoValue)) => Err(unavailable("unexpected answer")),
            Err(e) => Err(unavailable(&format!("the store read failed: {e}"))),
        }
    }

    /// Another instance's page of `scan` (`scope=local`): its answer, relayed as it is when it
    /// is not `200`, `503` when it did not answer or answered no JSON.
    async fn remote_page(
        &self,
        host: &HostInfo,
        name: &str,
        scan: &ScanRead,
        partition_count: i32,
    ) -> Result<LocalRange, Response<Full<Bytes>>> {
        let answer = match self.settings.forward.get(host, &target(name, scan)).await {
            Ok(answer) if answer.status == StatusCode::OK => answer,
            Ok(answer) => return Err(relay(answer)),
            Err(_) => {
                return Err(unavailable(&format!(
                    "an instance hosting partitions of `{name}` did not answer: retry"
                )));
            }
        };
        match serde_json::from_slice::<Value>(&answer.body) {
            Ok(body) => Ok(remote_page(&body, partition_count)),
            Err(_) => Err(unavailable(&format!(
                "an instance hosting partitions of `{name}` answered no JSON: retry"
            ))),
        }
    }

    /// `all` or `range`: one page of this instance's tasks, or of every instance's, covering
    /// every partition.
    pub(super) async fn scan(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        scan: &ScanRead,
        internal: bool,
        local_only: bool,
    ) -> Response<Full<Bytes>> {
        if scan.stale && !local_only {
            return self.stale_scan(route, scan).await;
        }
        let local = match self.local_page(route, scan).await {
            Ok(local) => local,
            Err(response) => return response,
        };
        if local_only {
            let next = if local.more {
                local.entries.last().map(|e| e.token.clone())
            } else {
                None
            };
            return reply(
                StatusCode::OK,
                &super::reply::range_body(&local, next, internal, scan.stale),
            );
        }
        let count = local.partition_count;
        let mut parts = vec![local];
        let this = self.queries.this_host().cloned();
        for host in self.queries.all_hosts() {
            if Some(&host) == this.as_ref() {
                continue;
            }
            match self.remote_page(&host, route.name(), scan, count).await {
                Ok(part) => parts.push(part),
                Err(response) => return response,
            }
        }
        self.merged(route.name(), parts, count, scan)
    }

    /// A stale scan of the group: which instance answers for which partition, then the pages
    /// of exactly those partitions (see the module docs).
    async fn stale_scan(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        scan: &ScanRead,
    ) -> Response<Full<Bytes>> {
        let name = route.name();
        // 1. What each instance offers: a page of one entry names its partitions and copies.
        let probe = ScanRead {
            after: None,
            only: None,
            limit: 1,
            ..scan.clone()
        };
        let local = match self.local_page(route, &probe).await {
            Ok(local) => local,
            Err(response) => return response,
        };
        let count = local.partition_count;
        let this = self.queries.this_host().cloned();
        // Each instance (`None`: this one) with the partitions it offers.
        let mut offers: Vec<Offer> = vec![(None, local.replicas)];
        for host in self.queries.all_hosts() {
            if Some(&host) == this.as_ref() {
                continue;
            }
            match self.remote_page(&host, name, &probe, count).await {
                Ok(part) => offers.push((Some(host), part.replicas)),
                // A stale read takes what answers: an instance that does not (or cannot yet)
                // is left out, and the partitions it alone holds are missing below.
                Err(response) if response.status() == StatusCode::SERVICE_UNAVAILABLE => {}
                Err(response) => return response,
            }
        }
        // 2. One instance per partition.
        let offered: Vec<Vec<(i32, Replica)>> = offers.iter().map(|(_, r)| r.clone()).collect();
        let chosen = match choose(&offered, count) {
            Ok(chosen) => chosen,
            Err(missing) => {
                return unavailable(&format!(
                    "no instance answers for partitions {missing:?} of `{name}`, not even from a \
                     standby replica: tasks are restoring or moving; retry"
                ));
            }
        };
        // 3. Each chosen instance's page of its partitions.
        let mut parts = Vec::new();
        for ((host, _), partitions) in offers.iter().zip(chosen) {
            if partitions.is_empty() {
                continue;
            }
            let read = ScanRead {
                only: Some(partitions),
                ..scan.clone()
            };
            let part = match host {
                None => self.local_page(route, &read).await,
                Some(host) => self.remote_page(host, name, &read, count).await,
            };
            match part {
                Ok(part) => parts.push(part),
                Err(response) => return response,
            }
        }
        self.merged(name, parts, count, scan)
    }

    /// The pages of the instances as one, when together they cover every partition exactly
    /// once (`503` otherwise: tasks are moving).
    fn merged(
        &self,
        name: &str,
        parts: Vec<LocalRange>,
        count: i32,
        scan: &ScanRead,
    ) -> Response<Full<Bytes>> {
        let mut seen = BTreeSet::new();
        let mut twice = false;
        let mut replicas = Vec::new();
        for part in &parts {
            for (p, replica) in &part.replicas {
                twice |= !seen.insert(*p);
                replicas.push((*p, *replica));
            }
        }
        let missing: Vec<i32> = (0..count).filter(|p| !seen.contains(p)).collect();
        if twice || !missing.is_empty() {
            return unavailable(&format!(
                "the instances' answers do not cover every partition of `{name}` exactly once \
                 (missing {missing:?}): tasks are restoring or moving; retry"
            ));
        }
        replicas.sort_by_key(|(p, _)| *p);
        let (entries, next) = merge(parts, scan.limit);
        let entries: Vec<Value> = entries.into_iter().map(|e| e.json).collect();
        let mut body = json!({
            "partition_count": count,
            "partitions": (0..count).collect::<Vec<_>>(),
            "entries": entries,
            "next": next,
        });
        if scan.stale {
            body["replicas"] = replicas_json(&replicas);
        }
        reply(StatusCode::OK, &body)
    }
}

/// An instance (`None`: this one) and the partitions it offers, each with its copy.
type Offer = (Option<HostInfo>, Vec<(i32, Replica)>);

/// The path and query that ask another instance for its page of `scan` of store `name`.
fn target(name: &str, scan: &ScanRead) -> String {
    let mut query = vec![
        ("scope", "local".to_owned()),
        ("limit", scan.limit.to_string()),
    ];
    if let Some(f) = &scan.from {
        query.push(("from", f.clone()));
    }
    if let Some(t) = &scan.to {
        query.push(("to", t.clone()));
    }
    if let Some(t) = scan.earliest_end {
        query.push(("earliest_end", t.to_string()));
    }
    if let Some(t) = scan.latest_start {
        query.push(("latest_start", t.to_string()));
    }
    if let Some(after) = &scan.after {
        query.push(("after", after.token()));
    }
    if scan.stale {
        query.push(("stale", "true".to_owned()));
    }
    if let Some(only) = &scan.only {
        let list: Vec<String> = only.iter().map(i32::to_string).collect();
        query.push(("partitions", list.join(",")));
    }
    let query: Vec<String> = query
        .iter()
        .map(|(k, v)| format!("{k}={}", percent_encode(v)))
        .collect();
    format!(
        "/stores/{}/{}?{}",
        percent_encode(name),
        if scan.from.is_none() && scan.to.is_none() {
            "all"
        } else {
            "range"
        },
        query.join("&")
    )
}

/// Which instance reads which partition of a stale scan: per partition of `0..count`, of the
/// instances offering it (`offers`, each its partitions with the copy it reads), the one with
/// the active task, else the standby with the smallest known lag (an unknown lag last), the
/// earlier instance on a tie. The partitions chosen from each instance, in order; the
/// partitions nobody offers when there are some.
fn choose(offers: &[Vec<(i32, Replica)>], count: i32) -> Result<Vec<Vec<i32>>, Vec<i32>> {
    let rank = |replica: &Replica| match replica {
        Replica::Active => (0, 0),
        Replica::Standby { lag: Some(lag) } => (1, *lag),
        Replica::Standby { lag: None } => (2, 0),
    };
    let mut chosen = vec![Vec::new(); offers.len()];
    let mut missing = Vec::new();
    for p in 0..count {
        let best = offers
            .iter()
            .enumerate()
            .filter_map(|(i, offer)| {
                offer
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map(|(_, r)| (rank(r), i))
            })
            .min();
        match best {
            Some((_, i)) => chosen[i].push(p),
            None => missing.push(p),
        }
    }
    if missing.is_empty() {
        Ok(chosen)
    } else {
        Err(missing)
    }
}

/// Another instance's page, as its internal answer (`x-dekaf-forwarded`) carries it: each
/// entry's JSON without its partition and position, and the copies read (`"replicas"` of a
/// stale answer; active tasks otherwise).
fn remote_page(body: &Value, partition_count: i32) -> LocalRange {
    let int = |v: &Value| v.as_i64().and_then(|p| i32::try_from(p).ok());
    let replicas = match body["replicas"].as_array() {
        Some(replicas) => replicas
            .iter()
            .filter_map(|r| {
                let replica = if r["standby"].as_bool() == Some(true) {
                    Replica::Standby {
                        lag: r["lag"].as_i64(),
                    }
                } else {
                    Replica::Active
                };
                Some((int(&r["partition"])?, replica))
            })
            .collect(),
        None => body["partitions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(int)
                    .map(|p| (p, Replica::Active))
                    .collect()
            })
            .unwrap_or_default(),
    };
    let entries = body["entries"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let mut json = e.clone();
                    if let Value::Object(fields) = &mut json {
                        fields.remove("partition");
                        fields.remove("position");
                    }
                    PageEntry {
                        partition: int(&e["partition"]).unwrap_or(0),
                        token: e["position"].as_str().unwrap_or_default().to_owned(),
                        json,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    LocalRange {
        replicas,
        partition_count,
        entries,
        more: !body["next"].is_null(),
    }
}

/// The instances' pages merged into one of at most `limit` entries, partition after partition
/// (each partition is one instance's, already in key order), and the token of the next page.
/// An instance that has more entries than it sent bounds the page at its last entry: entries
/// of later partitions wait for the next page, so none is skipped.
fn merge(parts: Vec<LocalRange>, limit: usize) -> (Vec<PageEntry>, Option<String>) {
    let frontier = parts
        .iter()
        .filter(|p| p.more)
        .filter_map(|p| p.entries.last().map(|e| e.partition))
        .min();
    let some_more = parts.iter().any(|p| p.more);
    let mut entries: Vec<PageEntry> = parts.into_iter().flat_map(|p| p.entries).collect();
    // Stable: each partition's entries keep their (key) order.
    entries.sort_by_key(|e| e.partition);
    if let Some(frontier) = frontier {
        entries.retain(|e| e.partition <= frontier);
    }
    let cut = entries.len() > limit;
    entries.truncate(limit);
    let next = if cut || some_more {
        entries.last().map(|e| e.token.clone())
    } else {
        None
    };
    (entries, next)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(partitions: &[i32], entries: &[(i32, &str)], more: bool) -> LocalRange {
        LocalRange {
            replicas: partitions.iter().map(|p| (*p, Replica::Active)).collect(),
            partition_count: 4,
            entries: entries
                .iter()
                .map(|(p, k)| PageEntry {
                    partition: *p,
                    token: format!("{p}/{k}"),
                    json: json!({ "key": k }),
                })
                .collect(),
            more,
        }
    }

    fn keys(entries: &[PageEntry]) -> Vec<String> {
        entries.iter().map(|e| e.token.clone()).collect()
    }

    #[test]
    fn a_stale_scan_reads_each_partition_from_the_freshest_copy_offered() {
        let standby = |lag| Replica::Standby { lag };
        let offers = vec![
            // This instance: active 0, standbys of 1 (lag 5) and 2 (lag unknown).
            vec![
                (0, Replica::Active),
                (1, standby(Some(5))),
                (2, standby(None)),
            ],
            // Another: a standby of 0, 1 with less lag, 2 with unknown lag, active 3.
            vec![
                (0, standby(Some(0))),
                (1, standby(Some(2))),
                (2, standby(None)),
                (3, Replica::Active),
            ],
        ];
        // Active first, then the least known lag, then this instance.
        assert_eq!(choose(&offers, 4), Ok(vec![vec![0, 2], vec![1, 3]]));
        // Partitions nobody offers are named.
        assert_eq!(choose(&offers[..1], 5), Err(vec![3, 4]));
    }

    #[test]
    fn pages_merge_partition_after_partition_and_never_skip() {
        // Everything fits: no next page.
        let (entries, next) = merge(
            vec![
                part(&[1, 3], &[(1, "a"), (3, "b")], false),
                part(&[0, 2], &[(0, "c"), (2, "d")], false),
            ],
            10,
        );
        assert_eq!(keys(&entries), ["0/c", "1/a", "2/d", "3/b"]);
        assert_eq!(next, None);
        // Cut by the limit: the next page starts after the last entry given.
        let (entries, next) = merge(
            vec![
                part(&[1], &[(1, "a"), (1, "b")], false),
                part(&[0], &[(0, "c")], false),
            ],
            2,
        );
        assert_eq!(keys(&entries), ["0/c", "1/a"]);
        assert_eq!(next.as_deref(), Some("1/a"));
        // An instance with more entries than it sent (it stopped in partition 0) bounds the
        // page: partition 2's entries wait, or the token would skip the rest of partition 0.
        let (entries, next) = merge(
            vec![
                part(&[0, 1], &[(0, "a"), (0, "b")], true),
                part(&[2, 3], &[(2, "c")], false),
            ],
            10,
        );
        assert_eq!(keys(&entries), ["0/a", "0/b"]);
        assert_eq!(next.as_deref(), Some("0/b"));
    }
}
