#!/usr/bin/env python3
"""The import graph of a crate's sources (default: the macro crate, macros/src): one node per
file, an edge for every `use` and inline `crate::`/`super::`/`self::` path (comments, string
literals and test-only files left out; a `mod` declaration is containment, not an import).
Prints the edges, then every import circle (strongly connected component). In the macro crate
the registry's own circle is allowed: an operator file importing `ops/mod.rs` (the registry's
types) while `ops/mod.rs` lists it. Exits 1 when any other circle exists.

    python3 scripts/import-circles.py [--edges] [SRC_DIR ...]
    python3 scripts/import-circles.py macros/src runtime/src runtime/protocol/src
"""
import os, re, sys

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# Test-only files (besides every `tests.rs`), relative to their crate's sources.
SKIP = {"build/tests.rs", "expand_tests.rs"}
ROOT = os.path.join(REPO, "macros", "src")


def files():
    out = []
    for d, _, fs in os.walk(ROOT):
        for f in fs:
            if f.endswith(".rs"):
                rel = os.path.relpath(os.path.join(d, f), ROOT)
                if rel not in SKIP and f != "tests.rs":
                    out.append(rel)
    return sorted(out)


def module_of(rel):
    """`ops/filter.rs` -> ['ops', 'filter']; `ops/mod.rs` -> ['ops']; `lib.rs` -> []."""
    parts = rel[:-3].split("/")
    if parts[-1] in ("mod", "lib"):
        parts = parts[:-1]
    return parts


def file_of(mod, all_files):
    """The file of the longest prefix of module path `mod` that is a file, and the rest of the
    path after it (the item named there)."""
    for n in range(len(mod), -1, -1):
        p = mod[:n]
        for cand in (("/".join(p) + ".rs") if p else "lib.rs", "/".join(p + ["mod.rs"])):
            if cand in all_files:
                return cand, mod[n:]
    return None, []


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


def paths_of(text, mod):
    """The `crate::`/`super::`/`self::` paths a file's (stripped) text names, and its
    re-exports: name -> the module path a `pub use` gives it."""
    paths, reexports = [], {}
    for m in re.finditer(r"\b(pub(?:\([\w: ]+\))?\s+)?use\s+([^;]+);", text):
        for p in use_paths(re.sub(r"\s+", " ", m.group(2))):
            paths.append(p)
            r = resolve(p if p.split("::")[0] in ("crate", "super", "self") else "self::" + p, mod)
            if m.group(1) and r:
                alias = re.search(r"\bas\s+(\w+)\s*$", m.group(2))
                reexports[alias.group(1) if alias and "{" not in m.group(2) else r[-1]] = r
    # `use other_crate as name;`: `crate::name::..` is that crate, not this file.
    for m in re.finditer(r"\buse\s+(\w+)\s+as\s+(\w+)\s*;", text):
        if m.group(1) not in ("crate", "super", "self"):
            reexports[m.group(2)] = None
    paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", text)
    # paths relative to this module: `filter::FILTER` for a `mod filter;` of this file
    for child in re.findall(r"\bmod\s+(\w+)\s*;", text):
        if re.search(r"(?<![:\w])" + child + r"::", text):
            paths.append("self::" + child)
    return paths, reexports


def edges():
    all_files = set(files())
    texts = {rel: strip(open(os.path.join(ROOT, rel)).read()) for rel in all_files}
    parsed = {rel: paths_of(texts[rel], module_of(rel)) for rel in all_files}
    out = {}
    for rel in sorted(all_files):
        mod = module_of(rel)
        targets = set()
        for p in parsed[rel][0]:
            r = resolve(p, mod)
            # Through re-exports (a `pub use` in a facade `mod.rs`) to the file defining it.
            for _ in range(8):
                if r is None:
                    break
                t, rest = file_of(r, all_files)
                if t and rest and rest[0] in parsed[t][1] and parsed[t][1][rest[0]] is None:
                    r = None  # another crate, named through an alias
                    break
                nxt = parsed[t][1].get(rest[0]) if t and rest else None
                if nxt is None or nxt == r:
                    break
                r = nxt
            if r is None:
                continue
            t, _ = file_of(r, all_files)
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


def report(root):
    """Prints the circles of the crate whose sources are `root`; whether one is not allowed."""
    global ROOT
    ROOT = root
    g = edges()
    if "--edges" in sys.argv:
        for f, ts in g.items():
            print(f"{f} -> {', '.join(ts)}")
        print()
    print(f"{os.path.relpath(root, REPO)}: {len(g)} files, {sum(map(len, g.values()))} import edges")
    print("  all circles:")
    for c in sccs(g):
        print("    " + " <-> ".join(c))
    # The registry's circle: operator files using ops/mod.rs's types. Without those edges the
    # graph must have no circle.
    registry = "ops/mod.rs" in g
    g2 = {f: [t for t in ts if not (registry and t == "ops/mod.rs" and f.startswith("ops/"))] for f, ts in g.items()}
    other = sccs(g2)
    print("  circles other than the registry's:" if registry else "  circles not allowed (all):")
    for c in other:
        print("    " + " <-> ".join(c))
    if not other:
        print("    none")
    return bool(other)


def main():
    roots = [a for a in sys.argv[1:] if not a.startswith("--")] or ["macros/src"]
    failed = [report(os.path.abspath(r)) for r in roots]
    sys.exit(1 if any(failed) else 0)


if __name__ == "__main__":
    main()
