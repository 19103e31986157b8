package authorizer

import "context"

// Authorizer decides whether a request may proceed. It returns the decision,
// a reason meant for people (may be empty), and an error when it could not
// decide properly. As in kube-apiserver, an error does not by itself deny: a
// caller serving HTTP answers 500 when the decision is not Allow and the error
// is set, 403 when it is not Allow and there is no error.
//
// Implementations must be safe for concurrent use.
type Authorizer interface {
	Authorize(ctx context.Context, a *Attributes) (Decision, string, error)
}

// Func adapts a function to the Authorizer interface.
type Func func(ctx context.Context, a *Attributes) (Decision, string, error)

// Authorize calls f.
func (f Func) Authorize(ctx context.Context, a *Attributes) (Decision, string, error) {
	return f(ctx, a)
}
