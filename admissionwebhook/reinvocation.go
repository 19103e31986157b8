package admissionwebhook

import (
	"fmt"
	"sync"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// ReinvocationFlags are the reinvocation flags of one request that all the
// mutating plugins of an admission chain share (kube-apiserver's
// admission.ReinvocationContext): whether the pass is the reinvocation, and
// the request for one. *mutation.ReinvocationContext has them, so that
// MutatingAdmissionPolicy and the webhooks share one.
type ReinvocationFlags interface {
	IsReinvoke() bool
	SetShouldReinvoke()
}

// Reinvocation is the mutating webhooks' reinvocation state of one request,
// carried across the two passes of the admission chain, as kube-apiserver's
// MutatingAdmissionWebhook plugin keeps it in the request's reinvocation
// context. A caller creates one per request around the request's shared
// flags, sets it on the Request of both passes, and between them marks the
// flags as the reinvocation when one was asked for:
//
//	rc := &mutation.ReinvocationContext{}
//	req.Reinvocation = &admissionwebhook.Reinvocation{Flags: rc}
//	res, err := d.Admit(ctx, req)            // first pass
//	if err == nil && rc.ShouldReinvoke() {
//		rc.SetIsReinvoke()
//		req.Object = res.Object
//		res, err = d.Admit(ctx, req)     // the reinvocation
//	}
//
// Its semantics are kube-apiserver's: a webhook whose patch changed the
// object asks for a reinvocation and makes every webhook with
// reinvocationPolicy IfNeeded called before it eligible; a webhook with
// IfNeeded is remembered as called after its own call (so never reinvoked
// for its own change). At the start of the reinvocation, if the object
// differs from what the webhooks returned in the first pass (another plugin
// changed it), every IfNeeded webhook called so far becomes eligible.
// During the reinvocation only eligible webhooks are called (a webhook not
// called in the first pass is not called in the second), and their audit
// annotations say round_1.
type Reinvocation struct {
	// Flags are the request's shared flags.
	Flags ReinvocationFlags

	mu sync.Mutex
	// lastOutput is the object the last pass returned.
	lastOutput map[string]any
	// previous are the IfNeeded webhooks called; reinvoke those eligible.
	previous, reinvoke map[string]struct{}
}

func (rc *Reinvocation) requirePrevious() {
	if len(rc.previous) == 0 {
		return
	}
	if rc.reinvoke == nil {
		rc.reinvoke = map[string]struct{}{}
	}
	for k := range rc.previous {
		rc.reinvoke[k] = struct{}{}
	}
	clear(rc.previous)
}

func (rc *Reinvocation) addPrevious(uid string) {
	if rc.previous == nil {
		rc.previous = map[string]struct{}{}
	}
	rc.previous[uid] = struct{}{}
}

func (rc *Reinvocation) shouldReinvoke(uid string) bool {
	_, ok := rc.reinvoke[uid]
	return ok
}

// start begins a pass over object and says whether it is the reinvocation.
func (rc *Reinvocation) start(object map[string]any) bool {
	if rc == nil || rc.Flags == nil {
		return false
	}
	if !rc.Flags.IsReinvoke() {
		return false
	}
	if !apiequality.Semantic.DeepEqual(rc.lastOutput, object) {
		rc.requirePrevious()
	}
	return true
}

// end records the object the pass returned.
func (rc *Reinvocation) end(object map[string]any) {
	if rc == nil {
		return
	}
	if object == nil {
		rc.lastOutput = nil
		return
	}
	rc.lastOutput = runtime.DeepCopyJSON(object)
}

// webhookUIDs are the webhooks' identities across passes: their UID when
// they have one (static webhooks), otherwise as kube-apiserver names API
// webhooks, "<configuration>/<webhook>/<n>", n counting the webhooks of the
// same name before it in its configuration.
func webhookUIDs(hooks []mutatingHook, uids []string) {
	seen := map[[2]string]int{}
	for i := range hooks {
		if uids[i] != "" {
			continue
		}
		k := [2]string{hooks[i].config, hooks[i].webhook.Name}
		uids[i] = fmt.Sprintf("%s/%s/%d", k[0], k[1], seen[k])
		seen[k]++
	}
}
