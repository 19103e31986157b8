package mutation

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"github.com/gatehouse-dev/gatehouse/internal/mutationcel"
	"github.com/gatehouse-dev/gatehouse/internal/policycheck"
)

// checkPatches reports the ApplyConfiguration mutations of a policy whose
// patch writes into an atomic list, map or struct of a matched kind's
// schema (kube-apiserver refuses the patch: "may not mutate atomic arrays,
// maps or structs"), or sets a field the schema does not declare ("field
// not declared in schema"), from the fields the Object initializers spell
// out. Errors when the patch always holds the path and the mutation runs
// on every matching request; warnings otherwise.
func checkPatches(p *admissionregistrationv1.MutatingAdmissionPolicy, cp *policycheck.Policy, schemas *Schemas, gvks []schema.GroupVersionKind) []Finding {
	everyRequest := policycheck.EveryRequest(cp)
	var out []Finding
	for i, m := range p.Spec.Mutations {
		if m.PatchType != admissionregistrationv1.PatchTypeApplyConfiguration || m.ApplyConfiguration == nil {
			continue
		}
		fieldPath := field.NewPath("spec", "mutations").Index(i).Child("applyConfiguration", "expression").String()
		e := cp.ParsedAt(fieldPath, m.ApplyConfiguration.Expression)
		if e == nil {
			continue
		}
		written, known := mutationcel.WrittenFields(e)
		if !known {
			continue
		}
		certain := everyRequest && policycheck.Unconditional(e)
		literals := objectLiterals(e, "", nil)
		seen := map[string]bool{}
		for _, gvk := range gvks {
			s, err := schemas.Lookup(gvk)
			if err != nil {
				continue
			}
			for _, l := range literals {
				issue := literalTypeIssue(s.pt.Schema, s.pt.TypeRef, l)
				if issue == "" || seen["type"+l.path] {
					continue
				}
				seen["type"+l.path] = true
				f := Finding{Severity: SeverityWarning, Rule: policycheck.RuleWrongType, Kind: kindPolicy, Name: p.Name, Field: fieldPath,
					Message: fmt.Sprintf("the patch sets %s to a %s, where %s %s declares %s: kube-apiserver refuses it (failed to convert patch object to typed object: %s: expected %s, got ...)", l.path, l.kind, gvk.Kind, gvk.GroupVersion(), issue, l.path, issue),
					Fix:     "write a value of the field's type"}
				if certain {
					f.Severity = SeverityError
				}
				out = append(out, f)
			}
			for _, w := range written {
				for _, issue := range walkWritten(s.pt.Schema, s.pt.TypeRef, w) {
					key := issue.rule + issue.path
					if seen[key] {
						continue
					}
					seen[key] = true
					f := Finding{Severity: SeverityWarning, Rule: issue.rule, Kind: kindPolicy, Name: p.Name, Field: fieldPath}
					if certain {
						f.Severity = SeverityError
					}
					kind := gvk.Kind + " " + gvk.GroupVersion().String()
					switch issue.rule {
					case policycheck.RuleAtomicWrite:
						f.Message = fmt.Sprintf("the patch writes %s, atomic in %s: kube-apiserver refuses it (invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: %s)", issue.path, kind, issue.path)
						f.Fix = "replace the atomic value with a JSONPatch mutation, or write only its granular parents' other fields"
					case policycheck.RuleNoSuchField:
						f.Message = fmt.Sprintf("the patch sets %s, a field %s does not declare: kube-apiserver refuses it (failed to convert patch object to typed object: %s: field not declared in schema)", issue.path, kind, issue.path)
						f.Fix = "check the field's name against the kind's schema"
					}
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// patchIssue is an atomic node or an undeclared field on a written path.
type patchIssue struct {
	rule, path string
}

// walkWritten follows a written path (".spec.containers[*].args", "[k]" a
// map key) in the schema, as kube-apiserver's findAtomics walks a patch:
// through declared fields and list items, not into the values of maps.
func walkWritten(s *smdschema.Schema, tr smdschema.TypeRef, written string) []patchIssue {
	var out []patchIssue
	path := ""
	for _, seg := range splitWritten(written) {
		a, ok := s.Resolve(tr)
		if !ok {
			return out
		}
		switch {
		case seg == "[*]":
			if a.List == nil {
				return out
			}
			if a.List.ElementRelationship == smdschema.Atomic {
				return append(out, patchIssue{rule: policycheck.RuleAtomicWrite, path: path})
			}
			path += "[*]"
			tr = a.List.ElementType
		default:
			name := strings.TrimSuffix(strings.TrimPrefix(seg, "["), "]")
			if a.Map == nil {
				return out
			}
			if a.Map.ElementRelationship == smdschema.Atomic && path != "" {
				return append(out, patchIssue{rule: policycheck.RuleAtomicWrite, path: path})
			}
			f, ok := a.Map.FindField(name)
			if !ok {
				if a.Map.ElementType.NamedType == nil && a.Map.ElementType.Inlined.Equals(&smdschema.Atom{}) && len(a.Map.Fields) > 0 {
					return append(out, patchIssue{rule: policycheck.RuleNoSuchField, path: path + "." + name})
				}
				// the values of a map: findAtomics stops there
				return out
			}
			path += "." + name
			tr = f.Type
		}
	}
	// The end of the path: the written value itself, or a subtree copied.
	a, ok := s.Resolve(tr)
	if !ok {
		return out
	}
	if a.Map != nil && a.Map.ElementRelationship == smdschema.Atomic || a.List != nil && a.List.ElementRelationship == smdschema.Atomic {
		return append(out, patchIssue{rule: policycheck.RuleAtomicWrite, path: path})
	}
	return out
}

// splitWritten splits ".spec.containers[*].args" into spec, containers,
// [*], args; a "[key]" segment is a map key.
func splitWritten(p string) []string {
	var out []string
	for p != "" {
		switch p[0] {
		case '.':
			p = p[1:]
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			out = append(out, p[:end])
			p = p[end:]
		case '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return out
			}
			out = append(out, p[:end+1])
			p = p[end+1:]
		default:
			return out
		}
	}
	return out
}

// objectLiteral is a field of an Object initializer set to a literal.
type objectLiteral struct {
	path string // ".spec.replicas"
	kind string // string, int, double, bool
}

// objectLiterals returns the fields of the Object initializers of e (the
// value itself, or the branches of a conditional) set to a scalar literal.
func objectLiterals(e ast.Expr, path string, out []objectLiteral) []objectLiteral {
	switch e.Kind() {
	case ast.StructKind:
		s := e.AsStruct()
		if !strings.HasPrefix(s.TypeName(), "Object") {
			return out
		}
		for _, f := range s.Fields() {
			sf := f.AsStructField()
			p := path + "." + sf.Name()
			v := sf.Value()
			if v.Kind() == ast.LiteralKind {
				var kind string
				switch v.AsLiteral().(type) {
				case types.String:
					kind = "string"
				case types.Int, types.Uint:
					kind = "int"
				case types.Double:
					kind = "double"
				case types.Bool:
					kind = "bool"
				}
				if kind != "" {
					out = append(out, objectLiteral{path: p, kind: kind})
				}
				continue
			}
			out = objectLiterals(v, p, out)
		}
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() == operators.Conditional && len(c.Args()) == 3 {
			out = objectLiterals(c.Args()[1], path, out)
			out = objectLiterals(c.Args()[2], path, out)
		}
	}
	return out
}

// literalTypeIssue returns the scalar type the schema declares at a
// literal's path when the literal does not fit it ("numeric (int or
// float)", "string", "boolean"), as structured-merge-diff's conversion
// refuses it; "" when it fits or the path is not a declared scalar.
func literalTypeIssue(s *smdschema.Schema, tr smdschema.TypeRef, l objectLiteral) string {
	for _, seg := range splitWritten(l.path) {
		a, ok := s.Resolve(tr)
		if !ok || a.Map == nil {
			return ""
		}
		f, ok := a.Map.FindField(seg)
		if !ok {
			return ""
		}
		tr = f.Type
	}
	a, ok := s.Resolve(tr)
	if !ok || a.Scalar == nil {
		return ""
	}
	switch *a.Scalar {
	case smdschema.Numeric:
		if l.kind == "int" || l.kind == "double" {
			return ""
		}
		return "numeric (int or float)"
	case smdschema.String:
		if l.kind == "string" {
			return ""
		}
		return "string"
	case smdschema.Boolean:
		if l.kind == "bool" {
			return ""
		}
		return "boolean"
	}
	return ""
}
