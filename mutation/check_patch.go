package mutation

import (
	"fmt"
	"strings"

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
func checkPatches(p *admissionregistrationv1.MutatingAdmissionPolicy, cp policycheck.Policy, schemas *Schemas, gvks []schema.GroupVersionKind) []Finding {
	everyRequest := policycheck.EveryRequest(&cp)
	var out []Finding
	for i, m := range p.Spec.Mutations {
		if m.PatchType != admissionregistrationv1.PatchTypeApplyConfiguration || m.ApplyConfiguration == nil {
			continue
		}
		e := policycheck.Parse(m.ApplyConfiguration.Expression)
		if e == nil {
			continue
		}
		written, known := mutationcel.WrittenFields(e)
		if !known {
			continue
		}
		certain := everyRequest && policycheck.Unconditional(e)
		fieldPath := field.NewPath("spec", "mutations").Index(i).Child("applyConfiguration", "expression").String()
		seen := map[string]bool{}
		for _, gvk := range gvks {
			s, err := schemas.Lookup(gvk)
			if err != nil {
				continue
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
