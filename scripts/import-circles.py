#!/usr/bin/env python3
"""Import circles between the files of a crate, from its `use crate::..` and `super::..` lines.

    python3 scripts/import-circles.py macros/src runtime/src

Prints each crate's file count, its import edges and every circle (a strongly connected set of
files that import each other, directly or not), with the names each file takes from the next.
A module's `mod.rs` and the files it declares are not a circle by themselves: a child file's
`use super::X` names the parent only when X is defined in the parent's own file.
"""
import os
import re
import sys


def module_path(root, path):
    rel = os.path.relpath(path, root)[:-3].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return rel


def resolve(files, parts):
    """The file defining module path `parts`, or the longest prefix that is one."""
    for n in range(len(parts), -1, -1):
        f = files.get(tuple(parts[:n]))
        if f:
            return f, parts[n:]
    return None, parts


def edges_of(root):
    files = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                p = os.path.join(d, f)
                files[tuple(module_path(root, p))] = p
    edges = {}
    for mod, path in files.items():
        text = open(path, encoding="utf-8").read()
        # Leave out `#[cfg(test)] mod tests { .. }` bodies: tests may import anything.
        text = re.split(r"#\[cfg\(test\)\]\s*mod tests\s*\{", text)[0]
        # Leave out comments (docs name modules without importing them).
        text = re.sub(r"//[^\n]*", "", text)
        for m in re.finditer(r"\b(crate|super)((?:::[A-Za-z_][A-Za-z0-9_]*)+)(::\{[^;]*\})?", text):
            head, tail = m.group(1), m.group(2).split("::")[1:]
            is_dir = os.path.basename(path) in ("mod.rs", "lib.rs")
            base = [] if head == "crate" else (list(mod[:-1]) if not is_dir else list(mod[:-1]))
            if head == "super" and is_dir:
                base = list(mod[:-1])
            names = tail
            while names and names[0] == "super":
                base, names = base[:-1], names[1:]
            target, rest = resolve(files, base + names)
            if target and target != path:
                edges.setdefault(path, {}).setdefault(target, set()).add(
                    (rest[0] if rest else names[-1]) if names else "")
    return files, edges


def circles(nodes, edges):
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            scc = []
            while True:
                w = stack.pop()
                on.discard(w)
                scc.append(w)
                if w == v:
                    break
            if len(scc) > 1:
                out.append(sorted(scc))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def main():
    for root in sys.argv[1:] or ["macros/src", "runtime/src"]:
        files, edges = edges_of(root)
        found = circles(sorted(files.values()), edges)
        count = sum(len(t) for t in edges.values())
        print(f"{root}: {len(files)} files, {count} import edges, {len(found)} circle(s)")
        for scc in found:
            print(f"  circle of {len(scc)}:")
            for a in scc:
                for b, names in sorted(edges.get(a, {}).items()):
                    if b in scc:
                        print(f"    {a} -> {b}: {', '.join(sorted(n for n in names if n))}")


if __name__ == "__main__":
    main()
