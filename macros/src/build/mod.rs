//! Phase 2: the operator graph ([`crate::ir`]) under construction: the [`Builder`] that the
//! operators' lowerings (`crate::ops`, dispatched by `crate::lower`) add nodes (one per
//! operator, numbered in the order they appear, so ids and names are deterministic) and stores
//! to, the names bound by `let`, and what a name or expression evaluates to ([`Flow`]).
//! [`partition`] then cuts the graph into subtopologies and `crate::check` checks names and
//! topics.

pub(crate) mod partition;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::Expr;

use crate::args::{err, err_at};
use crate::diagnostics::Diagnostics;
use crate::ir::{Node, NodeKind, SerdeTy, Store, TopicUse, WindowSpec};
use crate::names;
use crate::parse::Binding;

/// What a name or an expression evaluates to while building.
#[derive(Clone)]
pub(crate) enum Flow {
    Stream(Stream),
    Grouped(Grouped),
    /// Grouped streams cogrouped into one aggregation (`crate::ops::cogroup`).
    Cogrouped(Cogrouped),
    Table(Table),
    /// A global table (index into `Builder::globals`): joined by streams, never a stream itself.
    Global(usize),
    /// After a call that ends the stream (`to`, `foreach`): its tokens.
    Ended(TokenStream),
    /// The arms of a branch, and the branch call's tokens.
    Branches(Vec<usize>, TokenStream),
    /// A declaration (`on_error(..)`): nothing may follow it.
    Decl,
    /// A store declared for `process(..)` (index into `Builder::stores`): its options
    /// (`in_memory()`, `with_logging_*`) may follow.
    Store(usize),
    /// A name whose definition had an error: uses of it report nothing more.
    Broken,
}

/// A stream: the node that produces it and what is known of its records.
#[derive(Clone)]
pub(crate) struct Stream {
    pub node: usize,
    pub key: Option<SerdeTy>,
    pub value: Option<SerdeTy>,
    pub key_changed: bool,
    /// The windows of windowed keys.
    pub window: Option<WindowSpec>,
}

/// A grouped (and maybe windowed) stream, waiting for its aggregation.
#[derive(Clone)]
pub(crate) struct Grouped {
    pub node: usize,
    pub key: Option<SerdeTy>,
    pub value: Option<SerdeTy>,
    pub repartition: bool,
    pub window: Option<WindowSpec>,
    pub span: Span,
    /// The grouping call's tokens, for errors about it.
    pub tokens: TokenStream,
    /// The operator that grouped, for messages.
    pub how: &'static str,
}

/// Grouped streams cogrouped for one aggregation (Kafka Streams' `CogroupedKStream`): each with
/// its aggregator, in the order they were cogrouped; maybe windowed (after all of them).
#[derive(Clone)]
pub(crate) struct Cogrouped {
    pub parts: Vec<CogroupPart>,
    pub window: Option<WindowSpec>,
}

/// One grouped stream of a cogroup and its aggregator `|key, value, aggregate| ..`.
#[derive(Clone)]
pub(crate) struct CogroupPart {
    pub grouped: Grouped,
    pub f: Expr,
    /// The `cogroup(..)` call that added it, for errors about it.
    pub tokens: TokenStream,
}

/// A table: the node that produces it and its store.
#[derive(Clone, Copy)]
pub(crate) struct Table {
    pub node: usize,
    pub store: usize,
}

/// A name bound by `let`.
struct Var {
    flow: Flow,
    name: syn::Ident,
    used: bool,
}

/// What the model takes from the topology's header: its attributes, visibility, name and
/// application id, and where its body is (for the error of an empty body).
pub(crate) struct Header {
    pub attrs: Vec<syn::Attribute>,
    pub vis: syn::Visibility,
    pub name: syn::Ident,
    pub app_id: syn::LitStr,
    pub body_span: Span,
}

/// The graph under construction.
pub(crate) struct Builder {
    pub app_id: String,
    pub nodes: Vec<Node>,
    pub stores: Vec<Store>,
    vars: BTreeMap<String, Var>,
    pub on_error: Option<Expr>,
    /// The tokens of the `on_error(..)` call, once set.
    pub on_error_call: Option<TokenStream>,
    pub topics: Vec<TopicUse>,
    pub diagnostics: Diagnostics,
    /// repartition sink node → repartition source node
    pub repartitions: Vec<(usize, usize)>,
    /// join node → table node
    pub joins: Vec<(usize, usize)>,
    /// branch arm node → the stream it continues
    pub arms: BTreeMap<usize, Stream>,
    /// repartition topics of repartition(..) → where named
    pub repartition_names: BTreeMap<String, Span>,
    /// repartition topics of repartition(.., partitions(n)) → n
    pub repartition_partitions: BTreeMap<String, u32>,
    /// The global tables (`global_table(..)`), outside the node graph.
    pub globals: Vec<crate::ir::GlobalTable>,
    /// Indexes of Kafka Streams' name generator taken by names that are no node's.
    pub reserved_indexes: usize,
}

impl Builder {
    /// An empty graph for application `app_id`, taking over `diagnostics`.
    pub(crate) fn new(app_id: String, diagnostics: &mut Diagnostics) -> Self {
        Builder {
            app_id,
            nodes: Vec::new(),
            stores: Vec::new(),
            vars: BTreeMap::new(),
            on_error: None,
            on_error_call: None,
            topics: Vec::new(),
            diagnostics: std::mem::take(diagnostics),
            repartitions: Vec::new(),
            joins: Vec::new(),
            arms: BTreeMap::new(),
            repartition_names: BTreeMap::new(),
            repartition_partitions: BTreeMap::new(),
            globals: Vec::new(),
            reserved_indexes: 0,
        }
    }

    /// Binds the names of a statement to what its chain made.
    pub(crate) fn bind(&mut self, binding: Binding, flow: Flow) {
        if let Flow::Broken = flow {
            let names = match binding {
                Binding::One(name) => vec![name],
                Binding::Many(names, _) => names,
                Binding::None => Vec::new(),
            };
            for name in names {
                self.define(name, Flow::Broken);
            }
            return;
        }
        match binding {
            Binding::None => {}
            Binding::One(name) => {
                if let Flow::Branches(_, tokens) = flow {
                    self.diagnostics.error(err_at(tokens, "branch() makes several streams: bind them with `let [a, b] = s.branch(..);`"));
                    return;
                }
                self.define(name, flow);
            }
            Binding::Many(names, span) => {
                let Flow::Branches(arms, _) = flow else {
                    self.diagnostics.error(err(span, "only branch(..) makes several streams; bind other streams with `let s = ..;`"));
                    return;
                };
                if arms.len() != names.len() {
                    self.diagnostics.error(err(
                        span,
                        format!(
                            "branch(..) has {} predicates but {} names are bound: bind one name per predicate",
                            arms.len(),
                            names.len()
                        ),
                    ));
                    // Bind the names anyway, so later statements do not report them unknown.
                    for name in names {
                        self.define(name, Flow::Broken);
                    }
                    return;
                }
                for (name, arm) in names.into_iter().zip(arms) {
                    // An arm keeps the key and serdes of the branched stream.
                    let stream = match self.arms.get(&arm) {
                        Some(s) => s.clone(),
                        None => Stream {
                            node: arm,
                            key: None,
                            value: None,
                            key_changed: true,
                            window: None,
                        },
                    };
                    self.define(name, Flow::Stream(stream));
                }
            }
        }
    }

    fn define(&mut self, name: syn::Ident, flow: Flow) {
        if name == "_" {
            return;
        }
        self.vars.insert(
            name.to_string(),
            Var {
                flow,
                name,
                used: false,
            },
        );
    }

    /// What `name` is bound to, marking it used.
    pub(crate) fn lookup(&mut self, name: &syn::Ident) -> Option<Flow> {
        let var = self.vars.get_mut(&name.to_string())?;
        var.used = true;
        Some(var.flow.clone())
    }

    /// The error of a `name` that nothing binds (a `what`, made with `source`): bind it with
    /// `let`, with the names bound so far.
    pub(crate) fn unbound(&self, name: &syn::Ident, what: &str, source: &str) -> syn::Error {
        let known: Vec<&str> = self.vars.keys().map(String::as_str).collect();
        let known = if known.is_empty() {
            String::new()
        } else {
            format!(" (bound so far: {})", known.join(", "))
        };
        err_at(
            name,
            format!("unknown {what} `{name}`: bind it first with `let {name} = {source};`{known}"),
        )
    }

    /// The table bound to `name`, as an operator's argument: `Ok(None)` for a binding whose
    /// definition failed (its error is reported already); an error at `name` for anything else
    /// (`not_a_table`: what to say, after "`name` is not a table: ") or an unbound name.
    pub(crate) fn bound_table(
        &mut self,
        name: &syn::Ident,
        not_a_table: &str,
    ) -> syn::Result<Option<Table>> {
        let table = |flow| match flow {
            Flow::Table(t) => Some(t),
            _ => None,
        };
        self.bound(name, ("table", "table(..)"), table, not_a_table)
    }

    /// The stream bound to `name`, as an operator's argument: as [`Builder::bound_table`].
    pub(crate) fn bound_stream(
        &mut self,
        name: &syn::Ident,
        not_a_stream: &str,
    ) -> syn::Result<Option<Stream>> {
        let stream = |flow| match flow {
            Flow::Stream(s) => Some(s),
            _ => None,
        };
        self.bound(name, ("stream", "stream(..)"), stream, not_a_stream)
    }

    /// The grouped stream bound to `name`, as an operator's argument: as
    /// [`Builder::bound_table`].
    pub(crate) fn bound_grouped(
        &mut self,
        name: &syn::Ident,
        not_grouped: &str,
    ) -> syn::Result<Option<Grouped>> {
        let grouped = |flow| match flow {
            Flow::Grouped(g) => Some(g),
            _ => None,
        };
        self.bound(
            name,
            ("grouped stream", "stream(..).group_by_key()"),
            grouped,
            not_grouped,
        )
    }

    /// What `pick` takes from `name`'s binding (`what`: its kind and how one is made).
    fn bound<T>(
        &mut self,
        name: &syn::Ident,
        (what, source): (&str, &str),
        pick: impl FnOnce(Flow) -> Option<T>,
        not_it: &str,
    ) -> syn::Result<Option<T>> {
        match self.lookup(name) {
            Some(Flow::Broken) => Ok(None),
            Some(flow) => match pick(flow) {
                Some(t) => Ok(Some(t)),
                None => Err(err_at(name, format!("`{name}` is not a {what}: {not_it}"))),
            },
            None => Err(self.unbound(name, what, source)),
        }
    }

    /// Warns about a bound stream or table nothing uses (as rustc's `unused_variables`, a name
    /// starting with `_` is exempt).
    pub(crate) fn report_unused_bindings(&mut self) {
        for var in self.vars.values() {
            let what = match var.flow {
                Flow::Stream(_) => "stream",
                Flow::Table(_) => "table",
                Flow::Grouped(_) => "grouped stream",
                Flow::Cogrouped(_) => "cogrouped stream",
                Flow::Global(_) => "global table",
                _ => continue,
            };
            if var.used || var.name.to_string().starts_with('_') {
                continue;
            }
            self.diagnostics.warning(
                "unused_binding",
                &var.name,
                format!(
                    "the {what} `{0}` is bound but never used: it is still computed for nothing (its topics are read, its stores kept). Continue it (`{0}.to(..)`), remove the `let`, or name it `_{0}`",
                    var.name
                ),
            );
        }
    }

    /// Declared stores nobody uses.
    pub(crate) fn report_unused_stores(&mut self) {
        for st in &self.stores {
            if st.owner == crate::ir::StoreOwner::Declared && st.users.is_empty() {
                self.diagnostics.error(err(st.span, format!("store `{}` is declared but no process([..]) uses it: list it in a process(..) or remove it", st.name)));
            }
        }
    }

    /// Adds a node named `<kind>-<id>`, Kafka Streams style.
    pub(crate) fn node(
        &mut self,
        kind: NodeKind,
        kind_name: &str,
        span: Span,
        parents: &[usize],
    ) -> usize {
        let name = names::node_name(kind_name, self.next_index());
        self.push_node(kind, name, span, parents)
    }

    /// The next index of Kafka Streams' name generator (`InternalStreamsBuilder#index`): one per
    /// node, and one per name Kafka Streams generates for something that is no node here (a
    /// global table's store, source and processor; a foreign-key join's topics and stores).
    pub(crate) fn next_index(&self) -> usize {
        self.nodes.len() + self.reserved_indexes
    }

    /// Takes the next index for a name that is no node's.
    pub(crate) fn reserve_index(&mut self) -> usize {
        let index = self.next_index();
        self.reserved_indexes += 1;
        index
    }

    /// Adds a node with its own name.
    pub(crate) fn push_node(
        &mut self,
        kind: NodeKind,
        name: String,
        span: Span,
        parents: &[usize],
    ) -> usize {
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

    /// The name of an internal topic of this application.
    pub(crate) fn internal(&self, name: &str, suffix: &str) -> String {
        names::internal_topic(&self.app_id, name, suffix)
    }

    /// A known serde that differs from the stream's known serde is an error here; unknown ones
    /// are checked by rustc through the generated code (spanned at the serde).
    pub(crate) fn check_value_serde(&mut self, s: &Stream, given: &SerdeTy) {
        if let Some(e) = mismatch("value", s.value.as_ref(), given) {
            self.diagnostics.error(e);
        }
    }

    /// As [`Self::check_value_serde`], for keys.
    pub(crate) fn check_key_serde(&mut self, s: &Stream, given: &SerdeTy) {
        if let Some(e) = mismatch("key", s.key.as_ref(), given) {
            self.diagnostics.error(e);
        }
    }
}

fn mismatch(what: &str, known: Option<&SerdeTy>, given: &SerdeTy) -> Option<syn::Error> {
    let known = known?;
    let (a, b) = (known.builtin_value()?, given.builtin_value()?);
    if a == b {
        return None;
    }
    let mut e = err_at(
        given.ty.to_token_stream(),
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
    e.combine(err_at(
        known.ty.to_token_stream(),
        format!("the stream's {what} serde"),
    ));
    Some(e)
}
