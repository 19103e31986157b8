#!/usr/bin/env bash
# Compares the stripped binary size and the clean build time of the same
# program (build kube-apiserver's authorization chain from a configuration
# with a webhook and RBAC, decide once) on gatehouse and on kube-apiserver's
# packages. Run from conformance/:  ./authorizer_size/compare.sh
# Each build starts from an empty build cache (the module cache is kept:
# downloading is not building).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for prog in gatehouse kubeapiserver; do
	cache=$(mktemp -d)
	start=$(date +%s.%N)
	GOCACHE="$cache" GOFLAGS=-trimpath go build -ldflags='-s -w' -o "$out/$prog" "./authorizer_size/$prog"
	end=$(date +%s.%N)
	rm -rf "$cache"
	size=$(stat -c %s "$out/$prog")
	printf '%-14s stripped %6.1f MB   clean build %6.1f s   runs: %s\n' "$prog" \
		"$(echo "$size / 1000000" | bc -l)" "$(echo "$end - $start" | bc -l)" "$("$out/$prog" 2>&1 | head -1)"
done
