//go:build !k8s135 && !k8s138

package servedtable

// modfile is the modfile of this build: the module's go.mod (1.36 here,
// 1.37 in conformance/kubernetes).
const modfile = ""
