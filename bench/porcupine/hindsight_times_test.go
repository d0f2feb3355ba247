// A timing helper for hindsight's `lin_peers` bench, not part of Porcupine: copied into a
// checkout of Porcupine (anishathalye/porcupine) by bench/porcupine/build.sh, it times
// Porcupine's own CheckEvents, with Porcupine's own test parsers and models (parseKvLog and
// kvModel for test_data/kv, parseJepsenLog and etcdModel for test_data/jepsen), on one history.
//
// HINDSIGHT_HISTORY: the file; HINDSIGHT_MODEL: kv or etcd; HINDSIGHT_REPS: how many checks.
// Prints one line: `verdict <true|false> min_ns <n> median_ns <n> reps <n>`; the parse is not
// timed.
package porcupine

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

func TestHindsightTimes(t *testing.T) {
	path := os.Getenv("HINDSIGHT_HISTORY")
	if path == "" {
		t.Skip("HINDSIGHT_HISTORY not set")
	}
	reps, err := strconv.Atoi(os.Getenv("HINDSIGHT_REPS"))
	if err != nil || reps < 1 {
		reps = 1
	}
	var events []Event
	var model Model
	switch os.Getenv("HINDSIGHT_MODEL") {
	case "kv":
		events, model = parseKvLog(path), kvModel
	case "etcd":
		events, model = parseJepsenLog(path), etcdModel
	default:
		t.Fatalf("HINDSIGHT_MODEL must be kv or etcd")
	}
	times := make([]int64, reps)
	var verdict bool
	for i := range times {
		start := time.Now()
		verdict = CheckEvents(model, events)
		times[i] = time.Since(start).Nanoseconds()
	}
	sort.Slice(times, func(a, b int) bool { return times[a] < times[b] })
	fmt.Printf("verdict %t min_ns %d median_ns %d reps %d\n", verdict, times[0], times[reps/2], reps)
}
