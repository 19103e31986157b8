package policycheck

import (
	"github.com/gatehouse-dev/gatehouse/internal/servedresources"
	"github.com/gatehouse-dev/gatehouse/kube"
)

// Served is one resource or subresource a server serves.
type Served = servedresources.Served

// BuiltinServed returns the resources and subresources kube-apiserver as t
// serves with every API enabled (the table of its version). The slice is
// shared: do not change it.
func BuiltinServed(t kube.Target) []Served { return servedresources.For(t) }
