//! Phase 2, the dispatch: lowering the parsed statements into the operator graph. Every
//! call is looked up in the operator registry ([`crate::ops`]) and lowered by its operator for
//! what it is called on (a stream, a grouped stream, a table); a call its receiver does not
//! have is reported (an operator a table does not have, `count` without grouping, an operator
//! after a sink, an unknown name) with the registry's lists of what the receiver has.

use crate::args::{err, err_at, err_call};
use crate::build::partition;
use crate::build::{Builder, Flow, Header};
use crate::diagnostics::Diagnostics;
use crate::ir::Model;
use crate::ops;
use crate::parse::{Call, Chain, Root, TopologyDef};

/// Builds the model; errors (and warnings) are collected in `diagnostics`.
pub(crate) fn lower(def: TopologyDef, diagnostics: &mut Diagnostics) -> Option<Model> {
    let mut b = Builder::new(def.app_id.value(), diagnostics);
    for stmt in def.stmts {
        let flow = match chain(&mut b, stmt.chain) {
            Ok(flow) => flow,
            Err(e) => {
                b.diagnostics.error(e);
                Flow::Broken
            }
        };
        b.bind(stmt.binding, flow);
    }
    let header = Header {
        attrs: def.attrs,
        vis: def.vis,
        name: def.name,
        app_id: def.app_id,
        body_span: def.body_span,
    };
    finish(b, header, diagnostics)
}

/// The model, once every statement is lowered: the unused names and stores reported, the
/// graph cut into subtopologies. `None` if there are errors (in `diagnostics`).
fn finish(mut b: Builder, def: Header, diagnostics: &mut Diagnostics) -> Option<Model> {
    b.report_unused_bindings();
    b.report_unused_stores();
    if b.nodes.is_empty() && !b.diagnostics.has_errors() {
        b.diagnostics.error(err(
            def.body_span,
            format!(
                "topology `{}` reads no topic: its body needs at least one source, e.g. `stream(\"input\", Utf8, Utf8).to(\"output\", Utf8, Utf8);`",
                def.name
            ),
        ));
    }
    *diagnostics = std::mem::take(&mut b.diagnostics);
    if diagnostics.has_errors() {
        return None;
    }
    Some(partition::partition(
        b, def.attrs, def.vis, def.name, def.app_id,
    ))
}

fn chain(b: &mut Builder, chain: Chain) -> syn::Result<Flow> {
    let mut flow = match chain.root {
        Root::Var(name) => match b.lookup(&name) {
            Some(flow) => flow,
            None => return Err(b.unbound(&name, "stream or table", "stream(..)")),
        },
        Root::Call(call) => root(b, &call)?,
    };
    for call in chain.calls {
        flow = apply(b, flow, &call)?;
    }
    Ok(flow)
}

fn root(b: &mut Builder, call: &Call) -> syn::Result<Flow> {
    match ops::find(&call.name.to_string()).and_then(|op| op.lower_root()) {
        Some(lower) => lower(b, call),
        None => Err(err_at(
            &call.name,
            format!(
                "unknown source `{}`: a topology statement starts with {}",
                call.name,
                ops::roots()
            ),
        )),
    }
}

fn apply(b: &mut Builder, flow: Flow, call: &Call) -> syn::Result<Flow> {
    let op = call.name.to_string();
    match flow {
        Flow::Broken => Ok(Flow::Broken),
        Flow::Global(g) => Err(ops::global_table::not_a_stream(b, g, call)),
        Flow::Ended(sink) => {
            // The call that ended the stream (`to`, or another terminal operator).
            let end = match sink.clone().into_iter().next() {
                Some(proc_macro2::TokenTree::Ident(name)) => name.to_string(),
                _ => "to".to_owned(),
            };
            let mut e = err_at(
                &call.name,
                format!(
                    "`{op}` comes after `{end}(..)`, which ends the stream: bind the stream before it (`let s = ..;`) and use it twice"
                ),
            );
            e.combine(err_at(sink, "the stream ends here"));
            Err(e)
        }
        Flow::Decl => Err(err_call(
            call,
            format!("`{op}` cannot follow on_error(..): it is a statement of its own"),
        )),
        Flow::Store(s) => match ops::find(&op).and_then(|o| o.lower_store()) {
            Some(lower) => lower(b, s, call),
            None => {
                let why = if op.starts_with("with_caching") {
                    " (it has no record cache: its writes reach the store and its changelog at once, as Kafka Streams' StoreBuilder without withCachingEnabled())"
                } else {
                    "; a processor reads and writes it: list it in process([..], ..)"
                };
                Err(err_call(
                    call,
                    format!(
                        "`{op}` is not an option of the declared store `{}`: a store declared for process(..) takes {}{why}",
                        b.stores[s].name,
                        ops::store_options()
                    ),
                ))
            }
        },
        Flow::Branches(_, tokens) => {
            let mut e = err_at(
                &call.name,
                format!(
                    "`{op}` cannot follow branch(..): bind the branches (`let [a, b] = s.branch(..);`) and continue each by name"
                ),
            );
            e.combine(err_at(tokens, "branched here"));
            Err(e)
        }
        // A foreign-key join's result has no store and no old values: to_stream() only.
        Flow::Table(t) if ops::fk_join::is_result(&b.nodes[t.node].kind) && op != "to_stream" => {
            Err(ops::fk_join::result_only_to_stream(call))
        }
        Flow::Table(t) if ops::cogroup::is_result(b, t.node) && op != "to_stream" => {
            Err(ops::cogroup::result_only_to_stream(call))
        }
        Flow::Table(t) => match ops::find(&op) {
            Some(o) => match o.lower_table() {
                Some(lower) => lower(b, t, call),
                None if o.lower_stream().is_some() || o.lower_grouped().is_some() => {
                    Err(ops::not_on_tables(call))
                }
                None => Err(ops::unknown(call)),
            },
            None => Err(ops::unknown(call)),
        },
        Flow::Grouped(g) => {
            // A re-grouped table (`table.group_by(..)`) aggregates with a subtractor.
            if let Some(regrouped) = ops::table_group::on_grouped_table(b, &g, &op) {
                regrouped?;
                return ops::table_group::aggregate(b, g, call);
            }
            match ops::find(&op) {
                Some(o) => match o.lower_grouped() {
                    Some(lower) => lower(b, g, call),
                    None if o.lower_stream().is_some() => Err(err_at(
                        &call.name,
                        format!(
                            "`{op}` is not an operation of a grouped stream: aggregate it first (count, reduce, aggregate), or call `{op}` before {}",
                            g.how
                        ),
                    )),
                    None => Err(ops::unknown(call)),
                },
                None => Err(ops::unknown(call)),
            }
        }
        Flow::Cogrouped(c) => match ops::find(&op).and_then(|o| o.lower_cogrouped()) {
            Some(lower) => lower(b, c, call),
            None => Err(err_at(
                &call.name,
                format!(
                    "`{op}` is not an operation of cogrouped streams: they have {}; aggregate them first with aggregate(\"store\", || initial, AggregateSerde)",
                    ops::cogrouped_operators()
                ),
            )),
        },
        Flow::Stream(s) => match ops::find(&op) {
            Some(o) => match o.lower_stream() {
                Some(lower) => lower(b, s, call),
                None => Err(err_at(
                    &call.name,
                    o.on_stream
                        .unwrap_or("`{op}` does not apply to a stream")
                        .replace("{op}", &op),
                )),
            },
            None => Err(ops::unknown(call)),
        },
    }
}
