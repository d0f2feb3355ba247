#!/bin/sh
# Builds Porcupine's test binary with hindsight's timing helper (hindsight_times_test.go) for
# bench/lin_peers.py. Usage: bench/porcupine/build.sh PORCUPINE_CHECKOUT OUTPUT_BINARY
# (a clone of github.com/anishathalye/porcupine; its go.mod asks for Go 1.16).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cp "$here/hindsight_times_test.go" "$1/"
cd "$1" && GOTOOLCHAIN=local go test -c -o "$2" .
