//! Phase 2: the operator graph as plain data.
//!
//! [`build`] lowers the parsed statements into nodes (one per operator, numbered in the order
//! they appear, so ids and names are deterministic), stores, and subtopologies (the connected
//! parts of the graph once every repartition topic is cut). It reports the mistakes that make
//! a graph impossible to build (an operator a table does not have, `count` without grouping, an
//! operator after a sink, an unknown name); [`crate::check`] then checks names and topics.

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Type};

use crate::parse::{Binding, Call, Root, TopologyDef};

/// A serde as written by the user, used as a type.
#[derive(Clone)]
pub struct SerdeTy {
    pub ty: Type,
    pub span: Span,
}

impl SerdeTy {
    /// The last path segment's name (`Utf8`, `Json`, `TimeWindowed`).
    pub fn last_name(&self) -> Option<String> {
        match &self.ty {
            Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        }
    }

    /// The Rust type of a built-in serde whose value type is known (`Utf8` → `String`).
    pub fn builtin_value(&self) -> Option<&'static str> {
        let Type::Path(p) = &self.ty else { return None };
        let last = p.path.segments.last()?;
        if !last.arguments.is_empty() {
            return None;
        }
        match last.ident.to_string().as_str() {
            "Utf8" => Some("String"),
            "I32" => Some("i32"),
            "I64" => Some("i64"),
            "Bytes" => Some("Vec<u8>"),
            "Unit" => Some("()"),
            _ => None,
        }
    }

    pub fn is_windowed(&self) -> bool {
        self.last_name().as_deref() == Some("TimeWindowed")
    }

    pub fn text(&self) -> String {
        self.ty.to_token_stream().to_string().replace(' ', "")
    }
}

/// A window definition: tumbling when `advance == size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowSpec {
    pub size: i64,
    pub advance: i64,
    pub grace: i64,
}

/// The aggregation of a stateful node.
#[derive(Clone)]
pub enum AggOp {
    Count,
    Reduce(Expr),
    Aggregate { init: Expr, f: Expr },
}

/// What a node does.
#[derive(Clone)]
pub enum NodeKind {
    Source {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
    },
    TableSource {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
        store: usize,
    },
    RepartitionSource {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
    },
    Filter {
        f: Expr,
        negate: bool,
    },
    Map {
        f: Expr,
        fallible: bool,
    },
    MapValues {
        f: Expr,
        with_key: bool,
        fallible: bool,
    },
    FlatMap {
        f: Expr,
    },
    FlatMapValues {
        f: Expr,
        with_key: bool,
    },
    SelectKey {
        f: Expr,
    },
    Peek {
        f: Expr,
    },
    /// Children are the arms, in predicate order.
    Branch {
        preds: Vec<Expr>,
    },
    BranchArm,
    Merge,
    RepartitionSink {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
    },
    Aggregate {
        store: usize,
        op: AggOp,
    },
    ToStream,
    Join {
        store: usize,
        f: Expr,
        left: bool,
    },
    Process {
        f: Expr,
        stores: Vec<usize>,
    },
    Sink {
        topic: String,
        key: SerdeTy,
        value: SerdeTy,
    },
}

/// One operator.
#[derive(Clone)]
pub struct Node {
    pub id: usize,
    /// Kafka Streams style name (`KSTREAM-FILTER-0000000001`).
    pub name: String,
    pub kind: NodeKind,
    pub span: Span,
    pub parents: Vec<usize>,
    pub children: Vec<usize>,
    pub sub: usize,
}

/// Who creates a store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum StoreOwner {
    Aggregate,
    Table,
    Declared,
}

/// A state store.
#[derive(Clone)]
pub struct Store {
    pub name: String,
    pub span: Span,
    pub key: SerdeTy,
    pub value: SerdeTy,
    pub window: Option<WindowSpec>,
    /// Full changelog topic name (the source topic for a table).
    pub changelog: String,
    /// Whether the task writes the changelog (false for a table read from its topic).
    pub logged: bool,
    pub owner: StoreOwner,
    pub sub: usize,
    /// The nodes that use it.
    pub users: Vec<usize>,
}

/// A subtopology.
#[derive(Clone, Default)]
pub struct Sub {
    pub id: usize,
    pub nodes: Vec<usize>,
    /// User topics read, sorted; each with its source node.
    pub source_topics: Vec<(String, usize)>,
    /// Repartition topics read, sorted.
    pub repartition_sources: Vec<(String, usize)>,
    pub repartition_sinks: Vec<String>,
    pub sink_topics: Vec<String>,
    pub stores: Vec<usize>,
    pub copartition_groups: Vec<(Vec<String>, Vec<String>)>,
}

/// A user topic and how the topology uses it.
#[derive(Clone)]
pub struct TopicUse {
    pub name: String,
    pub span: Span,
    pub role: TopicRole,
    pub key: Option<SerdeTy>,
    pub value: Option<SerdeTy>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TopicRole {
    Source,
    Table,
    Sink,
    DeadLetter,
}

/// The whole topology.
pub struct Model {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: Ident,
    pub app_id: String,
    pub app_span: Span,
    pub nodes: Vec<Node>,
    pub stores: Vec<Store>,
    pub subs: Vec<Sub>,
    pub on_error: Option<Expr>,
    pub topics: Vec<TopicUse>,
}

/// What a name or an expression evaluates to while building.
#[derive(Clone)]
enum Flow {
    Stream(Stream),
    Grouped(Grouped),
    Table {
        node: usize,
        store: usize,
    },
    Ended(Span),
    Branches(Vec<usize>, Span),
    Decl(Span),
    /// A name whose definition had an error: uses of it report nothing more.
    Broken,
}

#[derive(Clone)]
struct Stream {
    node: usize,
    key: Option<SerdeTy>,
    value: Option<SerdeTy>,
    key_changed: bool,
    window: Option<i64>,
}

#[derive(Clone)]
struct Grouped {
    node: usize,
    key: Option<SerdeTy>,
    value: Option<SerdeTy>,
    repartition: bool,
    window: Option<WindowSpec>,
    span: Span,
    /// The operator that grouped, for messages.
    how: &'static str,
}

struct Builder {
    app_id: String,
    nodes: Vec<Node>,
    stores: Vec<Store>,
    vars: BTreeMap<String, (Flow, Span)>,
    on_error: Option<Expr>,
    on_error_span: Option<Span>,
    topics: Vec<TopicUse>,
    errors: Vec<syn::Error>,
    /// repartition sink node → repartition source node
    repartitions: Vec<(usize, usize)>,
    /// join node → table node
    joins: Vec<(usize, usize)>,
    /// branch arm node → the stream it continues
    arms: BTreeMap<usize, Stream>,
    /// repartition topics of repartition(..) → where named
    repartition_names: BTreeMap<String, Span>,
}

fn err(span: Span, msg: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, msg)
}

/// Builds the model, or returns every error found.
pub fn build(def: TopologyDef) -> Result<Model, Vec<syn::Error>> {
    let mut b = Builder {
        app_id: def.app_id.value(),
        nodes: Vec::new(),
        stores: Vec::new(),
        vars: BTreeMap::new(),
        on_error: None,
        on_error_span: None,
        topics: Vec::new(),
        errors: Vec::new(),
        repartitions: Vec::new(),
        joins: Vec::new(),
        arms: BTreeMap::new(),
        repartition_names: BTreeMap::new(),
    };
    for stmt in def.stmts {
        let flow = match b.chain(stmt.chain) {
            Ok(flow) => flow,
            Err(e) => {
                b.errors.push(e);
                Flow::Broken
            }
        };
        if let Flow::Broken = flow {
            match stmt.binding {
                Binding::One(name) => {
                    b.vars.insert(name.to_string(), (Flow::Broken, name.span()));
                }
                Binding::Many(names, _) => {
                    for name in names {
                        b.vars.insert(name.to_string(), (Flow::Broken, name.span()));
                    }
                }
                Binding::None => {}
            }
            continue;
        }
        match stmt.binding {
            Binding::None => {}
            Binding::One(name) => {
                if let Flow::Branches(_, span) = flow {
                    b.errors.push(err(span, "branch() makes several streams: bind them with `let [a, b] = s.branch(..);`"));
                    continue;
                }
                b.vars.insert(name.to_string(), (flow, name.span()));
            }
            Binding::Many(names, span) => {
                let Flow::Branches(arms, _) = flow else {
                    b.errors.push(err(span, "only branch(..) makes several streams; bind other streams with `let s = ..;`"));
                    continue;
                };
                if arms.len() != names.len() {
                    b.errors.push(err(
                        span,
                        format!(
                            "branch(..) has {} predicates but {} names are bound: bind one name per predicate",
                            arms.len(),
                            names.len()
                        ),
                    ));
                    // Bind the names anyway, so later statements do not report them unknown.
                    for name in names {
                        if name != "_" {
                            b.vars.insert(name.to_string(), (Flow::Broken, name.span()));
                        }
                    }
                    continue;
                }
                for (name, arm) in names.into_iter().zip(arms) {
                    if name == "_" {
                        continue;
                    }
                    // An arm keeps the key and serdes of the branched stream.
                    let stream = match b.arms.get(&arm) {
                        Some(s) => s.clone(),
                        None => Stream {
                            node: arm,
                            key: None,
                            value: None,
                            key_changed: true,
                            window: None,
                        },
                    };
                    b.vars
                        .insert(name.to_string(), (Flow::Stream(stream), name.span()));
                }
            }
        }
    }
    b.finish(def.attrs, def.vis, def.name, def.app_id)
}

impl Builder {
    fn node(&mut self, kind: NodeKind, kind_name: &str, span: Span, parents: &[usize]) -> usize {
        let id = self.nodes.len();
        let name = format!("{kind_name}-{id:010}");
        self.push_node(kind, name, span, parents)
    }

    fn push_node(&mut self, kind: NodeKind, name: String, span: Span, parents: &[usize]) -> usize {
        let id = self.nodes.len();
        self.nodes.push(Node {
            id,
            name,
            kind,
            span,
            parents: parents.to_vec(),
            children: Vec::new(),
            sub: 0,
        });
        for &p in parents {
            self.nodes[p].children.push(id);
        }
        id
    }

    fn chain(&mut self, chain: crate::parse::Chain) -> syn::Result<Flow> {
        let mut flow = match chain.root {
            Root::Var(name) => match self.vars.get(&name.to_string()) {
                Some((flow, _)) => flow.clone(),
                None => {
                    let known: Vec<&str> = self.vars.keys().map(String::as_str).collect();
                    return Err(err(
                        name.span(),
                        format!(
                            "unknown stream or table `{name}`: bind it first with `let {name} = stream(..);`{}",
                            if known.is_empty() {
                                String::new()
                            } else {
                                format!(" (bound so far: {})", known.join(", "))
                            }
                        ),
                    ));
                }
            },
            Root::Call(call) => self.root(call)?,
        };
        for call in chain.calls {
            flow = self.call(flow, call)?;
        }
        Ok(flow)
    }

    fn root(&mut self, call: Call) -> syn::Result<Flow> {
        match call.name.to_string().as_str() {
            "stream" => {
                let (topic, tspan) =
                    topic_arg(&call, 0, "stream(\"topic\", KeySerde, ValueSerde)")?;
                let key = serde_arg(&call, 1, "stream(\"topic\", KeySerde, ValueSerde)")?;
                let value = serde_arg(&call, 2, "stream(\"topic\", KeySerde, ValueSerde)")?;
                arity(&call, 3, "stream(\"topic\", KeySerde, ValueSerde)")?;
                self.topics.push(TopicUse {
                    name: topic.clone(),
                    span: tspan,
                    role: TopicRole::Source,
                    key: Some(key.clone()),
                    value: Some(value.clone()),
                });
                let node = self.node(
                    NodeKind::Source {
                        topic,
                        key: key.clone(),
                        value: value.clone(),
                    },
                    "KSTREAM-SOURCE",
                    call.span,
                    &[],
                );
                Ok(Flow::Stream(Stream {
                    node,
                    key: Some(key),
                    value: Some(value),
                    key_changed: false,
                    window: None,
                }))
            }
            "table" => {
                const USAGE: &str = "table(\"topic\", KeySerde, ValueSerde) or table(\"topic\", KeySerde, ValueSerde, \"store\")";
                let (topic, tspan) = topic_arg(&call, 0, USAGE)?;
                let key = serde_arg(&call, 1, USAGE)?;
                let value = serde_arg(&call, 2, USAGE)?;
                let (store_name, sspan) = match call.arg(3) {
                    Some(_) => topic_arg(&call, 3, USAGE)?,
                    None => (topic.clone(), tspan),
                };
                if call.args.len() > 4 {
                    return Err(err(
                        call.args[4].span(),
                        format!("too many arguments: {USAGE}"),
                    ));
                }
                self.topics.push(TopicUse {
                    name: topic.clone(),
                    span: tspan,
                    role: TopicRole::Table,
                    key: Some(key.clone()),
                    value: Some(value.clone()),
                });
                let store = self.stores.len();
                self.stores.push(Store {
                    name: store_name,
                    span: sspan,
                    key: key.clone(),
                    value: value.clone(),
                    window: None,
                    changelog: topic.clone(),
                    logged: false,
                    owner: StoreOwner::Table,
                    sub: 0,
                    users: Vec::new(),
                });
                let node = self.node(
                    NodeKind::TableSource {
                        topic,
                        key,
                        value,
                        store,
                    },
                    "KTABLE-SOURCE",
                    call.span,
                    &[],
                );
                self.stores[store].users.push(node);
                Ok(Flow::Table { node, store })
            }
            "store" => {
                const USAGE: &str = "store(\"name\", KeySerde, ValueSerde)";
                let (name, span) = topic_arg(&call, 0, USAGE)?;
                let key = serde_arg(&call, 1, USAGE)?;
                let value = serde_arg(&call, 2, USAGE)?;
                arity(&call, 3, USAGE)?;
                let changelog = self.internal(&name, "changelog");
                self.stores.push(Store {
                    name,
                    span,
                    key,
                    value,
                    window: None,
                    changelog,
                    logged: true,
                    owner: StoreOwner::Declared,
                    sub: 0,
                    users: Vec::new(),
                });
                Ok(Flow::Decl(call.span))
            }
            "on_error" => {
                arity(&call, 1, "on_error(|error| ErrorResponse::..)")?;
                if let Some(prev) = self.on_error_span {
                    let mut e = err(call.span, "on_error is set twice: keep one handler");
                    e.combine(err(prev, "first set here"));
                    return Err(e);
                }
                let f = call.args[0].clone();
                self.dead_letters(f.to_token_stream());
                self.on_error = Some(f);
                self.on_error_span = Some(call.span);
                Ok(Flow::Decl(call.span))
            }
            other => Err(err(
                call.name.span(),
                format!(
                    "unknown source `{other}`: a topology statement starts with `stream(..)`, `table(..)`, `store(..)` or `on_error(..)`"
                ),
            )),
        }
    }

    /// Finds `DeadLetter("topic")` in the handler.
    fn dead_letters(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tt) in tokens.iter().enumerate() {
            match tt {
                TokenTree::Ident(id) if id == "DeadLetter" => {
                    let Some(TokenTree::Group(g)) = tokens.get(i + 1) else {
                        self.errors.push(err(
                            id.span(),
                            "write DeadLetter(\"topic\") with a string literal topic",
                        ));
                        continue;
                    };
                    match syn::parse2::<syn::LitStr>(g.stream()) {
                        Ok(lit) => self.topics.push(TopicUse {
                            name: lit.value(),
                            span: lit.span(),
                            role: TopicRole::DeadLetter,
                            key: None,
                            value: None,
                        }),
                        Err(_) => self.errors.push(err(
                            g.span(),
                            "the dead-letter topic must be a string literal (`DeadLetter(\"orders-dead-letter\")`), so the topology knows its output topics while compiling",
                        )),
                    }
                }
                TokenTree::Group(g) => self.dead_letters(g.stream()),
                _ => {}
            }
        }
    }

    fn internal(&self, name: &str, suffix: &str) -> String {
        format!("{}-{}-{}", self.app_id, name, suffix)
    }

    fn call(&mut self, flow: Flow, call: Call) -> syn::Result<Flow> {
        let op = call.name.to_string();
        match flow {
            Flow::Broken => Ok(Flow::Broken),
            Flow::Ended(sink) => {
                let mut e = err(
                    call.name.span(),
                    format!("`{op}` comes after a sink: to(..) ends a stream. Bind the stream before the sink (`let s = ..;`) and use it twice"),
                );
                e.combine(err(sink, "the stream ends here"));
                Err(e)
            }
            Flow::Decl(span) => Err(err(call.name.span().join(span).unwrap_or(call.name.span()), format!("`{op}` cannot follow a declaration (store(..), on_error(..)): declarations are statements of their own"))),
            Flow::Branches(_, span) => Err(err(
                call.name.span(),
                format!("`{op}` cannot follow branch(..): bind the branches (`let [a, b] = s.branch(..);`) and continue each by name"),
            ))
            .map_err(|mut e: syn::Error| {
                e.combine(err(span, "branched here"));
                e
            }),
            Flow::Table { node, store } => self.table_call(node, store, call),
            Flow::Grouped(g) => self.grouped_call(g, call),
            Flow::Stream(s) => self.stream_call(s, call),
        }
    }

    fn table_call(&mut self, node: usize, store: usize, call: Call) -> syn::Result<Flow> {
        let op = call.name.to_string();
        match op.as_str() {
            "to_stream" => {
                arity(&call, 0, "to_stream()")?;
                let s = &self.stores[store];
                let (key, value, window) = (
                    Some(s.key.clone()),
                    Some(s.value.clone()),
                    s.window.map(|w| w.size),
                );
                let n = self.node(NodeKind::ToStream, "KTABLE-TOSTREAM", call.span, &[node]);
                Ok(Flow::Stream(Stream {
                    node: n,
                    key,
                    value,
                    key_changed: false,
                    window,
                }))
            }
            _ if STREAM_OPS.contains(&op.as_str()) || GROUPED_OPS.contains(&op.as_str()) => {
                Err(err(
                    call.name.span(),
                    format!(
                        "a table has no `{op}`: call `to_stream()` first, then `{op}(..)` on the stream (a table supports to_stream() and being joined against)"
                    ),
                ))
            }
            _ => Err(unknown_op(&call)),
        }
    }

    fn grouped_call(&mut self, g: Grouped, call: Call) -> syn::Result<Flow> {
        let op = call.name.to_string();
        match op.as_str() {
            "windowed_by" => {
                arity(
                    &call,
                    1,
                    "windowed_by(tumbling(Duration::from_secs(60)).grace(Duration::from_secs(10)))",
                )?;
                if g.window.is_some() {
                    return Err(err(
                        call.name.span(),
                        "the stream is windowed already: call windowed_by(..) once",
                    ));
                }
                let window = window_spec(&call.args[0])?;
                Ok(Flow::Grouped(Grouped {
                    window: Some(window),
                    ..g
                }))
            }
            "count" | "reduce" | "aggregate" => self.aggregate(g, call),
            _ if STREAM_OPS.contains(&op.as_str()) => Err(err(
                call.name.span(),
                format!(
                    "`{op}` is not an operation of a grouped stream: aggregate it first (count, reduce, aggregate), or call `{op}` before {}",
                    g.how
                ),
            )),
            _ => Err(unknown_op(&call)),
        }
    }

    fn aggregate(&mut self, g: Grouped, call: Call) -> syn::Result<Flow> {
        let op = call.name.to_string();
        let usage = match op.as_str() {
            "count" => "count(\"store\")",
            "reduce" => "reduce(\"store\", |aggregate, value| ..)",
            _ => "aggregate(\"store\", || initial, |key, value, aggregate| .., AggregateSerde)",
        };
        let (store_name, sspan) = topic_arg(&call, 0, usage)?;
        let (agg, value_serde) = match op.as_str() {
            "count" => {
                arity(&call, 1, usage)?;
                let i64_ty: Type = syn::parse_quote_spanned!(sspan=> ::dekaf_streams::serdes::I64);
                (
                    AggOp::Count,
                    SerdeTy {
                        ty: i64_ty,
                        span: sspan,
                    },
                )
            }
            "reduce" => {
                arity(&call, 2, usage)?;
                let Some(value) = g.value.clone() else {
                    return Err(err(
                        g.span,
                        "reduce(..) stores values of the stream, but their serde is not known here (an operator changed the values): give it to the grouping, e.g. group_by_key(KeySerde, ValueSerde)",
                    ));
                };
                (AggOp::Reduce(call.args[1].clone()), value)
            }
            _ => {
                arity(&call, 4, usage)?;
                let serde = serde_arg(&call, 3, usage)?;
                (
                    AggOp::Aggregate {
                        init: call.args[1].clone(),
                        f: call.args[2].clone(),
                    },
                    serde,
                )
            }
        };
        let Some(key) = g.key.clone() else {
            return Err(err(
                g.span,
                format!(
                    "{op}(..) stores keys of the stream, but their serde is not known here (an operator changed the keys): pass serdes, e.g. group_by_key(KeySerde, ValueSerde)"
                ),
            ));
        };
        let mut upstream = g.node;
        if g.repartition {
            let topic = self.internal(&store_name, "repartition");
            let value = g.value.clone().ok_or_else(|| {
                err(g.span, "the repartition topic needs the value serde: pass it, e.g. group_by_key(KeySerde, ValueSerde)")
            })?;
            let sink = self.push_node(
                NodeKind::RepartitionSink {
                    topic: topic.clone(),
                    key: key.clone(),
                    value: value.clone(),
                },
                format!("{store_name}-repartition-sink"),
                g.span,
                &[upstream],
            );
            let source = self.push_node(
                NodeKind::RepartitionSource {
                    topic,
                    key: key.clone(),
                    value,
                },
                format!("{store_name}-repartition-source"),
                g.span,
                &[],
            );
            self.repartitions.push((sink, source));
            upstream = source;
        }
        let store = self.stores.len();
        let changelog = self.internal(&store_name, "changelog");
        self.stores.push(Store {
            name: store_name,
            span: sspan,
            key: key.clone(),
            value: value_serde.clone(),
            window: g.window,
            changelog,
            logged: true,
            owner: StoreOwner::Aggregate,
            sub: 0,
            users: Vec::new(),
        });
        let kind_name = match (op.as_str(), g.window.is_some()) {
            ("reduce", false) => "KSTREAM-REDUCE",
            ("reduce", true) => "KSTREAM-WINDOWED-REDUCE",
            (_, true) => "KSTREAM-WINDOWED-AGGREGATE",
            _ => "KSTREAM-AGGREGATE",
        };
        let node = self.node(
            NodeKind::Aggregate { store, op: agg },
            kind_name,
            call.span,
            &[upstream],
        );
        self.stores[store].users.push(node);
        Ok(Flow::Table { node, store })
    }

    fn stream_call(&mut self, s: Stream, call: Call) -> syn::Result<Flow> {
        let op = call.name.to_string();
        let span = call.span;
        let closure = |i: usize, usage: &str| -> syn::Result<Expr> {
            call.arg(i)
                .cloned()
                .ok_or_else(|| err(span, format!("missing argument: {usage}")))
        };
        let keep = |node: usize, s: &Stream| Stream { node, ..s.clone() };
        match op.as_str() {
            "filter" | "filter_not" => {
                let f = closure(0, "filter(|key, value| bool)")?;
                arity(&call, 1, "filter(|key, value| bool)")?;
                let n = self.node(
                    NodeKind::Filter {
                        f,
                        negate: op == "filter_not",
                    },
                    "KSTREAM-FILTER",
                    span,
                    &[s.node],
                );
                Ok(Flow::Stream(keep(n, &s)))
            }
            "peek" => {
                let f = closure(0, "peek(|key, value| ..)")?;
                arity(&call, 1, "peek(|key, value| ..)")?;
                let n = self.node(NodeKind::Peek { f }, "KSTREAM-PEEK", span, &[s.node]);
                Ok(Flow::Stream(keep(n, &s)))
            }
            "map" | "try_map" => {
                let f = closure(0, "map(|key, value| (new_key, new_value))")?;
                arity(&call, 1, "map(|key, value| (new_key, new_value))")?;
                let n = self.node(
                    NodeKind::Map {
                        f,
                        fallible: op == "try_map",
                    },
                    "KSTREAM-MAP",
                    span,
                    &[s.node],
                );
                Ok(Flow::Stream(Stream {
                    node: n,
                    key: None,
                    value: None,
                    key_changed: true,
                    window: None,
                }))
            }
            "map_values" | "try_map_values" => {
                let f = closure(0, "map_values(|value| new_value)")?;
                arity(&call, 1, "map_values(|value| new_value)")?;
                let with_key = closure_arity(&f) == Some(2);
                let n = self.node(
                    NodeKind::MapValues {
                        f,
                        with_key,
                        fallible: op == "try_map_values",
                    },
                    "KSTREAM-MAPVALUES",
                    span,
                    &[s.node],
                );
                Ok(Flow::Stream(Stream {
                    node: n,
                    value: None,
                    ..s
                }))
            }
            "flat_map" => {
                let f = closure(0, "flat_map(|key, value| iterator of (key, value))")?;
                arity(&call, 1, "flat_map(|key, value| iterator of (key, value))")?;
                let n = self.node(NodeKind::FlatMap { f }, "KSTREAM-FLATMAP", span, &[s.node]);
                Ok(Flow::Stream(Stream {
                    node: n,
                    key: None,
                    value: None,
                    key_changed: true,
                    window: None,
                }))
            }
            "flat_map_values" => {
                let f = closure(0, "flat_map_values(|value| iterator of values)")?;
                arity(&call, 1, "flat_map_values(|value| iterator of values)")?;
                let with_key = closure_arity(&f) == Some(2);
                let n = self.node(
                    NodeKind::FlatMapValues { f, with_key },
                    "KSTREAM-FLATMAPVALUES",
                    span,
                    &[s.node],
                );
                Ok(Flow::Stream(Stream {
                    node: n,
                    value: None,
                    ..s
                }))
            }
            "select_key" => {
                let f = closure(0, "select_key(|key, value| new_key)")?;
                arity(&call, 1, "select_key(|key, value| new_key)")?;
                let n = self.node(
                    NodeKind::SelectKey { f },
                    "KSTREAM-KEY-SELECT",
                    span,
                    &[s.node],
                );
                Ok(Flow::Stream(Stream {
                    node: n,
                    key: None,
                    key_changed: true,
                    window: None,
                    ..s
                }))
            }
            "merge" => {
                arity(&call, 1, "merge(other_stream)")?;
                let Expr::Path(p) = &call.args[0] else {
                    return Err(err(
                        call.args[0].span(),
                        "merge(..) takes a stream bound by `let`: `a.merge(b)`",
                    ));
                };
                let Some(name) = p.path.get_ident() else {
                    return Err(err(
                        p.span(),
                        "merge(..) takes a stream bound by `let`: `a.merge(b)`",
                    ));
                };
                let other = match self.vars.get(&name.to_string()) {
                    Some((Flow::Stream(o), _)) => o.clone(),
                    Some((Flow::Broken, _)) => return Ok(Flow::Broken),
                    Some(_) => {
                        return Err(err(
                            name.span(),
                            format!("`{name}` is not a stream: merge(..) merges two streams"),
                        ));
                    }
                    None => {
                        return Err(err(
                            name.span(),
                            format!(
                                "unknown stream `{name}`: bind it first with `let {name} = ..;`"
                            ),
                        ));
                    }
                };
                let n = self.node(
                    NodeKind::Merge,
                    "KSTREAM-MERGE",
                    span,
                    &[s.node, other.node],
                );
                let same = |a: &Option<SerdeTy>, b: &Option<SerdeTy>| match (a, b) {
                    (Some(a), Some(b)) if a.text() == b.text() => Some(a.clone()),
                    _ => None,
                };
                Ok(Flow::Stream(Stream {
                    node: n,
                    key: same(&s.key, &other.key),
                    value: same(&s.value, &other.value),
                    key_changed: s.key_changed || other.key_changed,
                    window: s.window.or(other.window),
                }))
            }
            "branch" => {
                if call.args.is_empty() {
                    return Err(err(
                        span,
                        "branch(..) needs predicates: `let [a, b] = s.branch(|k, v| .., |k, v| ..);`",
                    ));
                }
                let n = self.node(
                    NodeKind::Branch {
                        preds: call.args.clone(),
                    },
                    "KSTREAM-BRANCH",
                    span,
                    &[s.node],
                );
                let mut arms = Vec::new();
                for (i, pred) in call.args.iter().enumerate() {
                    let arm = self.push_node(
                        NodeKind::BranchArm,
                        format!("KSTREAM-BRANCH-{n:010}-{i}"),
                        pred.span(),
                        &[n],
                    );
                    arms.push(arm);
                }
                // Arms keep the stream's properties.
                for &arm in &arms {
                    self.arms.insert(arm, keep(arm, &s));
                }
                Ok(Flow::Branches(arms, span))
            }
            "group_by" => {
                const USAGE: &str = "group_by(|key, value| new_key, KeySerde, ValueSerde)";
                let f = closure(0, USAGE)?;
                let key = serde_arg(&call, 1, USAGE)?;
                let value = serde_arg(&call, 2, USAGE)?;
                arity(&call, 3, USAGE)?;
                self.check_value_serde(&s, &value);
                let n = self.node(
                    NodeKind::SelectKey { f },
                    "KSTREAM-KEY-SELECT",
                    span,
                    &[s.node],
                );
                Ok(Flow::Grouped(Grouped {
                    node: n,
                    key: Some(key),
                    value: Some(value),
                    repartition: true,
                    window: None,
                    span,
                    how: "group_by(..)",
                }))
            }
            "group_by_key" => {
                const USAGE: &str = "group_by_key() or group_by_key(KeySerde, ValueSerde)";
                let (key, value) = match call.args.len() {
                    0 => (s.key.clone(), s.value.clone()),
                    2 => {
                        let k = serde_arg(&call, 0, USAGE)?;
                        let v = serde_arg(&call, 1, USAGE)?;
                        self.check_key_serde(&s, &k);
                        self.check_value_serde(&s, &v);
                        (Some(k), Some(v))
                    }
                    _ => return Err(err(span, format!("wrong number of arguments: {USAGE}"))),
                };
                if s.key_changed && (key.is_none() || value.is_none()) {
                    return Err(err(
                        span,
                        "the key changed upstream (map, select_key, flat_map), so group_by_key() repartitions and needs the serdes: group_by_key(KeySerde, ValueSerde)",
                    ));
                }
                if s.window.is_some() {
                    return Err(err(
                        span,
                        "the stream has windowed keys: group it with group_by(..) to a plain key first",
                    ));
                }
                Ok(Flow::Grouped(Grouped {
                    node: s.node,
                    key,
                    value,
                    repartition: s.key_changed,
                    window: None,
                    span,
                    how: "group_by_key()",
                }))
            }
            "join" | "left_join" => {
                let usage = format!("{op}(table, |value, table_value| joined)");
                arity(&call, 2, &usage)?;
                let Expr::Path(p) = &call.args[0] else {
                    return Err(err(
                        call.args[0].span(),
                        format!(
                            "{op}(..) takes a table bound by `let`: `let t = table(..);` then `s.{op}(t, ..)`"
                        ),
                    ));
                };
                let Some(name) = p.path.get_ident() else {
                    return Err(err(
                        p.span(),
                        format!("{op}(..) takes a table bound by `let`"),
                    ));
                };
                let (tnode, store) = match self.vars.get(&name.to_string()) {
                    Some((Flow::Table { node, store }, _)) => (*node, *store),
                    Some((Flow::Broken, _)) => return Ok(Flow::Broken),
                    Some((Flow::Stream(_), _)) => {
                        return Err(err(
                            name.span(),
                            format!(
                                "`{name}` is a stream: joins are stream-table (stream-stream joins are not supported); read it with table(..) or aggregate it into a table"
                            ),
                        ));
                    }
                    Some(_) => return Err(err(name.span(), format!("`{name}` is not a table"))),
                    None => {
                        return Err(err(
                            name.span(),
                            format!(
                                "unknown table `{name}`: bind it first with `let {name} = table(..);`"
                            ),
                        ));
                    }
                };
                let tstore = self.stores[store].clone();
                if tstore.window.is_some() {
                    return Err(err(
                        name.span(),
                        format!(
                            "`{name}` is a windowed table: a stream can only join a table with plain keys"
                        ),
                    ));
                }
                if let Some(k) = &s.key
                    && let (Some(a), Some(b)) = (k.builtin_value(), tstore.key.builtin_value())
                {
                    {
                        if a != b {
                            let mut e = err(
                                call.name.span(),
                                format!(
                                    "the stream's keys are {a} (serde `{}`) but the table `{name}` has {b} keys (serde `{}`): join needs equal key types; re-key the stream with select_key(..) and repartition it, or read the table with the stream's key serde",
                                    k.text(),
                                    tstore.key.text()
                                ),
                            );
                            e.combine(err(tstore.key.span, "the table's key serde"));
                            return Err(e);
                        }
                    }
                }
                if s.key_changed {
                    return Err(err(
                        call.name.span(),
                        format!(
                            "the key changed upstream (map, select_key, flat_map), so the stream is not partitioned like table `{name}`: repartition it first with .repartition(\"name\", KeySerde, ValueSerde), or join before changing the key"
                        ),
                    ));
                }
                if s.window.is_some() {
                    return Err(err(
                        call.name.span(),
                        "a stream with windowed keys cannot join a table",
                    ));
                }
                let f = call.args[1].clone();
                let left = op == "left_join";
                let n = self.node(
                    NodeKind::Join { store, f, left },
                    if left {
                        "KSTREAM-LEFTJOIN"
                    } else {
                        "KSTREAM-JOIN"
                    },
                    span,
                    &[s.node],
                );
                self.stores[store].users.push(n);
                self.joins.push((n, tnode));
                Ok(Flow::Stream(Stream {
                    node: n,
                    value: None,
                    ..s
                }))
            }
            "process" => {
                const USAGE: &str =
                    "process([\"store\", ..], |ctx, key, value| Ok(Some((key, value))))";
                arity(&call, 2, USAGE)?;
                let Expr::Array(arr) = &call.args[0] else {
                    return Err(err(
                        call.args[0].span(),
                        format!(
                            "the first argument names the stores it uses, as an array of string literals: {USAGE}"
                        ),
                    ));
                };
                let mut stores = Vec::new();
                for e in &arr.elems {
                    let Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(lit),
                        ..
                    }) = e
                    else {
                        return Err(err(e.span(), "a store name is a string literal"));
                    };
                    let name = lit.value();
                    match self.stores.iter().position(|st| st.name == name) {
                        Some(i) if self.stores[i].owner == StoreOwner::Declared => {
                            if stores.contains(&i) {
                                return Err(err(
                                    lit.span(),
                                    format!("store `{name}` is listed twice"),
                                ));
                            }
                            stores.push(i);
                        }
                        Some(i) => {
                            return Err(err(
                                lit.span(),
                                format!(
                                    "store `{name}` belongs to {}: process() can only use stores declared with store(\"{name}\", KeySerde, ValueSerde); declare one with another name",
                                    if self.stores[i].owner == StoreOwner::Table {
                                        "a table"
                                    } else {
                                        "an aggregation"
                                    }
                                ),
                            ));
                        }
                        None => {
                            let declared: Vec<&str> = self
                                .stores
                                .iter()
                                .filter(|st| st.owner == StoreOwner::Declared)
                                .map(|st| st.name.as_str())
                                .collect();
                            return Err(err(
                                lit.span(),
                                format!(
                                    "unknown store `{name}`: declare it before this statement with store(\"{name}\", KeySerde, ValueSerde){}",
                                    if declared.is_empty() {
                                        String::new()
                                    } else {
                                        format!(" (declared: {})", declared.join(", "))
                                    }
                                ),
                            ));
                        }
                    }
                }
                let f = call.args[1].clone();
                let n = self.node(
                    NodeKind::Process {
                        f,
                        stores: stores.clone(),
                    },
                    "KSTREAM-PROCESSOR",
                    span,
                    &[s.node],
                );
                for st in stores {
                    self.stores[st].users.push(n);
                }
                Ok(Flow::Stream(Stream {
                    node: n,
                    key: None,
                    value: None,
                    key_changed: true,
                    window: None,
                }))
            }
            "repartition" => {
                const USAGE: &str = "repartition(\"name\", KeySerde, ValueSerde)";
                let (name, nspan) = topic_arg(&call, 0, USAGE)?;
                let key = serde_arg(&call, 1, USAGE)?;
                let value = serde_arg(&call, 2, USAGE)?;
                arity(&call, 3, USAGE)?;
                if s.window.is_some() || key.is_windowed() {
                    return Err(err(
                        call.name.span(),
                        "a stream with windowed keys cannot be repartitioned",
                    ));
                }
                self.check_key_serde(&s, &key);
                self.check_value_serde(&s, &value);
                if let Some(c) = name
                    .chars()
                    .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')))
                {
                    return Err(err(
                        nspan,
                        format!(
                            "invalid repartition name `{name}`: it names an internal topic, so it may contain ASCII letters, digits, '.', '_' and '-' but not {c:?}"
                        ),
                    ));
                }
                let topic = self.internal(&name, "repartition");
                if let Some(other) = self.repartition_names.insert(topic.clone(), nspan) {
                    let mut e = err(
                        nspan,
                        format!(
                            "duplicate repartition name `{name}`: it would share the topic `{topic}` with another repartition"
                        ),
                    );
                    e.combine(err(other, "first used here"));
                    return Err(e);
                }
                let sink = self.push_node(
                    NodeKind::RepartitionSink {
                        topic: topic.clone(),
                        key: key.clone(),
                        value: value.clone(),
                    },
                    format!("{name}-repartition-sink"),
                    nspan,
                    &[s.node],
                );
                let source = self.push_node(
                    NodeKind::RepartitionSource {
                        topic,
                        key: key.clone(),
                        value: value.clone(),
                    },
                    format!("{name}-repartition-source"),
                    nspan,
                    &[],
                );
                self.repartitions.push((sink, source));
                Ok(Flow::Stream(Stream {
                    node: source,
                    key: Some(key),
                    value: Some(value),
                    key_changed: false,
                    window: None,
                }))
            }
            "to" => {
                const USAGE: &str = "to(\"topic\", KeySerde, ValueSerde)";
                let (topic, tspan) = topic_arg(&call, 0, USAGE)?;
                let mut key = serde_arg(&call, 1, USAGE)?;
                let value = serde_arg(&call, 2, USAGE)?;
                arity(&call, 3, USAGE)?;
                match (s.window, key.is_windowed()) {
                    (None, true) => {
                        return Err(err(
                            key.span,
                            "TimeWindowed is a serde of windowed keys, but this stream's keys are not windowed: use the key's own serde (windowed keys come from windowed_by(..) aggregations)",
                        ));
                    }
                    (Some(size), true) => key = fill_window_size(key, size)?,
                    (Some(_), false) => {
                        if key.builtin_value().is_some() {
                            return Err(err(
                                key.span,
                                format!(
                                    "this stream's keys are windowed (Windowed<K>): write them with TimeWindowed::<{}>",
                                    key.text()
                                ),
                            ));
                        }
                    }
                    (None, false) => {}
                }
                self.check_key_serde(&s, &key);
                self.check_value_serde(&s, &value);
                self.topics.push(TopicUse {
                    name: topic.clone(),
                    span: tspan,
                    role: TopicRole::Sink,
                    key: Some(key.clone()),
                    value: Some(value.clone()),
                });
                self.node(
                    NodeKind::Sink { topic, key, value },
                    "KSTREAM-SINK",
                    span,
                    &[s.node],
                );
                Ok(Flow::Ended(span))
            }
            "windowed_by" => Err(err(
                call.name.span(),
                "windowed_by(..) applies to a grouped stream: call group_by(..) or group_by_key() first",
            )),
            "count" | "reduce" | "aggregate" => Err(err(
                call.name.span(),
                format!(
                    "`{op}` needs a grouped stream: call group_by(|key, value| new_key, KeySerde, ValueSerde) or group_by_key() before {op}(..)"
                ),
            )),
            "to_stream" => Err(err(
                call.name.span(),
                "this is a stream already: to_stream() applies to tables",
            )),
            _ => Err(unknown_op(&call)),
        }
    }

    /// A known serde that differs from the stream's known serde is an error here; unknown ones
    /// are checked by rustc through the generated code (spanned at the serde).
    fn check_value_serde(&mut self, s: &Stream, given: &SerdeTy) {
        if let Some(e) = mismatch("value", s.value.as_ref(), given) {
            self.errors.push(e);
        }
    }

    fn check_key_serde(&mut self, s: &Stream, given: &SerdeTy) {
        if let Some(e) = mismatch("key", s.key.as_ref(), given) {
            self.errors.push(e);
        }
    }

    fn finish(
        mut self,
        attrs: Vec<syn::Attribute>,
        vis: syn::Visibility,
        name: Ident,
        app: syn::LitStr,
    ) -> Result<Model, Vec<syn::Error>> {
        // Declared stores nobody uses.
        for st in &self.stores {
            if st.owner == StoreOwner::Declared && st.users.is_empty() {
                self.errors.push(err(st.span, format!("store `{}` is declared but no process([..]) uses it: list it in a process(..) or remove it", st.name)));
            }
        }
        if !self.errors.is_empty() {
            return Err(self.errors);
        }
        // Subtopologies: connected components without the repartition edges.
        let n = self.nodes.len();
        let mut uf: Vec<usize> = (0..n).collect();
        fn find(uf: &mut [usize], x: usize) -> usize {
            let mut r = x;
            while uf[r] != r {
                r = uf[r];
            }
            let mut y = x;
            while uf[y] != r {
                let next = uf[y];
                uf[y] = r;
                y = next;
            }
            r
        }
        let union = |uf: &mut Vec<usize>, a: usize, b: usize| {
            let (ra, rb) = (find(uf, a), find(uf, b));
            if ra != rb {
                let (lo, hi) = (ra.min(rb), ra.max(rb));
                uf[hi] = lo;
            }
        };
        for node in &self.nodes {
            for &c in &node.children {
                union(&mut uf, node.id, c);
            }
        }
        for &(j, t) in &self.joins {
            union(&mut uf, j, t);
        }
        for st in &self.stores {
            for w in st.users.windows(2) {
                union(&mut uf, w[0], w[1]);
            }
        }
        let mut roots: Vec<usize> = Vec::new();
        let mut sub_of = vec![0; n];
        for (i, slot) in sub_of.iter_mut().enumerate() {
            let r = find(&mut uf, i);
            let idx = match roots.iter().position(|&x| x == r) {
                Some(p) => p,
                None => {
                    roots.push(r);
                    roots.len() - 1
                }
            };
            *slot = idx;
        }
        let mut subs: Vec<Sub> = (0..roots.len())
            .map(|id| Sub {
                id,
                ..Sub::default()
            })
            .collect();
        for i in 0..n {
            self.nodes[i].sub = sub_of[i];
            let sub = &mut subs[sub_of[i]];
            sub.nodes.push(i);
            match &self.nodes[i].kind {
                NodeKind::Source { topic, .. } | NodeKind::TableSource { topic, .. } => {
                    sub.source_topics.push((topic.clone(), i))
                }
                NodeKind::RepartitionSource { topic, .. } => {
                    sub.repartition_sources.push((topic.clone(), i))
                }
                NodeKind::RepartitionSink { topic, .. } => {
                    sub.repartition_sinks.push(topic.clone())
                }
                NodeKind::Sink { topic, .. } => sub.sink_topics.push(topic.clone()),
                _ => {}
            }
        }
        for (i, st) in self.stores.iter_mut().enumerate() {
            let sub = st.users.first().map_or(0, |&u| sub_of[u]);
            st.sub = sub;
            subs[sub].stores.push(i);
        }
        let dead_letters: Vec<String> = self
            .topics
            .iter()
            .filter(|t| t.role == TopicRole::DeadLetter)
            .map(|t| t.name.clone())
            .collect();
        for sub in &mut subs {
            sub.source_topics.sort();
            sub.repartition_sources.sort();
            sub.repartition_sinks.sort();
            sub.repartition_sinks.dedup();
            sub.sink_topics.extend(dead_letters.iter().cloned());
            sub.sink_topics.sort();
            sub.sink_topics.dedup();
        }
        // Copartition groups: the topics feeding a join's stream side, and the table's topic.
        for &(j, t) in &self.joins {
            let mut user = BTreeSet::new();
            let mut rep = BTreeSet::new();
            self.origins(j, &mut user, &mut rep);
            self.origins(t, &mut user, &mut rep);
            let group = (
                user.into_iter().collect::<Vec<_>>(),
                rep.into_iter().collect::<Vec<_>>(),
            );
            let sub = &mut subs[sub_of[j]];
            if !sub.copartition_groups.contains(&group) {
                sub.copartition_groups.push(group);
            }
        }
        for sub in &mut subs {
            sub.copartition_groups.sort();
        }
        Ok(Model {
            attrs,
            vis,
            name,
            app_id: app.value(),
            app_span: app.span(),
            nodes: self.nodes,
            stores: self.stores,
            subs,
            on_error: self.on_error,
            topics: self.topics,
        })
    }

    /// The source topics upstream of `node`.
    fn origins(&self, node: usize, user: &mut BTreeSet<String>, rep: &mut BTreeSet<String>) {
        match &self.nodes[node].kind {
            NodeKind::Source { topic, .. } | NodeKind::TableSource { topic, .. } => {
                user.insert(topic.clone());
            }
            NodeKind::RepartitionSource { topic, .. } => {
                rep.insert(topic.clone());
            }
            _ => {
                for &p in &self.nodes[node].parents {
                    self.origins(p, user, rep);
                }
            }
        }
    }
}

const STREAM_OPS: &[&str] = &[
    "filter",
    "filter_not",
    "map",
    "try_map",
    "map_values",
    "try_map_values",
    "flat_map",
    "flat_map_values",
    "select_key",
    "peek",
    "merge",
    "branch",
    "group_by",
    "group_by_key",
    "join",
    "left_join",
    "process",
    "repartition",
    "to",
];
const GROUPED_OPS: &[&str] = &["windowed_by", "count", "reduce", "aggregate"];

fn unknown_op(call: &Call) -> syn::Error {
    err(
        call.name.span(),
        format!(
            "unknown operator `{}`; streams have {}; grouped streams have {}; tables have to_stream and can be joined",
            call.name,
            STREAM_OPS.join(", "),
            GROUPED_OPS.join(", ")
        ),
    )
}

fn mismatch(what: &str, known: Option<&SerdeTy>, given: &SerdeTy) -> Option<syn::Error> {
    let known = known?;
    let (a, b) = (known.builtin_value()?, given.builtin_value()?);
    if a == b {
        return None;
    }
    let mut e = err(
        given.span,
        format!(
            "serde `{}` is for {b}, but the stream's {what}s are {a} (serde `{}`): use `{}` here, or convert the {what}s first{}",
            given.text(),
            known.text(),
            known.text(),
            if what == "value" {
                " with map_values(..)"
            } else {
                " with map(..) or select_key(..)"
            }
        ),
    );
    e.combine(err(known.span, format!("the stream's {what} serde")));
    Some(e)
}

fn arity(call: &Call, n: usize, usage: &str) -> syn::Result<()> {
    if call.args.len() == n {
        return Ok(());
    }
    let span = call.args.get(n).map_or(call.span, Spanned::span);
    Err(err(
        span,
        format!(
            "`{}` takes {n} argument{}: {usage}",
            call.name,
            if n == 1 { "" } else { "s" }
        ),
    ))
}

fn topic_arg(call: &Call, i: usize, usage: &str) -> syn::Result<(String, Span)> {
    match call.arg(i) {
        Some(Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        })) => Ok((s.value(), s.span())),
        Some(other) => Err(err(
            other.span(),
            format!("expected a string literal (names are known while compiling): {usage}"),
        )),
        None => Err(err(call.span, format!("missing arguments: {usage}"))),
    }
}

fn serde_arg(call: &Call, i: usize, usage: &str) -> syn::Result<SerdeTy> {
    match call.arg(i) {
        Some(Expr::Path(p)) if p.qself.is_none() => {
            let ty: Type = Type::Path(syn::TypePath {
                qself: None,
                path: p.path.clone(),
            });
            Ok(SerdeTy { ty, span: p.span() })
        }
        Some(other) => Err(err(
            other.span(),
            format!("expected a serde type such as Utf8, I64 or Json::<T>: {usage}"),
        )),
        None => Err(err(call.span, format!("missing arguments: {usage}"))),
    }
}

/// `TimeWindowed::<S>` gets the window size; an explicit size must match.
fn fill_window_size(mut key: SerdeTy, size: i64) -> syn::Result<SerdeTy> {
    let Type::Path(p) = &mut key.ty else {
        return Ok(key);
    };
    let Some(last) = p.path.segments.last_mut() else {
        return Ok(key);
    };
    let syn::PathArguments::AngleBracketed(args) = &mut last.arguments else {
        return Err(err(
            key.span,
            "write the inner key serde: TimeWindowed::<Utf8>",
        ));
    };
    match args.args.len() {
        1 => {
            let lit = syn::LitInt::new(&format!("{size}i64"), key.span);
            args.args
                .push(syn::GenericArgument::Const(syn::parse_quote!(#lit)));
        }
        2 => {
            let given = match &args.args[1] {
                syn::GenericArgument::Const(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                })) => i.base10_parse::<i64>().ok(),
                _ => None,
            };
            if given != Some(size) {
                return Err(err(
                    args.args[1].span(),
                    format!(
                        "the window size here must be the stream's window size, {size} ms: write TimeWindowed::<S> and the macro fills it in"
                    ),
                ));
            }
        }
        _ => {
            return Err(err(
                key.span,
                "write the inner key serde: TimeWindowed::<Utf8>",
            ));
        }
    }
    Ok(key)
}

fn closure_arity(e: &Expr) -> Option<usize> {
    match e {
        Expr::Closure(c) => Some(c.inputs.len()),
        _ => None,
    }
}

/// `tumbling(D)`, `hopping(D, D)`, each optionally `.grace(D)`; D is an integer (ms) or
/// `Duration::from_millis/from_secs/from_mins(N)`.
fn window_spec(e: &Expr) -> syn::Result<WindowSpec> {
    const USAGE: &str = "tumbling(Duration::from_secs(60)), hopping(Duration::from_secs(60), Duration::from_secs(10)), optionally followed by .grace(Duration::from_secs(10))";
    let (base, grace) = match e {
        Expr::MethodCall(m) if m.method == "grace" => {
            if m.args.len() != 1 {
                return Err(err(
                    m.span(),
                    format!("grace(..) takes one duration: {USAGE}"),
                ));
            }
            (&*m.receiver, duration(&m.args[0])?)
        }
        other => (other, 0),
    };
    let Expr::Call(c) = base else {
        return Err(err(base.span(), format!("expected a window: {USAGE}")));
    };
    let Expr::Path(p) = &*c.func else {
        return Err(err(c.span(), format!("expected a window: {USAGE}")));
    };
    let name = p
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let args: Vec<&Expr> = c.args.iter().collect();
    let (size, advance) = match (name.as_str(), args.as_slice()) {
        ("tumbling", [size]) => {
            let s = duration(size)?;
            (s, s)
        }
        ("hopping", [size, advance]) => (duration(size)?, duration(advance)?),
        _ => return Err(err(c.span(), format!("expected a window: {USAGE}"))),
    };
    if size <= 0 {
        return Err(err(c.span(), "the window size must be positive"));
    }
    if advance <= 0 || advance > size {
        return Err(err(
            c.span(),
            "a hopping window advances by more than 0 and at most its size",
        ));
    }
    if grace < 0 {
        return Err(err(e.span(), "the grace period cannot be negative"));
    }
    Ok(WindowSpec {
        size,
        advance,
        grace,
    })
}

fn duration(e: &Expr) -> syn::Result<i64> {
    const USAGE: &str = "a duration is milliseconds as an integer literal or Duration::from_millis/from_secs/from_mins(N)";
    match e {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i64>(),
        Expr::Call(c) => {
            let Expr::Path(p) = &*c.func else {
                return Err(err(e.span(), USAGE));
            };
            let f = p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .unwrap_or_default();
            let [
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }),
            ] = c.args.iter().collect::<Vec<_>>().as_slice()
            else {
                return Err(err(e.span(), USAGE));
            };
            let n = i.base10_parse::<i64>()?;
            let factor = match f.as_str() {
                "from_millis" => 1,
                "from_secs" => 1_000,
                "from_mins" => 60_000,
                "from_hours" => 3_600_000,
                _ => return Err(err(e.span(), USAGE)),
            };
            n.checked_mul(factor)
                .ok_or_else(|| err(e.span(), "duration too large"))
        }
        _ => Err(err(e.span(), USAGE)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn model(tokens: TokenStream) -> Result<Model, Vec<syn::Error>> {
        build(syn::parse2(tokens).expect("parses"))
    }

    fn first_error(tokens: TokenStream) -> String {
        match model(tokens) {
            Ok(_) => panic!("expected an error"),
            Err(errors) => errors[0].to_string(),
        }
    }

    const WORD_COUNT: fn() -> TokenStream = || {
        quote! {
            pub WordCount = "word-count" {
                stream("sentences", Utf8, Utf8)
                    .flat_map_values(|s| s.split(' ').map(str::to_owned))
                    .group_by(|_k, w| w.clone(), Utf8, Utf8)
                    .count("counts")
                    .to_stream()
                    .to("word-counts", Utf8, I64);
            }
        }
    };

    #[test]
    fn group_by_splits_at_the_repartition_topic() {
        let m = model(WORD_COUNT()).expect("builds");
        assert_eq!(m.subs.len(), 2);
        assert_eq!(
            m.subs[0]
                .source_topics
                .iter()
                .map(|t| t.0.as_str())
                .collect::<Vec<_>>(),
            ["sentences"]
        );
        assert_eq!(
            m.subs[0].repartition_sinks,
            ["word-count-counts-repartition"]
        );
        assert_eq!(
            m.subs[1].repartition_sources[0].0,
            "word-count-counts-repartition"
        );
        assert_eq!(m.subs[1].sink_topics, ["word-counts"]);
        assert_eq!(m.stores[0].changelog, "word-count-counts-changelog");
        assert_eq!(m.stores[0].sub, 1);
        let names: Vec<&str> = m.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "KSTREAM-SOURCE-0000000000",
                "KSTREAM-FLATMAPVALUES-0000000001",
                "KSTREAM-KEY-SELECT-0000000002",
                "counts-repartition-sink",
                "counts-repartition-source",
                "KSTREAM-AGGREGATE-0000000005",
                "KTABLE-TOSTREAM-0000000006",
                "KSTREAM-SINK-0000000007",
            ]
        );
    }

    #[test]
    fn output_is_deterministic() {
        let a = crate::describe::describe(&model(WORD_COUNT()).expect("builds"));
        let b = crate::describe::describe(&model(WORD_COUNT()).expect("builds"));
        assert_eq!(a, b);
    }

    #[test]
    fn group_by_key_repartitions_only_after_a_key_change() {
        let m = model(quote! {
            T = "app" {
                let s = stream("in", Utf8, I64);
                s.group_by_key().count("a");
                s.select_key(|_, v| *v).group_by_key(I64, I64).count("b");
            }
        })
        .expect("builds");
        let reps: Vec<&str> = m
            .subs
            .iter()
            .flat_map(|s| s.repartition_sinks.iter().map(String::as_str))
            .collect();
        assert_eq!(reps, ["app-b-repartition"]);
        assert_eq!(m.subs.len(), 2);
    }

    #[test]
    fn join_declares_a_copartition_group_and_merges_subtopologies() {
        let m = model(quote! {
            T = "app" {
                let t = table("customers", Utf8, Utf8);
                stream("orders", Utf8, Utf8).join(t, |a, b| a + &b).to("out", Utf8, Utf8);
            }
        })
        .expect("builds");
        assert_eq!(m.subs.len(), 1);
        assert_eq!(
            m.subs[0].copartition_groups,
            [(vec!["customers".to_owned(), "orders".to_owned()], vec![])]
        );
        assert!(!m.stores[0].logged);
        assert_eq!(m.stores[0].changelog, "customers");
    }

    #[test]
    fn windows_and_durations() {
        let m = model(quote! {
            T = "app" {
                stream("in", Utf8, Utf8)
                    .group_by_key()
                    .windowed_by(hopping(Duration::from_mins(5), 60_000).grace(Duration::from_secs(30)))
                    .count("c");
            }
        }).expect("builds");
        assert_eq!(
            m.stores[0].window,
            Some(WindowSpec {
                size: 300_000,
                advance: 60_000,
                grace: 30_000
            })
        );
    }

    #[test]
    fn structural_errors_name_the_fix() {
        assert!(
            first_error(quote!(T = "a" { stream("in", Utf8, Utf8).count("c"); }))
                .contains("group_by")
        );
        assert!(
            first_error(quote!(T = "a" { table("t", Utf8, Utf8).filter(|_, _| true); }))
                .contains("to_stream()")
        );
        assert!(
            first_error(
                quote!(T = "a" { stream("in", Utf8, Utf8).to("o", Utf8, Utf8).peek(|_, _| ()); })
            )
            .contains("after a sink")
        );
        assert!(
            first_error(quote!(T = "a" { stream("in", Utf8, Utf8).to("o", Utf8, I64); }))
                .contains("i64")
        );
        assert!(
            first_error(quote!(T = "a" { x.to("o", Utf8, I64); }))
                .contains("unknown stream or table `x`")
        );
    }
}
