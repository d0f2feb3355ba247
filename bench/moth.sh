#!/usr/bin/env bash
# MoTH's Table 2 programs (trxsys/gluon, test/moth, as published at ea61e24; GPL-3.0, so not
# in this repository), recorded with the Java agent and analysed with `views`: the figures of
# "MoTH's own suite, from recorded runs" in docs/views.md.
#
#   GLUON=/path/to/gluon-checkout bench/moth.sh [HINDSIGHT]
#
# GLUON is a checkout of trxsys/gluon at ea61e24 (`git clone https://github.com/trxsys/gluon
# && git -C gluon checkout ea61e24`); HINDSIGHT defaults to target/release/hindsight. Most of
# the programs loop until they are killed, so each is recorded with `--timeout` and
# `--max-trace` (exit status 3 then: the trace holds the run up to there).
set -euo pipefail
GLUON=${GLUON:?set GLUON to a checkout of trxsys/gluon at ea61e24}
H=${1:-target/release/hindsight}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK/classes"
javac -nowarn -d "$WORK/classes" $(find "$GLUON/test/common" "$GLUON/test/moth" -name '*.java') 2>/dev/null
# program directory, main class, arguments
while read -r dir main args; do
    trace="$WORK/$dir.hst"
    set +e
    # shellcheck disable=SC2086
    "$H" record --timeout "${TIMEOUT:-3}" --max-trace "${MAX_TRACE:-20M}" --out "$trace" -- \
        java -Xshare:off -cp "$WORK/classes" "test.moth.$dir.$main" $args >"$WORK/$dir.log" 2>&1
    recorded=$?
    "$H" views --regions both "$trace" >"$WORK/$dir.views" 2>&1
    set -e
    races=$(grep -c '^high-level-race:' "$WORK/$dir.views" || true)
    stale=$(grep -c '^stale-value:' "$WORK/$dir.views" || true)
    counts=$(grep '^views:' "$WORK/$dir.views" | grep -o 'high_level_races [0-9]*, stale_values [0-9]*' || true)
    echo "$dir (record exit $recorded): groups: high-level-race $races, stale-value $stale ($counts)"
done <<'PROGRAMS'
AccountTest Main
AllocateVector Main /dev/null little
ArithmeticDatabase Main
BufferTest BufferMain
ConnectionTest GUI
Coord03 Main
Coord04 CoordMain
DoubleCheck Main
Jigsaw ResourceStoreManager
Knight Main
Local Local
MyStringBuffer MyStringBuffer
NASA Main
OverReportingTest MapClient
UnderReportingTest Main
PROGRAMS
