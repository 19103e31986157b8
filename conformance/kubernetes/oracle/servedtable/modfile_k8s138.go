//go:build k8s138

package servedtable

// modfile is the modfile of this build: 1.38's.
const modfile = "go.v1.38.mod"
