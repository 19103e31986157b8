package mutation

import "sync"

// ReinvocationContext is the reinvocation state of one admission request,
// carried across the passes of the admission chain (kube-apiserver's
// admission.ReinvocationContext with the MutatingAdmissionPolicy plugin's
// value in it). kube-apiserver runs every mutating admission plugin once;
// if any asked for it, it runs the whole mutating chain exactly once more,
// as a reinvocation. A caller that embeds the Dispatcher in such a chain
// creates one ReinvocationContext per request, sets it on the Request of
// both passes, and between them calls SetIsReinvoke when ShouldReinvoke (of
// this or any other plugin) asked for a second pass:
//
//	rc := &mutation.ReinvocationContext{}
//	req.Reinvocation = rc
//	res, err := d.Admit(ctx, req)            // first pass
//	// ... other mutating plugins (webhooks) may change res.Object ...
//	if err == nil && rc.ShouldReinvoke() {
//		rc.SetIsReinvoke()
//		req.Object = res.Object
//		res, err = d.Admit(ctx, req)     // the reinvocation
//	}
//
// Its semantics are kube-apiserver's: invocations are keyed by (policy,
// binding, param namespace/name). After an invocation's mutations changed
// the object, every previously invoked invocation of a policy with
// reinvocationPolicy IfNeeded becomes eligible for reinvocation; an IfNeeded
// invocation is then remembered as previously invoked. At the end of a pass,
// if the last invocation's object is dirty (any mutation succeeded, even one
// that changed nothing), all previously invoked IfNeeded invocations become
// eligible, and a reinvocation is requested. The object the pass returns is
// remembered; at the start of the reinvocation, if the object differs from
// it (another plugin changed it), all previously invoked IfNeeded
// invocations become eligible. During the reinvocation only eligible
// invocations run; Never invocations never run twice.
//
// A ReinvocationContext is used by one request at a time; the zero value is
// ready for the first pass.
type ReinvocationContext struct {
	mu             sync.Mutex
	isReinvoke     bool
	shouldReinvoke bool
	// started: the plugin's value exists (kube-apiserver creates it on the
	// first pass that has invocations).
	started bool
	// lastOutput is the object the last pass that had invocations returned.
	lastOutput map[string]any
	// previous: invoked IfNeeded invocations; reinvoke: the eligible ones.
	previous, reinvoke map[invocationKey]struct{}
}

// invocationKey identifies an invocation across passes.
type invocationKey struct {
	policy, binding, paramNamespace, paramName string
}

// IsReinvoke tells whether the pass is the reinvocation.
func (rc *ReinvocationContext) IsReinvoke() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.isReinvoke
}

// SetIsReinvoke marks the start of the reinvocation pass.
func (rc *ReinvocationContext) SetIsReinvoke() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.isReinvoke = true
}

// ShouldReinvoke tells whether a pass asked for a reinvocation of the
// mutating chain (the chain runs at most one: after the reinvocation the
// answer no longer matters).
func (rc *ReinvocationContext) ShouldReinvoke() bool {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.shouldReinvoke
}

// SetShouldReinvoke asks for a reinvocation of the mutating chain; other
// mutating plugins of the caller's chain may call it too.
func (rc *ReinvocationContext) SetShouldReinvoke() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.shouldReinvoke = true
}

// The plugin's own state is only touched by one pass at a time: the
// methods below are called by Admit with rc.mu held.

func (rc *ReinvocationContext) requireReinvokingPrevious() {
	if len(rc.previous) == 0 {
		return
	}
	if rc.reinvoke == nil {
		rc.reinvoke = map[invocationKey]struct{}{}
	}
	for k := range rc.previous {
		rc.reinvoke[k] = struct{}{}
	}
	clear(rc.previous)
}

func (rc *ReinvocationContext) addPrevious(k invocationKey) {
	if rc.previous == nil {
		rc.previous = map[invocationKey]struct{}{}
	}
	rc.previous[k] = struct{}{}
}

func (rc *ReinvocationContext) shouldRun(k invocationKey) bool {
	_, ok := rc.reinvoke[k]
	return ok
}

func (rc *ReinvocationContext) setShouldReinvokeLocked() { rc.shouldReinvoke = true }
