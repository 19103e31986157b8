package admissionpolicy

// Order is the order in which a dispatcher invokes policies.
// kube-apiserver's order is unspecified (it groups bindings by policy in a
// Go map); the caller chooses one. Bindings of a policy keep the order they
// were given in, and the params of a binding the order the ParamSource
// lists them in.
type Order uint8

const (
	// OrderGiven invokes policies in the order they were given.
	OrderGiven Order = iota
	// OrderByName invokes policies sorted by name.
	OrderByName
)
