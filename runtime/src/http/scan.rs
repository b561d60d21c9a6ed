//! Scans (`all` and `range`): this instance's page of its own tasks, and the pages of every
//! instance merged into one that covers each partition of the store exactly once.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

use super::QueryServer;
use super::page::Position;
use super::reply::{error_body, query_error, range_body, relay, reply, unavailable};
use super::routes::{Local, LocalRange, PageEntry, StoreRoute};
use super::url::percent_encode;
use crate::task::Topology;

impl<T: Topology> QueryServer<T> {
    /// This instance's page of a scan, read off the runtime's worker threads.
    async fn local_page(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        scan: &Scan<'_>,
    ) -> Result<LocalRange, Response<Full<Bytes>>> {
        let (route, queries) = (Arc::clone(route), self.queries.clone());
        let from = scan.from.map(str::to_owned);
        let to = scan.to.map(str::to_owned);
        let after = scan.after.clone();
        let limit = scan.limit;
        let read = tokio::task::spawn_blocking(move || {
            route.range(
                &queries,
                from.as_deref(),
                to.as_deref(),
                after.as_ref(),
                limit,
            )
        })
        .await;
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

    /// `all` or `range`: one page of this instance's tasks, or of every instance's, covering
    /// every partition.
    pub(super) async fn scan(
        &self,
        route: &Arc<dyn StoreRoute<T>>,
        scan: &Scan<'_>,
        internal: bool,
        local_only: bool,
    ) -> Response<Full<Bytes>> {
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
            return reply(StatusCode::OK, &range_body(&local, next, internal));
        }
        let mut parts = vec![local];
        let this = self.queries.this_host().cloned();
        let mut query = vec![
            ("scope".to_owned(), "local".to_owned()),
            ("limit".to_owned(), scan.limit.to_string()),
        ];
        if let Some(f) = scan.from {
            query.push(("from".into(), f.into()));
        }
        if let Some(t) = scan.to {
            query.push(("to".into(), t.into()));
        }
        if let Some(after) = &scan.after {
            query.push(("after".into(), after.token()));
        }
        let query: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", percent_encode(v)))
            .collect();
        let target = format!(
            "/stores/{}/{}?{}",
            percent_encode(route.name()),
            if scan.from.is_none() && scan.to.is_none() {
                "all"
            } else {
                "range"
            },
            query.join("&")
        );
        for host in self.queries.all_hosts() {
            if Some(&host) == this.as_ref() {
                continue;
            }
            let answer = match self.settings.forward.get(&host, &target).await {
                Ok(answer) if answer.status == StatusCode::OK => answer,
                Ok(answer) => return relay(answer),
                Err(_) => {
                    return unavailable(&format!(
                        "an instance hosting partitions of `{}` did not answer: retry",
                        route.name()
                    ));
                }
            };
            match serde_json::from_slice::<Value>(&answer.body) {
                Ok(body) => parts.push(remote_page(&body, parts[0].partition_count)),
                Err(_) => {
                    return unavailable(&format!(
                        "an instance hosting partitions of `{}` answered no JSON: retry",
                        route.name()
                    ));
                }
            }
        }
        let count = parts[0].partition_count;
        let mut seen = BTreeSet::new();
        let mut twice = false;
        for part in &parts {
            for p in &part.partitions {
                twice |= !seen.insert(*p);
            }
        }
        let missing: Vec<i32> = (0..count).filter(|p| !seen.contains(p)).collect();
        if twice || !missing.is_empty() {
            return unavailable(&format!(
                "the instances' answers do not cover every partition of `{}` exactly once \
                 (missing {missing:?}): tasks are restoring or moving; retry",
                route.name()
            ));
        }
        let (entries, next) = merge(parts, scan.limit);
        let entries: Vec<Value> = entries.into_iter().map(|e| e.json).collect();
        reply(
            StatusCode::OK,
            &json!({
                "partition_count": count,
                "partitions": (0..count).collect::<Vec<_>>(),
                "entries": entries,
                "next": next,
            }),
        )
    }
}

/// What a scan asks for.
pub(super) struct Scan<'a> {
    pub(super) from: Option<&'a str>,
    pub(super) to: Option<&'a str>,
    pub(super) after: Option<Position>,
    pub(super) limit: usize,
}

/// Another instance's page, as its internal answer (`x-dekaf-forwarded`) carries it.
fn remote_page(body: &Value, partition_count: i32) -> LocalRange {
    let partitions = body["partitions"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_i64)
                .filter_map(|p| i32::try_from(p).ok())
                .collect()
        })
        .unwrap_or_default();
    let entries = body["entries"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .map(|e| PageEntry {
                    partition: e["partition"]
                        .as_i64()
                        .and_then(|p| i32::try_from(p).ok())
                        .unwrap_or(0),
                    token: e["position"].as_str().unwrap_or_default().to_owned(),
                    json: json!({ "key": e["key"], "value": e["value"] }),
                })
                .collect()
        })
        .unwrap_or_default();
    LocalRange {
        partitions,
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
            partitions: partitions.to_vec(),
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
