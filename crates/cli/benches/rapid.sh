#!/usr/bin/env bash
# `hindsight races` against RAPID's HBEpoch (issue #43), whole process, on one generated STD
# trace read by both: `hindsight gen`, then `hindsight convert --to rapid` so that RAPID reads
# exactly the events hindsight reads. Three alternated runs each (hyperfine, one run per call,
# so that a slow minute of this machine falls on both tools), then the ratio of the medians.
#
# Usage: crates/cli/benches/rapid.sh [HINDSIGHT_BINARY]
#   RAPID_DIR        a checkout of github.com/focs-lab/rapid; its classes are built into
#                    RAPID_DIR/bin with javac when RAPID_DIR/bin/HBEpoch.class is missing.
#                    Without RAPID_DIR (or without java/javac/hyperfine) the script says so
#                    and exits 0: CI does not have RAPID.
#   EVENTS           events in the trace (default 10000000)
#   RUNS             alternated runs of each tool (default 3)
#   WORK             where the trace goes (default: a temporary directory, removed at exit)
#   JAVA_OPTS        options for RAPID's JVM (default -Xmx8g)
set -euo pipefail

hindsight=${1:-target/release/hindsight}
events=${EVENTS:-10000000}
runs=${RUNS:-3}
java_opts=${JAVA_OPTS:--Xmx8g}

skip() {
  echo "rapid.sh: skipped: $*"
  exit 0
}
[[ -n ${RAPID_DIR:-} ]] || skip "RAPID_DIR is not set (a checkout of github.com/focs-lab/rapid)"
[[ -d $RAPID_DIR/src ]] || skip "$RAPID_DIR has no src/: not a RAPID checkout"
for tool in java javac hyperfine; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[[ -x $hindsight ]] || { echo "rapid.sh: $hindsight: not an executable (cargo build --release)" >&2; exit 2; }

# RAPID is built with Ant from an Eclipse build file; javac on its sources with the jars of its
# lib/ on the class path builds the same classes without Ant.
classpath="$RAPID_DIR/bin:$(find "$RAPID_DIR/lib" -name '*.jar' 2>/dev/null | tr '\n' ':')"
if [[ ! -f $RAPID_DIR/bin/HBEpoch.class ]]; then
  echo "rapid.sh: building RAPID into $RAPID_DIR/bin"
  mkdir -p "$RAPID_DIR/bin"
  find "$RAPID_DIR/src" -name '*.java' >"$RAPID_DIR/bin/sources.txt"
  javac -nowarn -d "$RAPID_DIR/bin" -cp "$classpath" "@$RAPID_DIR/bin/sources.txt" 2>&1 | grep -v '^Note:' || true
  [[ -f $RAPID_DIR/bin/HBEpoch.class ]] || { echo "rapid.sh: javac did not build HBEpoch" >&2; exit 2; }
fi

if [[ -n ${WORK:-} ]]; then
  dir=$WORK
  mkdir -p "$dir"
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
fi
trace=$dir/rapid-$events.std
if [[ ! -f $trace ]]; then
  "$hindsight" gen --events "$events" --threads 8 --vars 10000 --locks 16 --seed 1 -o "$dir/gen.std"
  "$hindsight" convert "$dir/gen.std" "$trace" --to rapid
  rm -f "$dir/gen.std"
fi
ls -l "$trace"

rapid=(java $java_opts -cp "$classpath" HBEpoch -f std -p "$trace")
ours=("$hindsight" races "$trace")
# Each tool once, untimed, so that both read the trace from the page cache.
"${rapid[@]}" | tail -n 2
"${ours[@]}" >/dev/null || true

# `races` exits 1 when it finds races: hyperfine must not take that for a failure.
time_one() {
  local name=$1 json=$dir/$1-$2.json
  shift 2
  hyperfine --runs 1 --style none -i --export-json "$json" -n "$name" "$*" >/dev/null
  sed -n 's/.*"mean": *\([0-9.e+-]*\).*/\1/p' "$json" | head -n 1
}

rapid_times=()
our_times=()
for ((i = 1; i <= runs; i++)); do
  r=$(time_one rapid "$i" "${rapid[*]} >/dev/null")
  h=$(time_one hindsight "$i" "${ours[*]} >/dev/null")
  printf 'run %d: RAPID HBEpoch %.2f s, hindsight races %.3f s, %.1fx\n' "$i" "$r" "$h" "$(echo "$r / $h" | bc -l)"
  rapid_times+=("$r")
  our_times+=("$h")
done

median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
r=$(median "${rapid_times[@]}")
h=$(median "${our_times[@]}")
printf 'median of %d: RAPID HBEpoch %.2f s, hindsight races %.3f s: %.1fx\n' "$runs" "$r" "$h" "$(echo "$r / $h" | bc -l)"
