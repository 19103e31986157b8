package mutation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
)

// constPatch is a JSONPatch initializer whose op and path are constants.
type constPatch struct {
	op, path string
	// value is the value's literal, nil when it is not one.
	value ast.Expr
}

// constPatches returns the JSONPatch initializers of an expression with a
// constant op and path, and whether the expression is a list literal of
// them only (every patch then holds them all) with no test operation (a
// failed test drops the whole patch).
func constPatches(e ast.Expr) (out []constPatch, all bool) {
	all = e.Kind() == ast.ListKind
	var visit func(ast.Expr)
	visit = func(e ast.Expr) {
		switch e.Kind() {
		case ast.StructKind:
			s := e.AsStruct()
			if s.TypeName() != "JSONPatch" {
				return
			}
			var p constPatch
			okOp, okPath := false, false
			for _, f := range s.Fields() {
				sf := f.AsStructField()
				switch sf.Name() {
				case "op":
					p.op, okOp = literalString(sf.Value())
				case "path":
					p.path, okPath = literalString(sf.Value())
				case "value":
					if sf.Value().Kind() == ast.LiteralKind {
						p.value = sf.Value()
					}
				}
			}
			if p.op == "test" || !okOp {
				all = false
			}
			if okOp && okPath {
				out = append(out, p)
			}
		case ast.ListKind:
			for _, el := range e.AsList().Elements() {
				visit(el)
			}
		case ast.CallKind:
			all = false
			c := e.AsCall()
			for _, a := range c.Args() {
				visit(a)
			}
		}
	}
	visit(e)
	return out, all
}

func literalString(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}

// checkJSONPatches reports the JSON patches with a constant path that adds
// or replaces a field the matched built-in kind does not have, or a
// constant value of the wrong type for the field: kube-apiserver decodes
// the patched object strictly into its Go type and fails the request with
// an internal error (500, whatever the failure policy). Errors when the
// patch always holds the operation and the mutation runs on every request
// (with failurePolicy Ignore too: the 500 bypasses it); else warnings.
// Custom resources are left out: kube-apiserver prunes their unknown fields.
func checkJSONPatches(p *admissionregistrationv1.MutatingAdmissionPolicy, cp *policycheck.Policy, kinds *policycheck.Kinds, gvks []schema.GroupVersionKind) []Finding {
	ignoreIgnore := *cp
	ignoreIgnore.FailurePolicyIgnore = false
	everyRequest := policycheck.EveryRequest(&ignoreIgnore)
	var out []Finding
	for i, m := range p.Spec.Mutations {
		if m.PatchType != admissionregistrationv1.PatchTypeJSONPatch || m.JSONPatch == nil {
			continue
		}
		fieldPath := field.NewPath("spec", "mutations").Index(i).Child("jsonPatch", "expression").String()
		e := cp.ParsedAt(fieldPath, m.JSONPatch.Expression)
		if e == nil {
			continue
		}
		patches, all := constPatches(e)
		seen := map[string]bool{}
		for _, gvk := range gvks {
			if !kinds.IsBuiltin(gvk) {
				continue
			}
			root, ok := kinds.Node(gvk)
			if !ok {
				continue
			}
			for _, pt := range patches {
				if pt.op != "add" && pt.op != "replace" {
					continue
				}
				msg := patchPathIssue(root, pt)
				if msg == "" || seen[pt.path+msg] {
					continue
				}
				seen[pt.path+msg] = true
				f := Finding{Severity: SeverityWarning, Rule: policycheck.RuleNoSuchField, Kind: kindPolicy, Name: p.Name, Field: fieldPath,
					Message: fmt.Sprintf("the JSON patch %s %s: %s in %s %s; kube-apiserver decodes the patched object strictly into its Go type and fails the request (Internal error occurred: %s)", pt.op, pt.path, msg, gvk.Kind, gvk.GroupVersion(), strictError(msg)),
					Fix:     "check the path and the value against the kind's schema"}
				if strings.HasPrefix(msg, "wrong type") {
					f.Rule = policycheck.RuleWrongType
				}
				if everyRequest && all {
					f.Severity = SeverityError
				}
				out = append(out, f)
			}
		}
	}
	return out
}

// patchPathIssue walks a JSON pointer in a kind's schema: "" when the path
// and the value fit, else what is wrong.
func patchPathIssue(root *policycheck.Node, pt constPatch) string {
	if !strings.HasPrefix(pt.path, "/") {
		return "" // kube-apiserver drops the first segment: not checked
	}
	n := root
	segs := strings.Split(pt.path[1:], "/")
	for i, raw := range segs {
		seg := strings.ReplaceAll(strings.ReplaceAll(raw, "~1", "/"), "~0", "~")
		switch n.Type {
		case policycheck.TypeObject:
			f, ok := n.Lookup(seg)
			if !ok {
				if n.Open {
					return ""
				}
				return fmt.Sprintf("no field %q", strings.Join(segs[:i+1], "."))
			}
			n = f.Node
		case policycheck.TypeList:
			if _, err := strconv.Atoi(seg); err != nil && seg != "-" {
				return ""
			}
			n = n.Elem
		case policycheck.TypeMap:
			n = n.Elem
		default:
			return ""
		}
		if n == nil {
			return ""
		}
	}
	if pt.value == nil {
		return ""
	}
	lit := pt.value.AsLiteral()
	var got string
	switch lit.(type) {
	case types.String:
		got = "string"
	case types.Int, types.Uint:
		got = "number"
	case types.Double:
		got = "number"
	case types.Bool:
		got = "bool"
	default:
		return ""
	}
	want := map[policycheck.NodeType]string{policycheck.TypeString: "string", policycheck.TypeInt: "number", policycheck.TypeNumber: "number", policycheck.TypeBool: "bool"}[n.Type]
	if want == "" || want == got {
		return ""
	}
	if _, isDouble := lit.(types.Double); isDouble && n.Type == policycheck.TypeInt {
		return "" // a whole double decodes into an integer
	}
	return fmt.Sprintf("wrong type: a %s for a %s field", got, want)
}

// strictError is the start of the decoding error kube-apiserver returns.
func strictError(issue string) string {
	if strings.HasPrefix(issue, "wrong type") {
		return "json: cannot unmarshal ..."
	}
	return "strict decoding error: unknown field ..."
}
