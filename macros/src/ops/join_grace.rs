//! A stream-table join with a grace period: `s.join(table, f, grace(D))` (or `left_join`), Kafka
//! Streams' `Joined.withGracePeriod(D)` (KIP-923), for a versioned table ([`super::versioned`]).
//!
//! A stream record is not joined when it arrives but put into a buffer, until the buffer's
//! stream time (the largest timestamp put into it) has passed the record's timestamp plus the
//! grace; then it is joined as of its own timestamp against the table as it is by then, so table
//! updates that arrive a little late still reach the records they belong to. Records leave the
//! buffer in timestamp order (then key bytes, then arrival). A record older than the buffer's
//! stream time minus the grace is late: it is joined at once, as of its timestamp. The buffer is
//! a store `<join node>-Buffer` with a changelog, written in the task's transaction, so under
//! exactly-once a buffered record is joined exactly once across crashes.
//!
//! Differences from Kafka Streams: a buffered record's headers are not kept (the joined record
//! has none), the buffer's changelog records hold the plain value bytes (not Kafka Streams'
//! `BufferValue`), and a `left_join` record with a null key is joined at once (Kafka Streams
//! fails on it).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::args::{duration, err_at};
use crate::build::{Builder, Stream};
use crate::codegen::emitter::{Acc, Emitter, dk};
use crate::codegen::parts::TaskParts;
use crate::ir::{JoinGrace, NodeKind, SerdeTy, Store, StoreOwner, Sub};
use syn::spanned::Spanned;

const USAGE: &str = "grace(Duration::from_secs(..)) or grace(Duration::from_secs(..), ValueSerde) as the join's third argument";

/// The `grace(..)` option of a stream-table join, if `arg` is one: the grace in milliseconds and
/// the value serde it names (for a stream whose value serde is not known here).
pub(crate) fn parse(arg: &syn::Expr) -> Option<syn::Result<(i64, Option<SerdeTy>)>> {
    let syn::Expr::Call(c) = arg else { return None };
    let syn::Expr::Path(p) = &*c.func else {
        return None;
    };
    if !p.path.is_ident("grace") {
        return None;
    }
    let args: Vec<&syn::Expr> = c.args.iter().collect();
    Some(match args[..] {
        [d] => duration(d).map(|ms| (ms, None)),
        [d, syn::Expr::Path(v)] if v.qself.is_none() => duration(d).map(|ms| {
            let ty = syn::Type::Path(syn::TypePath {
                qself: None,
                path: v.path.clone(),
            });
            (ms, Some(SerdeTy { ty, span: v.span() }))
        }),
        [_, v] => Err(err_at(
            v,
            format!("expected a value serde such as Utf8 or Json::<T>: {USAGE}"),
        )),
        _ => Err(err_at(arg, format!("grace takes a duration: {USAGE}"))),
    })
}

/// Checks the grace of a join of stream `s` with table store `table` (named `name`), for the
/// join's node; [`add_buffer`] then adds its buffer store. Kafka Streams refuses a grace on an unversioned table
/// and one longer than the table's history retention; so does the macro, at `arg`.
pub(crate) fn add(
    b: &mut Builder,
    s: &Stream,
    table: usize,
    name: &syn::Ident,
    arg: &syn::Expr,
    (ms, value): (i64, Option<SerdeTy>),
) -> syn::Result<JoinGrace> {
    let Some(history) = b.stores[table].versioned else {
        return Err(err_at(
            arg,
            format!(
                "a grace period needs a versioned table (Kafka Streams: \"KTable must be versioned to use a grace period in a stream table join\"): make `{name}` with .versioned(Duration::..) of at least the grace"
            ),
        ));
    };
    if history < ms {
        return Err(err_at(
            arg,
            format!(
                "the grace of {ms} ms is longer than `{name}`'s history retention of {history} ms: the buffered records would be joined against versions the table no longer keeps (Kafka Streams: \"History retention must be at least grace period\"); shorten the grace or lengthen versioned(..)"
            ),
        ));
    }
    let key = s.key.clone().unwrap_or_else(|| b.stores[table].key.clone());
    let Some(value) = value.or_else(|| s.value.clone()) else {
        return Err(err_at(
            arg,
            "the stream's value serde is not known here (an operator changed the values), and the grace buffer stores the values: name it, grace(Duration::.., ValueSerde)",
        ));
    };
    Ok(JoinGrace {
        ms,
        // The buffer store takes the next index: `add_buffer` pushes it once the join's node
        // (whose name it takes) is made, and nothing adds a store in between.
        buffer: b.stores.len(),
        key,
        value,
    })
}

/// Adds the buffer store of join `node` (`<node>-Buffer`, changelog
/// `<app>-<node>-Buffer-changelog`, as Kafka Streams names them), at the index [`add`] gave it.
pub(crate) fn add_buffer(b: &mut Builder, node: usize) {
    let name = format!("{}-Buffer", b.nodes[node].name);
    let span = b.nodes[node].span;
    let NodeKind::Join {
        grace: Some(grace), ..
    } = &b.nodes[node].kind
    else {
        return;
    };
    let (key, value) = (grace.key.clone(), grace.value.clone());
    let buffer = b.stores.len();
    let changelog = b.internal(&name, "changelog");
    b.stores.push(Store {
        users: vec![node],
        cached: false,
        ..Store::new(name, span, key, value, changelog, StoreOwner::JoinBuffer)
    });
    debug_assert!(
        matches!(&b.nodes[node].kind, NodeKind::Join { grace: Some(g), .. } if g.buffer == buffer)
    );
}

fn state_field(node: usize) -> proc_macro2::Ident {
    format_ident!("__grace_{}", node)
}

/// The names the code of grace join `node` uses: its two methods, its state field, its buffer
/// store's field and changelog, and the grace.
struct Idents<'m> {
    join: proc_macro2::Ident,
    evict: proc_macro2::Ident,
    state: proc_macro2::Ident,
    buffer: proc_macro2::Ident,
    changelog: &'m str,
    ms: i64,
}

impl<'m> Idents<'m> {
    fn of(em: &Emitter<'m>, node: usize, grace: &JoinGrace) -> Self {
        Idents {
            join: format_ident!("__join_{}", node),
            evict: format_ident!("__evict_{}", node),
            state: state_field(node),
            buffer: Emitter::store_field(grace.buffer),
            changelog: &em.m.stores[grace.buffer].changelog,
            ms: grace.ms,
        }
    }
}

/// The buffer state of each grace join of the task (its stream time, counted again from the
/// store after a restore or rollback), and the scratch buffers of its evictions.
pub(crate) fn task_parts(em: &Emitter<'_>, sub: &Sub, _: &TaskParts) -> TaskParts {
    let dk = dk();
    let nodes: Vec<usize> = sub
        .nodes
        .iter()
        .copied()
        .filter(|&n| matches!(&em.m.nodes[n].kind, NodeKind::Join { grace: Some(_), .. }))
        .collect();
    if nodes.is_empty() {
        return TaskParts::default();
    }
    let fields: Vec<_> = nodes.iter().map(|&n| state_field(n)).collect();
    let reset = quote!(#(self.#fields.reset();)*);
    let methods = nodes.iter().map(|&n| methods(em, n));
    TaskParts {
        fields: quote!(#(#fields: #dk::GraceBuffer,)* __gk: ::std::vec::Vec<u8>, __gv: ::std::vec::Vec<u8>,),
        inits: quote!(#(#fields: #dk::GraceBuffer::new(),)* __gk: ::std::vec::Vec::new(), __gv: ::std::vec::Vec::new(),),
        clear: reset.clone(),
        discard: reset,
        methods: quote!(#(#methods)*),
        ..TaskParts::default()
    }
}

/// `__join_N` (the lookup as of the record's time, the joiner and the children: for a record
/// joined at once and for an evicted one) and `__evict_N` (joins every record the buffer's
/// stream time released) of grace join `node`.
fn methods(em: &Emitter<'_>, node: usize) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let NodeKind::Join {
        store,
        f,
        left,
        grace: Some(grace),
    } = &n.kind
    else {
        return quote!();
    };
    let (kt, vt) = (&grace.key.ty, &grace.value.ty);
    let (k, v) = (format_ident!("__k{}", node), format_ident!("__v{}", node));
    let body = super::join::emit(
        em,
        node,
        *store,
        f,
        *left,
        &Acc::owned(k.clone()),
        &Acc::owned(v.clone()),
    );
    let Idents {
        join,
        evict,
        state,
        buffer,
        changelog,
        ms,
    } = Idents::of(em, node, grace);
    quote! {
        #[allow(unused_variables, unused_mut, unreachable_code, clippy::all)]
        #[inline]
        fn #join<S: #dk::RecordSink>(
            &mut self,
            __dk_record: &#dk::InputRecord<'_>,
            #k: <#kt as #dk::Serde>::Value,
            #v: <#vt as #dk::Serde>::Value,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::RecordError> {
            #body
            Ok(())
        }

        #[allow(clippy::all)]
        fn #evict<S: #dk::RecordSink>(
            &mut self,
            __dk_record: &#dk::InputRecord<'_>,
            __dk_sink: &mut S,
        ) -> ::core::result::Result<(), #dk::RecordError> {
            let mut __dk_kb = ::core::mem::take(&mut self.__gk);
            let mut __dk_vb = ::core::mem::take(&mut self.__gv);
            let mut __dk_out = Ok(());
            loop {
                let __dk_ts = match self.#state.evict_next(
                    &mut self.#buffer, #ms, __dk_sink, #changelog, self.__partition,
                    &mut __dk_kb, &mut __dk_vb, #name,
                ) {
                    Ok(Some(ts)) => ts,
                    Ok(None) => break,
                    Err(e) => {
                        __dk_out = Err(e);
                        break;
                    }
                };
                let __dk_joined = (|| {
                    let __dk_k = #dk::de_key::<#kt>(Some(&__dk_kb), #name)?;
                    let __dk_v = #dk::de_value::<#vt>(Some(&__dk_vb), #name)?;
                    let __dk_rec = #dk::InputRecord {
                        timestamp: __dk_ts,
                        key: Some(&__dk_kb),
                        value: Some(&__dk_vb),
                        headers: #dk::Headers::empty(),
                        ..*__dk_record
                    };
                    Ok::<_, #dk::RecordError>((__dk_k, __dk_v, __dk_rec))
                })();
                match __dk_joined {
                    Ok((__dk_k, __dk_v, __dk_rec)) => {
                        if let Err(e) = self.#join(&__dk_rec, __dk_k, __dk_v, __dk_sink) {
                            __dk_out = Err(e);
                            break;
                        }
                    }
                    Err(e) => {
                        __dk_out = Err(e);
                        break;
                    }
                }
            }
            self.__gk = __dk_kb;
            self.__gv = __dk_vb;
            __dk_out
        }
    }
}

/// The record path of grace join `node` on key `k` and value `v`: buffered (then every
/// released record joined), or joined at once when late or keyless.
pub(crate) fn record(
    em: &Emitter<'_>,
    node: usize,
    grace: &JoinGrace,
    k: &Acc,
    v: &Acc,
) -> TokenStream {
    let dk = dk();
    let n = &em.m.nodes[node];
    let name = &n.name;
    let (kt, vt) = (&grace.key.ty, &grace.value.ty);
    let (kr, vr) = (k.r(n.span), v.r(n.span));
    let (ko, vo) = (k.o(n.span), v.o(n.span));
    let Idents {
        join,
        evict,
        state,
        buffer,
        changelog,
        ms,
    } = Idents::of(em, node, grace);
    quote! {
        let __dk_ke = #dk::ser::<#kt>(#kr, &mut self.__gk, #name)?;
        let __dk_ve = #dk::ser::<#vt>(#vr, &mut self.__gv, #name)?;
        let __dk_buffered = if matches!((__dk_ke, __dk_ve), (#dk::Encoded::Present, #dk::Encoded::Present)) {
            self.#state.put(
                &mut self.#buffer, &self.__gk, &self.__gv, __dk_record.timestamp, #ms,
                __dk_sink, #changelog, self.__partition, &mut self.__vbuf, #name,
            )?
        } else {
            false
        };
        if __dk_buffered {
            self.#evict(__dk_record, __dk_sink)?;
        } else {
            self.#join(__dk_record, #ko, #vo, __dk_sink)?;
        }
    }
}
