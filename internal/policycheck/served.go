package policycheck

import "github.com/gatehouse-dev/gatehouse/internal/servedresources"

// Served is one resource or subresource a server serves.
type Served = servedresources.Served

// BuiltinServed returns the resources and subresources kube-apiserver 1.37
// serves with every API enabled. The slice is shared: do not change it.
func BuiltinServed() []Served { return servedresources.Builtin() }
