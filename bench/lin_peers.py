#!/usr/bin/env python3
"""`hindsight lin` beside Porcupine on the peers' own test histories, alternately.

For each of Porcupine's histories (test_data/jepsen/*.log with its etcd model, test_data/kv/*.txt
with its kv model), Porcupine's CheckEvents is timed by its own test binary built with
bench/porcupine/build.sh (median of REPS checks in one process, parse not timed), then
`hindsight lin --format json` REPS times (the summary's `milliseconds`: the check, parse not
timed; median). The verdicts must agree. Knossos' histories (data/**/*.edn of jepsen-io/knossos,
which cannot run here) are timed for hindsight alone, with the model named by their directory.

Usage: bench/lin_peers.py HINDSIGHT PORCUPINE_TEST_BINARY PORCUPINE_CHECKOUT [KNOSSOS_CHECKOUT]
Environment: REPS (default 5).
"""
import json
import os
import statistics
import subprocess
import sys

REPS = int(os.environ.get("REPS", "5"))


def ours(hindsight, path, model, extra=()):
    times, verdict = [], None
    for _ in range(REPS):
        run = subprocess.run(
            [hindsight, "lin", path, "--model", model, "--format", "json", "--timeout", "120", *extra],
            capture_output=True, text=True, check=False)
        summary = json.loads(run.stdout)["summary"]
        times.append(summary["milliseconds"])
        verdict = summary["verdict"]
    return statistics.median(times), verdict


def porcupine(binary, checkout, path, model):
    env = dict(os.environ, HINDSIGHT_HISTORY=path, HINDSIGHT_MODEL=model, HINDSIGHT_REPS=str(REPS))
    run = subprocess.run([binary, "-test.run", "TestHindsightTimes", "-test.v"], cwd=checkout,
                         env=env, capture_output=True, text=True, timeout=600, check=False)
    fields = next(l for l in run.stdout.splitlines() if l.startswith("verdict")).split()
    return int(fields[5]) / 1e6, fields[1] == "true"


def main():
    hindsight, binary, checkout = sys.argv[1:4]
    knossos = sys.argv[4] if len(sys.argv) > 4 else None
    histories = []
    for sub, model in (("jepsen", "etcd"), ("kv", "kv")):
        folder = os.path.join(checkout, "test_data", sub)
        histories += [(os.path.join(folder, f), model) for f in sorted(os.listdir(folder))]
    slower, mismatched, ratios = [], [], []
    print(f"{'history':22} {'model':5} {'porcupine ms':>12} {'hindsight ms':>12} {'ratio':>8}  verdict")
    for path, model in histories:
        p_ms, p_lin = porcupine(binary, checkout, os.path.abspath(path), model)
        h_ms, verdict = ours(hindsight, path, model)
        ratio = p_ms / max(h_ms, 1e-6)
        ratios.append(ratio)
        if (verdict == "linearizable") != p_lin:
            mismatched.append(path)
        if h_ms > p_ms:
            slower.append(os.path.basename(path))
        print(f"{os.path.basename(path):22} {model:5} {p_ms:12.3f} {h_ms:12.3f} {ratio:8.2f}  {verdict}",
              flush=True)
    print(f"porcupine histories: {len(histories)}, slower than porcupine: {len(slower)} {slower}, "
          f"verdicts differing: {mismatched}, min ratio {min(ratios):.2f}, "
          f"geometric mean {statistics.geometric_mean(ratios):.2f}")
    if knossos:
        root = os.path.join(knossos, "data")
        for dirpath, _, files in sorted(os.walk(root)):
            for f in sorted(files):
                if not f.endswith(".edn"):
                    continue
                model = os.path.relpath(dirpath, root).split(os.sep)[0]
                # Knossos' test builds this model on registers that are 0 (linear_test.clj).
                extra = ("--init", "0") if model == "multi-register" else ()
                h_ms, verdict = ours(hindsight, os.path.join(dirpath, f), model, extra)
                name = os.path.relpath(os.path.join(dirpath, f), root)
                print(f"{name:50} {model:14} {h_ms:10.3f} ms  {verdict}", flush=True)
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
