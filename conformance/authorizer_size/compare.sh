#!/usr/bin/env bash
# Compares the stripped binary size and the build time of the same program
# (build kube-apiserver's authorization chain from a configuration with a
# webhook and RBAC, decide once) on gatehouse and on kube-apiserver's
# packages. Run from conformance/:  ./authorizer_size/compare.sh
#
# Two build times each: from an empty build cache ("clean", the standard
# library built too), and from a cache that holds only the standard library
# (what a machine that has built any Go program before pays for the
# program's own dependencies). The module cache is kept: downloading is not
# building.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export GOFLAGS=-trimpath

# build PROG CACHE: builds PROG with the build cache CACHE, prints seconds.
build() {
	local start end
	start=$(date +%s.%N)
	GOCACHE="$2" go build -ldflags='-s -w' -o "$out/$1" "./authorizer_size/$1"
	end=$(date +%s.%N)
	echo "$end - $start" | bc -l
}

std="$out/std-cache"
GOCACHE="$std" go build std
for prog in gatehouse kubeapiserver; do
	clean=$(build "$prog" "$out/cache-clean-$prog")
	cp -a "$std" "$out/cache-std-$prog"
	withstd=$(build "$prog" "$out/cache-std-$prog")
	rm -rf "$out/cache-clean-$prog" "$out/cache-std-$prog"
	size=$(stat -c %s "$out/$prog")
	printf '%-14s stripped %6.1f MB   clean build %6.1f s   standard library cached %6.1f s   runs: %s\n' "$prog" \
		"$(echo "$size / 1000000" | bc -l)" "$clean" "$withstd" "$("$out/$prog" 2>&1 | head -1)"
done
