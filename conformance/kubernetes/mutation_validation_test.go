package kubernetes

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/mutation"
)

// mvExpressionsChecked says whether package mutation's Validator compiles
// the expressions of variables and mutations (mutcel's expression checker):
// whether it refuses a variable that does not parse. Until it does,
// kube-apiserver's compile errors at those paths are left out of the
// comparison, and counted.
var mvExpressionsChecked = func() bool {
	v, err := mutation.NewValidator(mutation.ValidatorOptions{})
	if err != nil {
		panic(err)
	}
	p := mvBasePolicies()[0]
	mutation.SetDefaultsPolicy(p)
	p.Spec.Variables = []admissionregistrationv1.Variable{{Name: "a", Expression: "1 +"}}
	return len(v.ValidateMutatingAdmissionPolicy(p, nil)) > 0
}()

// mvExpressionPath is the path of a variable's or a mutation's expression.
var mvExpressionPath = regexp.MustCompile(`^spec\.(variables\[\d+\]\.expression|mutations\[\d+\]\.(applyConfiguration|jsonPatch)\.expression)$`)

// mvUnchecked says an error kube-apiserver reports at path is left out of
// the comparison: a compile error of an expression gatehouse does not check.
func mvUnchecked(path string, typ field.ErrorType) bool {
	return !mvExpressionsChecked && mvExpressionPath.MatchString(path) && typ != field.ErrorTypeRequired
}

type mvCounts struct{ cases, valid, unchecked int }

// mvComparer compares as mvCompare does: mvCompare for 1.37 in process, a
// restSide's for each version's oracle.
type mvComparer func(t *testing.T, c *mvCounts, what string, obj, old runtime.Object)

// mvCompare validates obj (old nil: create) with both and reports any
// difference in type, path and rendered text (bad value and detail), in
// order.
func mvCompare(t *testing.T, c *mvCounts, what string, obj, old runtime.Object) {
	t.Helper()
	want := mvOracle(t, obj, old)
	got := mvGatehouse(t, obj, old)
	if !mvExpressionsChecked {
		var kept field.ErrorList
		for _, e := range want {
			if mvUnchecked(e.Field, e.Type) {
				c.unchecked++
				continue
			}
			kept = append(kept, e)
		}
		want = kept
	}
	c.cases++
	if len(want) == 0 {
		c.valid++
	}
	if !assert.Equal(t, admRender(want), admRender(got), "%s: errors differ", what) {
		t.Logf("object: %#v", obj)
	}
}

// TestMutationPolicyValidationMatchesKube compares the create and update
// validation of mutating admission policies over the generated corpus.
func TestMutationPolicyValidationMatchesKube(t *testing.T) { mvPolicyRun(t, mvCompare) }

// mvPolicyRun runs the cases of TestMutationPolicyValidationMatchesKube through cmp.
func mvPolicyRun(t *testing.T, cmp mvComparer) {
	var create, update mvCounts
	// kube-apiserver builds a CEL environment for every policy it
	// validates (some 5 ms): the default run compares every single change
	// on create, 100 random combinations, and every fourth policy's
	// updates; GATEHOUSE_MUTATION_CORPUS=full compares 1500 combinations
	// and every update (a minute).
	n, updateEvery := 100, 4
	if os.Getenv("GATEHOUSE_MUTATION_CORPUS") == "full" {
		n, updateEvery = 1500, 1
	}
	corpus := mvPolicyCorpus(n)
	changes := mvPolicyChanges()
	for i, p := range corpus {
		cmp(t, &create, "MAP create", p, nil)
		if i%updateEvery != 0 {
			continue
		}
		u := p.DeepCopy()
		changes[(i*7919)%len(changes)].apply(u)
		cmp(t, &update, "MAP update", u, p)
		cmp(t, &update, "MAP no-op update", p, p)
		cmp(t, &update, "MAP update to another", corpus[(i*104729+1)%len(corpus)], p)
		if t.Failed() {
			break
		}
	}
	t.Logf("mutating admission policies: create: %d cases (%d valid); update: %d cases (%d valid); expression errors not compared: %d",
		create.cases, create.valid, update.cases, update.valid, create.unchecked+update.unchecked)
	// The corpus's expressions are valid in about a quarter of the
	// policies; the rest exercise kube-apiserver's errors.
	assert.Greater(t, create.valid, 200)
	assert.Greater(t, create.cases-create.valid, 500)
}

// TestMutationBindingValidationMatchesKube compares the validation of
// bindings.
func TestMutationBindingValidationMatchesKube(t *testing.T) { mvBindingRun(t, mvCompare) }

// mvBindingRun runs the cases of TestMutationBindingValidationMatchesKube through cmp.
func mvBindingRun(t *testing.T, cmp mvComparer) {
	var c mvCounts
	corpus := mvBindingCorpus(1500)
	for i, b := range corpus {
		cmp(t, &c, "MAPB create", b, nil)
		cmp(t, &c, "MAPB update", corpus[(i*104729+1)%len(corpus)], b)
		if t.Failed() {
			break
		}
	}
	t.Logf("mutating admission policy bindings: %d cases (%d valid)", c.cases, c.valid)
	assert.Greater(t, c.valid, 50)
}
