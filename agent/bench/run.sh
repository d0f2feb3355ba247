#!/usr/bin/env bash
# The agent's overhead: whole-JVM time of each bench program with and without the agent
# (hyperfine, Debian's package). Usage: agent/bench/run.sh [HINDSIGHT_BINARY]
set -euo pipefail
cd "$(dirname "$0")"
hindsight=${1:-../../target/release/hindsight}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
javac -d "$dir" LockHeavy.java FieldHeavy.java WordCount.java ListHeavy.java
for p in LockHeavy FieldHeavy WordCount ListHeavy; do
  hyperfine --warmup 1 --runs "${RUNS:-5}" \
    -n "$p" "java -Xshare:off -cp $dir $p" \
    -n "$p (agent)" "$hindsight record --out $dir/$p.hst -- java -Xshare:off -cp $dir $p"
  ls -l "$dir/$p.hst"
done
