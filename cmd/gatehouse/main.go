// Command gatehouse gives, offline, the verdicts kube-apiserver 1.37 gives on
// authorization configurations, authorization requests and CRDs, for CI
// pipelines and pre-commit hooks: before anything reaches a cluster.
//
//	gatehouse authz validate FILE...
//	gatehouse authz explain --config FILE --as USER VERB RESOURCE [NAME] [-n NS]
//	gatehouse authz migrate --authorization-mode=Node,RBAC,Webhook ...
//	gatehouse crd check FILE...
//
// Every command reads files, directories (their .yaml, .yml and .json files)
// or standard input ("-"), writes text by default or -o json / -o yaml
// (schema in README.md), and exits with 0 when all is fine, 1 when it has
// findings, and 2 on a usage or input error.
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, engines{}))
}
