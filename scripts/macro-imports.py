#!/usr/bin/env python3
"""The import graph of the macro crate (macros/src): one node per file, an edge for every
`use` and inline `crate::`/`super::`/`self::` path (comments, string literals and test-only
files left out; a `mod` declaration is containment, not an import). Prints the edges, then every import circle (strongly connected component). The registry's
own circle is allowed: an operator file importing `ops/mod.rs` (the registry's types) while
`ops/mod.rs` lists it. Exits 1 when any other circle exists.

    python3 scripts/macro-imports.py [--edges]
"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "macros", "src")
SKIP = {"build/tests.rs", "expand_tests.rs"}


def files():
    out = []
    for d, _, fs in os.walk(ROOT):
        for f in fs:
            if f.endswith(".rs"):
                rel = os.path.relpath(os.path.join(d, f), ROOT)
                if rel not in SKIP:
                    out.append(rel)
    return sorted(out)


def module_of(rel):
    """`ops/filter.rs` -> ['ops', 'filter']; `ops/mod.rs` -> ['ops']; `lib.rs` -> []."""
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def file_of(mod, all_files):
    """The file of the longest prefix of module path `mod` that is a file."""
    for n in range(len(mod), -1, -1):
        p = mod[:n]
        for cand in (("/".join(p) + ".rs") if p else "lib.rs", "/".join(p + ["mod.rs"])):
            if cand in all_files:
                return cand
    return None


def strip(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(\\.|[^"\\])*"', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    # test-only modules inside a file
    text = re.sub(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{.*", "", text, flags=re.S)
    return text


def use_paths(tree, prefix=""):
    """Expands `a::{b, c::{d}}` into paths."""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [prefix + tree.split(" as ")[0].strip()]
    head, body = tree[:i], tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            out += use_paths(p, prefix + head)
    return out


def resolve(path, mod):
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(mod)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    else:
        return None
    return base + segs


def edges():
    all_files = set(files())
    out = {}
    for rel in sorted(all_files):
        mod = module_of(rel)
        # a file's `super` is its parent module; for mod.rs files `mod` is the module itself
        text = strip(open(os.path.join(ROOT, rel)).read())
        targets = set()
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths += use_paths(re.sub(r"\s+", " ", m.group(1)))
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", text)
        # paths relative to this module: `filter::FILTER` for a `mod filter;` of this file
        for child in re.findall(r"\bmod\s+(\w+)\s*;", text):
            if re.search(r"(?<![:\w])" + child + r"::", text):
                paths.append("self::" + child)
        for p in paths:
            r = resolve(p, mod)
            if r is None:
                continue
            t = file_of(r, all_files)
            if t and t != rel:
                targets.add(t)
        out[rel] = sorted(targets)
    return out


def sccs(g):
    index, low, stack, on, res, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in g.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                res.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in g:
        if v not in index:
            visit(v)
    return res


def main():
    g = edges()
    if "--edges" in sys.argv:
        for f, ts in g.items():
            print(f"{f} -> {', '.join(ts)}")
        print()
    print("all circles (the registry's included):")
    for c in sccs(g):
        print("  " + " <-> ".join(c))
    # The registry's circle: operator files using ops/mod.rs's types. Without those edges the
    # graph must have no circle.
    g2 = {f: [t for t in ts if not (t == "ops/mod.rs" and f.startswith("ops/"))] for f, ts in g.items()}
    other = sccs(g2)
    print("circles other than the registry's:")
    for c in other:
        print("  " + " <-> ".join(c))
    if not other:
        print("  none")
    sys.exit(1 if other else 0)


if __name__ == "__main__":
    main()
