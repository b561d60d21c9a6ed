#!/usr/bin/env bash
# Compile time of topologies (issue 32, item 4): cold and incremental builds, debug and release,
# the macro's share and the generated code per operator family, for two crates:
#   - `examples`: the examples crate of this workspace (dekaf-streams-examples, default features);
#   - `generated`: a crate of N realistic topologies (benches/compile/gen_crate.py, default 40:
#     word count, windows, sessions, sliding windows, stream-table, stream-stream, table-table
#     and foreign-key joins, a processor with a store, branch/merge/repartition routing).
#
# Usage: benches/compile-time.sh [--count N] [--repeat R] [--out FILE]
#
# Each crate is built from a copy of HEAD (`git archive`) in its own target directory under
# target/compile-time/, so "cold" means every dependency too (librdkafka included). An
# incremental build follows a one-line change inside one topology (a filter's constant, a new
# value each time), repeated R times (default 3; the table gives the median and the range).
# The macro's share is rustc's own account (`-Z time-passes`, `macro_expand_crate`, through
# RUSTC_BOOTSTRAP=1 on the stable compiler: a measurement, never a build setting of the
# project) of the crate's incremental debug build; `cargo build --timings` gives the crate's
# unit time beside it. Code size is `cargo llvm-lines` (crates.io; installed when missing)
# of the generated crate, summed per module (one module per operator family).
#
# Measure on a quiet machine: builds are CPU-bound, and the 2-core machines here are shared.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
count=40
repeat=3
out="benches/results/compile-time.md"
while [ $# -gt 0 ]; do
  case "$1" in
    --count) count="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done

say() { printf '[compile-time] %s\n' "$*" >&2; }
work="$root/target/compile-time"
rm -rf "$work"
mkdir -p "$work/ws"
git archive HEAD | tar -x -C "$work/ws"
python3 benches/compile/gen_crate.py "$work/generated" "$work/ws/runtime" "$count"

# seconds CMD..: runs CMD, prints its wall time in seconds (one decimal).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; return 1; }
  end=$(date +%s.%N)
  python3 -c "print(f'{$end - $start:.1f}')"
}

# median of the arguments, then min and max: "median (min-max)".
summary() { python3 -c "import sys,statistics as s; v=sorted(map(float,sys.argv[1:])); print(f'{s.median(v):.1f} ({v[0]:.1f}-{v[-1]:.1f})')" "$@"; }

# change FILE FROM TO: a one-line edit (sed on a fixed string).
change() { python3 -c "import sys; p,a,b=sys.argv[1:]; s=open(p).read(); assert a in s, (p, a); open(p,'w').write(s.replace(a,b,1))" "$@"; }

declare -A row
measure() { # name dir cargo-args file committed-line edited-line(N: a number) unit-name
  local name="$1" dir="$2" args="$3 --lib" file="$4" orig="$5" line="$6" unit_name="$7" target="$work/target-$1"
  local cold_debug cold_release inc_debug=() inc_release=() current="${line//N/0}"
  change "$dir/$file" "$orig" "$current"
  say "$name: cold debug build"
  cold_debug=$(cd "$dir" && CARGO_TARGET_DIR="$target" seconds cargo build $args)
  for i in $(seq 1 "$repeat"); do
    local next="${line//N/$i}"
    change "$dir/$file" "$current" "$next"; current="$next"
    inc_debug+=("$(cd "$dir" && CARGO_TARGET_DIR="$target" seconds cargo build $args)")
  done
  say "$name: cold release build"
  cold_release=$(cd "$dir" && CARGO_TARGET_DIR="$target" seconds cargo build --release $args)
  for i in $(seq 1 "$repeat"); do
    local next="${line//N/$((i + 100))}"
    change "$dir/$file" "$current" "$next"; current="$next"
    inc_release+=("$(cd "$dir" && CARGO_TARGET_DIR="$target" seconds cargo build --release $args)")
  done
  # rustc's account of the last incremental debug build: one more change, then time-passes.
  local next="${line//N/999}"
  change "$dir/$file" "$current" "$next"; current="$next"
  local passes
  passes=$(cd "$dir" && CARGO_TARGET_DIR="$target" RUSTC_BOOTSTRAP=1 cargo rustc $args -- -Z time-passes 2>&1 || true)
  local expand total
  expand=$(awk '/macro_expand_crate$/ {gsub(";","",$2); print $2; exit}' <<<"$passes")
  total=$(awk '/[[:space:]]total$/ {gsub(";","",$2); v=$2} END {print v}' <<<"$passes")
  # --timings: the unit time of the crate itself in an incremental debug build.
  next="${line//N/998}"
  change "$dir/$file" "$current" "$next"
  (cd "$dir" && CARGO_TARGET_DIR="$target" cargo build $args --timings >/dev/null 2>&1) || true
  local unit
  unit=$(python3 - "$target/cargo-timings/cargo-timing.html" "$unit_name" <<'EOF'
import json, re, sys
html = open(sys.argv[1]).read()
data = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
print(" ".join(f"{u['duration']:.1f}" for u in data if u["name"] == sys.argv[2]) or "?")
EOF
  ) || unit="?"
  row[$name]="| $name | $cold_debug | $(summary "${inc_debug[@]}") | ${unit} | ${expand:-?} of ${total:-?} | $cold_release | $(summary "${inc_release[@]}") |"
}

lines_of() { grep -c '' "$1"; }
topologies_of() { grep -c 'topology!' "$@" | awk -F: '{s += $NF} END {print s}'; }

measure examples "$work/ws" "-p dekaf-streams-examples" examples/src/word_count.rs \
  "sentence.split(' ').map(str::to_owned)" \
  "sentence.split(' ').filter(|w| w.len() < 10N).map(str::to_owned)" dekaf-streams-examples
measure generated "$work/generated" "" src/lib.rs "!word.is_empty()" "word.len() > N" compile-bench

# Code size per operator family: cargo llvm-lines of the generated crate (debug).
command -v cargo-llvm-lines >/dev/null || cargo install cargo-llvm-lines >/dev/null 2>&1
llvm="$work/llvm-lines.txt"
(cd "$work/generated" && CARGO_TARGET_DIR="$work/target-generated" cargo llvm-lines --lib >"$llvm" 2>/dev/null) || true
families=$(python3 - "$llvm" "$work/generated/src/lib.rs" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
src = open(sys.argv[2]).read()
mods = re.findall(r"^pub mod (\w+) \{", src, re.M)
per = {m: [0, 0] for m in mods}
total = 0
for l in lines:
    m = re.match(r"\s*(\d+)\s+\(\s*[\d.]+%[^)]*\)\s+(\d+)\s+\(\s*[\d.]+%[^)]*\)\s+(.*)", l)
    if not m:
        continue
    n, copies, name = int(m.group(1)), int(m.group(2)), m.group(3)
    total += n
    for mod in mods:
        if f"::{mod}::" in name:
            per[mod][0] += n
            per[mod][1] += copies
            break
count = {m: len(re.findall(r"topology! \{", src.split(f"pub mod {m} {{", 1)[1].split("\n}\n", 1)[0])) for m in mods}
print("| family | topologies | LLVM lines | per topology | functions |")
print("|---|---|---|---|---|")
for m in mods:
    n, c = per[m]
    print(f"| `{m}` | {count[m]} | {n} | {n // max(count[m], 1)} | {c} |")
own = sum(n for n, _ in per.values())
topologies = sum(count.values())
print(f"| runtime generics instantiated for the topologies (`StreamThread<T, F>`, stores, ...: names without a family) | {topologies} | {total - own} | {(total - own) // max(topologies, 1)} | |")
print(f"| the whole crate | {topologies} | {total} | {total // max(topologies, 1)} | |")
EOF
) || families="(cargo llvm-lines failed: see $llvm)"

{
  echo "# Compile time of topologies"
  echo
  echo "Written by \`benches/compile-time.sh --count $count --repeat $repeat\` on $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), $(nproc) cores, $(rustc --version)."
  echo
  echo "- \`examples\`: the examples crate's library, $(topologies_of "$work"/ws/examples/src/*.rs) topologies in $(cat "$work"/ws/examples/src/*.rs | grep -c '') lines."
  echo "- \`generated\`: $count topologies of benches/compile/gen_crate.py in $(lines_of "$work/generated/src/lib.rs") lines."
  echo
  echo "Seconds of wall time. Incremental: after a one-line change inside one topology, median (range) of $repeat. Crate unit: \`cargo build --timings\`' time of the crate itself in an incremental debug build. Macro expansion: rustc's \`-Z time-passes\` \`macro_expand_crate\` of the crate, against its \`total\`."
  echo
  echo "| crate | cold debug | incremental debug | crate unit (debug) | macro expansion of total | cold release | incremental release |"
  echo "|---|---|---|---|---|---|---|"
  echo "${row[examples]}"
  echo "${row[generated]}"
  echo
  echo "Generated code (\`cargo llvm-lines --lib\`, debug) of the generated crate per operator family, each family's topologies in their own module:"
  echo
  echo "$families"
} >"$out"
say "wrote $out"
cat "$out"
