package mutationcel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"google.golang.org/protobuf/types/known/structpb"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/gatehouse-dev/gatehouse/internal/admissioncel"
	icel "github.com/gatehouse-dev/gatehouse/internal/cel"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// MutationCostBudget is the cost that one mutation's expression, and the
// variables it uses, may spend on one request: each mutation has its own
// (kube-apiserver's RuntimeCELCostBudget). A single expression or variable
// may spend at most 1,000,000.
const MutationCostBudget = icel.RuntimeCELCostBudget

// MatchConditions evaluates the policy's match conditions, with their
// failure policy, as kube-apiserver's policy matcher does (namespaceObject
// is null there).
func (p *Policy) MatchConditions(ctx context.Context, in *Input) matchcond.AdmissionMatchResult {
	if p.envErr != nil {
		return matchcond.AdmissionMatchResult{Error: p.envErr}
	}
	if p.conditions == nil {
		return matchcond.AdmissionMatchResult{Matches: true}
	}
	return p.conditions.Match(ctx, &matchcond.AdmissionAttributes{
		Object:     objectOf(in.Object),
		OldObject:  objectOf(in.OldObject),
		Request:    in.Request,
		Params:     objectOf(in.Params),
		Authorizer: in.Authorizer,
	})
}

// MutationCount is the number of the policy's mutations that kube-apiserver
// compiles (those of a known patch type with their body).
func (p *Policy) MutationCount() int { return len(p.mutations) }

// EvaluateMutation evaluates the policy's mutation i into its patch, with
// kube-apiserver's errors.
func (p *Policy) EvaluateMutation(ctx context.Context, i int, in *Input) (Patch, error) {
	if p.envErr != nil {
		return Patch{}, p.envErr
	}
	m := &p.mutations[i]
	if m.err != nil {
		return Patch{}, m.err
	}
	if m.constant != nil {
		return m.constant.evaluate(func(ctx context.Context) (Patch, error) { return p.evaluate(ctx, m, &Input{}) })
	}
	return p.evaluate(ctx, m, in)
}

// evaluate evaluates a mutation with cel-go.
func (p *Policy) evaluate(ctx context.Context, m *compiledMutation, in *Input) (Patch, error) {
	act := p.activation(ctx, in)
	val, _, err := act.Evaluate(m.program, m.expression, MutationCostBudget)
	if err != nil {
		return Patch{}, err
	}
	if m.patchType == admissionregistrationv1.PatchTypeJSONPatch {
		b, err := jsonPatchBytes(val)
		return Patch{JSONPatch: b}, err
	}
	obj, ok := val.(*objectVal)
	if !ok {
		return Patch{}, fmt.Errorf("unsupported return type from ApplyConfiguration expression: %v", val.Type())
	}
	if err := checkTypeNames(obj); err != nil {
		return Patch{}, fmt.Errorf("type mismatch: %w", err)
	}
	value, ok := obj.Value().(map[string]any)
	if !ok {
		return Patch{}, fmt.Errorf("invalid return type: %T", val)
	}
	return Patch{ApplyConfiguration: value}, nil
}

// jsonPatchBytes builds the JSON Patch document of a JSONPatch expression's
// value as kube-apiserver builds it: op and path always, from when not
// empty, value when set, the strings quoted by strconv.Quote and the value
// encoded from its protobuf Value form.
func jsonPatchBytes(val ref.Val) ([]byte, error) {
	list, ok := val.(traits.Lister)
	if !ok {
		return nil, errors.New("type mismatch: JSONPatchType.expression should evaluate to array")
	}
	buf := []byte{'['}
	n := 0
	for it := list.Iterator(); it.HasNext() == types.True; n++ {
		native, err := it.Next().ConvertToNative(jsonPatchValNative)
		if err != nil {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch: %w", err)
		}
		op, ok := native.(*jsonPatchVal)
		if !ok {
			return nil, fmt.Errorf("type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of %T", native)
		}
		if n > 0 {
			buf = append(buf, ',')
		}
		// The members in the order encoding/json writes kube-apiserver's
		// map: sorted by key.
		if op.from != "" {
			buf = append(buf, `{"from":`...)
			buf = append(buf, strconv.Quote(op.from)...)
			buf = append(buf, `,"op":`...)
		} else {
			buf = append(buf, `{"op":`...)
		}
		buf = append(buf, strconv.Quote(op.op)...)
		buf = append(buf, `,"path":`...)
		buf = append(buf, strconv.Quote(op.path)...)
		if op.val != nil {
			if o, ok := op.val.(*objectVal); ok {
				if err := checkTypeNames(o); err != nil {
					return nil, fmt.Errorf("type mismatch: %w", err)
				}
			}
			v, err := op.val.ConvertToNative(structpbValueType)
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			b, err := json.Marshal(v.(*structpb.Value))
			if err != nil {
				return nil, fmt.Errorf("JSONPath valueExpression evaluated to a type that could not marshal to JSON: %w", err)
			}
			buf = append(buf, `,"value":`...)
			buf = append(buf, b...)
		}
		buf = append(buf, '}')
	}
	return append(buf, ']'), nil
}

// Input is what one evaluation of a policy's expressions sees: the CEL
// variables object, oldObject, request, params, namespaceObject and
// authorizer of kube-apiserver's mutating policy activation.
type Input struct {
	// Request is `request`: the AdmissionRequest as kube-apiserver builds it
	// for a policy, with the matched (possibly equivalent) kind and
	// resource, and without uid, object and oldObject.
	Request *admissionv1.AdmissionRequest
	// Object is `object` as it stands after the mutations run so far, and
	// OldObject is `oldObject`: unstructured content; nil is null.
	Object, OldObject map[string]any
	// Params is `params`, unstructured; nil is null.
	Params map[string]any
	// Namespace is `namespaceObject`; nil is null.
	Namespace *corev1.Namespace
	// Authorizer backs `authorizer` and `authorizer.requestResource`; nil
	// leaves them undefined.
	Authorizer matchcond.Authorizer
	// TypedView presents Object and OldObject, the unstructured form of a
	// built-in kind's Go object, as kube-apiserver's schemaless typed view
	// of that Go object (admissioncel.TypedToVal) rather than as cel-go's
	// view of unstructured content: kube-apiserver switches to it for the
	// rest of a request once match conditions have evaluated on the
	// object. Lists and maps taken from it do not convert to JSON Patch
	// values.
	TypedView bool
}

// Patch is what one mutation's expression evaluated to. Exactly one of its
// fields is set.
type Patch struct {
	// ApplyConfiguration is the Object an ApplyConfiguration expression
	// returned, converted as kube-apiserver converts it before typing it
	// with the schema (dynamic.ObjectVal's Value(): its values are what
	// structured-merge-diff then sees, CEL values included where
	// kube-apiserver leaves them), after the check that nested Object type
	// names follow the field path.
	ApplyConfiguration map[string]any
	// JSONPatch is the JSON array of operations that kube-apiserver builds
	// from a JSONPatch expression's list (op and path always, from when not
	// empty, value when set).
	JSONPatch []byte
}

func (p *Policy) activation(ctx context.Context, in *Input) *admissioncel.Activation {
	a := &admissioncel.Activation{
		Ctx:          ctx,
		Object:       admissioncel.AdmittedVal(in.Object, in.TypedView),
		OldObject:    admissioncel.AdmittedVal(in.OldObject, in.TypedView),
		Namespace:    types.NullValue,
		Authorizer:   in.Authorizer,
		AuthzRequest: in.Request,
	}
	if in.Params != nil {
		a.Params = admissioncel.TypedToVal(&unstructured.Unstructured{Object: in.Params})
	}
	if in.Namespace != nil {
		a.Namespace = admissioncel.TypedToVal(in.Namespace)
	}
	p.variables.Bind(a)
	return a
}

// objectOf is the runtime.Object form of an unstructured map, or nil.
func objectOf(o map[string]any) runtime.Object {
	if o == nil {
		return nil
	}
	return &unstructured.Unstructured{Object: o}
}
