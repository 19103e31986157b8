//go:build k8s135

package servedtable

// modfile is the modfile of this build: 1.35's.
const modfile = "go.v1.35.mod"
