#!/usr/bin/env bash
# Fills corpus/TARGET/ with the bundled inputs each target reads (the seeds the test suite's
# crates/fuzz/tests/corpus.rs mutates). Run from anywhere; needs the hindsight binary built
# (`cargo build --release -p hindsight-cli`) for the binary traces.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
hindsight="$root/target/release/hindsight"
seed() { # TARGET EXTENSION...
    local target=$1; shift
    mkdir -p "$here/corpus/$target"
    for ext in "$@"; do
        find "$root/examples" "$root/crates/stream/specs" "$root/crates/trace/tests/fixtures/readers" \
            -name "*.$ext" -type f -exec cp -t "$here/corpus/$target" {} +
    done
}
seed trace_text std txt
seed trace_roadrunner rr
seed trace_rapidbin rapidbin
seed poset poset
seed history jsonl edn
seed spec spec
seed views_program mv
seed java java
mkdir -p "$here/corpus/trace_binary" "$here/corpus/predicate"
for f in "$root"/examples/*.std "$root"/examples/*/*.std; do
    "$hindsight" convert "$f" "$here/corpus/trace_binary/$(basename "$f" .std).hst" --to hst 2>/dev/null || true
done
printf '%s' 'race' > "$here/corpus/predicate/race"
printf '%s' 'count(method == open) >= 2 && count(method == close) >= 0' > "$here/corpus/predicate/count"
