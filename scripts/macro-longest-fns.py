#!/usr/bin/env python3
"""The longest functions of the macro crate (macros/src): a function runs from its `fn` line to
the line of the brace that closes it at the same indentation (rustfmt's layout).

    python3 scripts/macro-longest-fns.py [N]
"""
import os, re, sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "macros", "src")
FN = re.compile(r"^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?fn\s+(\w+)")

out = []
for d, _, fs in os.walk(ROOT):
    for f in fs:
        if not f.endswith(".rs"):
            continue
        path = os.path.join(d, f)
        lines = open(path).read().split("\n")
        for i, line in enumerate(lines):
            m = FN.match(line)
            if not m or line.rstrip().endswith(";"):
                continue
            indent = m.group(1)
            for j in range(i + 1, len(lines)):
                if lines[j] == indent + "}":
                    out.append((j - i + 1, os.path.relpath(path, ROOT), m.group(5)))
                    break
out.sort(reverse=True)
for n, f, name in out[: int(sys.argv[1]) if len(sys.argv) > 1 else 10]:
    print(f"{n:5} {f} {name}")
