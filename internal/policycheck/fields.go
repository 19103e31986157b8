package policycheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// read is one selection of a field or map key found in an expression.
type read struct {
	operand path
	field   string // a field name, or segKey+key
	// certain: evaluated whenever the expression is (not under a logical
	// operator, a conditional, a comprehension's loop or a variable).
	certain bool
}

// walker collects the reads of one expression and its guards.
type walker struct {
	reads []read
	// guards are the paths has() tests, or `in` tests of a constant key.
	guards map[string]bool
	// nullChecks: the expression compares a root with null or reads
	// request.operation.
	nullChecks map[string]bool
	// kindTested: the expression compares object.kind with something: it
	// chooses what it reads by kind.
	kindTested bool
	// tests are the fields has() tests.
	tests []read
}

func newWalker() *walker {
	return &walker{guards: map[string]bool{}, nullChecks: map[string]bool{}}
}

func (w *walker) walk(e ast.Expr, sc *scope, certain bool) {
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if p, ok := pathOf(s.Operand(), sc); ok {
			if s.IsTestOnly() {
				w.guards[p.child(s.FieldName()).String()] = true
				w.tests = append(w.tests, read{operand: p, field: s.FieldName()})
			} else {
				w.reads = append(w.reads, read{operand: p, field: s.FieldName(), certain: certain})
			}
		}
		if op := s.Operand(); op.Kind() == ast.IdentKind && op.AsIdent() == "request" && s.FieldName() == "operation" {
			w.nullChecks["oldObject"] = true
			w.nullChecks["object"] = true
		}
		w.walk(s.Operand(), sc, certain)
	case ast.CallKind:
		c := e.AsCall()
		args := c.Args()
		switch c.FunctionName() {
		case operators.LogicalAnd, operators.LogicalOr, operators.Conditional:
			for i, a := range args {
				w.walk(a, sc, certain && i == 0 && c.FunctionName() == operators.Conditional)
			}
			return
		case operators.In:
			if len(args) == 2 {
				if k, ok := constString(args[0]); ok {
					if p, ok := pathOf(args[1], sc); ok {
						w.guards[p.child(segKey+k).String()] = true
						w.guards[p.child(k).String()] = true
					}
				}
			}
		case operators.Equals, operators.NotEquals:
			for _, a := range args {
				if a.Kind() == ast.IdentKind && roots[a.AsIdent()] {
					w.nullChecks[a.AsIdent()] = true
				}
				if p, ok := pathOf(a, sc); ok && p.root == "object" && len(p.segs) == 1 && p.segs[0] == "kind" {
					w.kindTested = true
				}
			}
		case operators.Index:
			if len(args) == 2 {
				if p, ok := pathOf(args[0], sc); ok {
					if k, isStr := constString(args[1]); isStr {
						w.reads = append(w.reads, read{operand: p, field: segKey + k, certain: certain})
					}
				}
			}
		case operators.OptSelect, operators.OptIndex:
			// a.?b reads nothing that can be missing; a is read.
			if len(args) > 0 {
				w.walk(args[0], sc, certain)
			}
			return
		}
		if c.IsMemberFunction() && c.FunctionName() == "hasValue" {
			// x.?a.?b.hasValue() tests that x.a.b is there.
			if p, ok := optionalPathOf(c.Target(), sc); ok {
				for n := len(p.segs); n > 0; n-- {
					w.guards[path{root: p.root, segs: p.segs[:n]}.String()] = true
				}
			}
		}
		if c.IsMemberFunction() {
			w.walk(c.Target(), sc, certain)
		}
		for _, a := range args {
			w.walk(a, sc, certain)
		}
	case ast.ComprehensionKind:
		cp := e.AsComprehension()
		w.walk(cp.IterRange(), sc, certain)
		w.walk(cp.AccuInit(), sc, certain)
		rp, rok := pathOf(cp.IterRange(), sc)
		inner := sc
		if cp.HasIterVar2() {
			inner = inner.with(cp.IterVar(), path{}, false)
			inner = inner.with(cp.IterVar2(), rp.child(segValue), rok)
		} else {
			inner = inner.with(cp.IterVar(), rp.child(segItem), rok)
		}
		ap, aok := pathOf(cp.AccuInit(), sc)
		inner = inner.with(cp.AccuVar(), ap, aok)
		w.walk(cp.LoopCondition(), inner, false)
		w.walk(cp.LoopStep(), inner, false)
		w.walk(cp.Result(), inner, false)
	case ast.ListKind:
		for _, el := range e.AsList().Elements() {
			w.walk(el, sc, certain)
		}
	case ast.MapKind:
		for _, en := range e.AsMap().Entries() {
			me := en.AsMapEntry()
			w.walk(me.Key(), sc, certain)
			w.walk(me.Value(), sc, certain)
		}
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			w.walk(f.AsStructField().Value(), sc, certain)
		}
	}
}

// resolve returns the schema node at p in root, nil when unknown (a map's
// keys, an open object, a value of any type).
func resolve(root *Node, p path) *Node {
	n := root
	for _, s := range p.segs {
		if n == nil {
			return nil
		}
		switch {
		case s == segItem:
			if n.Type != TypeList {
				return nil
			}
			n = n.Elem
		case s == segValue:
			if n.Type != TypeList && n.Type != TypeMap {
				return nil
			}
			n = n.Elem
		case strings.HasPrefix(s, segKey):
			k := strings.TrimPrefix(s, segKey)
			switch n.Type {
			case TypeMap:
				n = n.Elem
			case TypeObject:
				f, ok := n.Lookup(k)
				if !ok {
					return nil
				}
				n = f.Node
			default:
				return nil
			}
		default:
			switch n.Type {
			case TypeMap:
				n = n.Elem
			case TypeObject:
				f, ok := n.Lookup(s)
				if !ok {
					return nil
				}
				n = f.Node
			default:
				return nil
			}
		}
	}
	return n
}

// fieldState is what a kind's schema says of one selection.
type fieldState uint8

const (
	stateUnknown fieldState = iota // no schema, or open
	statePresent
	stateOptional
	stateAbsent // never present
)

// selectState tells whether field of the value at n is always there.
func selectState(n *Node, field string) fieldState {
	if n == nil {
		return stateUnknown
	}
	key, isKey := strings.CutPrefix(field, segKey)
	if !isKey {
		key = field
	}
	switch n.Type {
	case TypeMap:
		return stateOptional
	case TypeObject:
		f, ok := n.Lookup(key)
		if !ok {
			if n.Open {
				return stateUnknown
			}
			return stateAbsent
		}
		if f.Present {
			return statePresent
		}
		return stateOptional
	}
	return stateUnknown
}

// kindSchema is a kind an expression is checked against.
type kindSchema struct {
	gvk  schema.GroupVersionKind
	node *Node
}

// checkFields reports the selections of fields and map keys that may be
// absent, with no has(), `in` or optional guard, in every expression of p,
// for the kinds p matches; and those that are never present.
func checkFields(p *Policy, kinds *Kinds, served []Served) []Finding {
	var objects []kindSchema
	for _, gvk := range matchedKinds(p.MatchConstraints, served) {
		if n, ok := kinds.Node(gvk); ok {
			objects = append(objects, kindSchema{gvk: gvk, node: n})
		}
	}
	var params []kindSchema
	if pk := p.ParamKind; pk != nil {
		if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
			gvk := gv.WithKind(pk.Kind)
			if n, ok := kinds.Node(gvk); ok {
				params = append(params, kindSchema{gvk: gvk, node: n})
			}
		}
	}
	// Variables that are plain paths are read through variables.<name>;
	// the guards of match conditions hold in every other expression.
	sc := &scope{vars: map[string]path{}}
	policyGuards := map[string]bool{}
	policyNullChecks := map[string]bool{}
	policyKindTested := false
	type parsed struct {
		expr Expression
		w    *walker
	}
	var all []parsed
	for _, e := range p.Expressions {
		if e.parsed == nil {
			continue
		}
		x := e.parsed.NativeRep().Expr()
		w := newWalker()
		w.walk(x, sc, e.Kind != Variable && e.Kind != MessageExpression)
		if e.Kind == Variable {
			if vp, ok := pathOf(x, sc); ok {
				sc.vars["variables."+e.Name] = vp
			}
		}
		if e.Kind == MatchCondition {
			for g := range w.guards {
				policyGuards[g] = true
			}
			for g := range w.nullChecks {
				policyNullChecks[g] = true
			}
			policyKindTested = policyKindTested || w.kindTested
		}
		all = append(all, parsed{expr: e, w: w})
	}
	nullOn := nullOperations(p)
	noNarrowing := !p.FailurePolicyIgnore && !slices.ContainsFunc(p.Expressions, func(e Expression) bool { return e.Kind == MatchCondition }) && !hasWildcardResource(p.MatchConstraints)
	var out []Finding
	schemasOf := func(root string) []kindSchema {
		switch root {
		case "object", "oldObject":
			return objects
		case "params":
			return params
		}
		return nil
	}
	for _, pe := range all {
		for _, r := range pe.w.tests {
			schemas := schemasOf(r.operand.root)
			absent := 0
			for _, ks := range schemas {
				if selectState(resolve(ks.node, r.operand), r.field) == stateAbsent {
					absent++
				}
			}
			if len(schemas) == 0 || absent < len(schemas) {
				continue
			}
			out = append(out, Finding{Severity: Warning, Rule: RuleNoSuchField, Kind: p.Kind, Name: p.Name, Field: pe.expr.Field,
				Message: fmt.Sprintf("has(%s) is always false: no matched kind has the field, so what it guards never applies", r.operand.child(r.field)),
				Fix:     "check the field's name against the kind's schema"})
		}
		for _, root := range []string{"object", "oldObject"} {
			op := nullOn[root]
			if op == "" || pe.w.nullChecks[root] || policyNullChecks[root] || !slices.ContainsFunc(pe.w.reads, func(r read) bool { return r.operand.root == root }) {
				continue
			}
			out = append(out, Finding{Severity: Warning, Rule: RuleNullObject, Kind: p.Kind, Name: p.Name, Field: pe.expr.Field,
				Message: fmt.Sprintf("%s is null on %s requests, which the policy matches: reading its fields fails there", root, op),
				Fix:     fmt.Sprintf("guard it: %s != null && ..., or test request.operation", root)})
		}
		seen := map[string]bool{}
		for _, r := range pe.w.reads {
			full := r.operand.child(r.field).String()
			if seen[full] || pe.w.guards[full] || policyGuards[full] {
				continue
			}
			seen[full] = true
			var schemas []kindSchema
			switch r.operand.root {
			case "object", "oldObject":
				schemas = objects
			case "params":
				schemas = params
			}
			var optional, absent []string
			unknown, present := false, false
			for _, ks := range schemas {
				switch selectState(resolve(ks.node, r.operand), r.field) {
				case stateOptional:
					optional = append(optional, kindName(ks.gvk))
				case stateAbsent:
					absent = append(absent, kindName(ks.gvk))
				case stateUnknown:
					unknown = true
				case statePresent:
					present = true
				}
			}
			if (pe.w.kindTested || policyKindTested) && r.operand.root != "params" && (present || len(optional) > 0) {
				// A read chosen by kind: the kinds without the field are
				// taken as excluded by the test.
				absent = nil
			}
			if len(optional) == 0 && len(absent) == 0 {
				continue
			}
			f := Finding{Severity: Warning, Rule: RuleUnguardedField, Kind: p.Kind, Name: p.Name, Field: pe.expr.Field}
			shown := r.operand.child(r.field).String()
			if len(absent) > 0 && len(optional) == 0 && !present {
				f.Rule = RuleNoSuchField
				f.Message = fmt.Sprintf("%s is never present: %s %s no such field, so the expression fails with \"no such key\" wherever it reads it", shown, strings.Join(absent, ", "), has(len(absent)))
				if r.certain && noNarrowing && !unknown && r.operand.root != "oldObject" && allPresent(schemas, r.operand) && pe.expr.Kind != MessageExpression {
					f.Severity = Error
					f.Message = fmt.Sprintf("%s is never present: %s %s no such field, so the expression fails with \"no such key\" on every matching request", shown, strings.Join(absent, ", "), has(len(absent)))
				}
				f.Fix = "check the field's name against the kind's schema"
			} else {
				var where []string
				if len(optional) > 0 {
					where = append(where, "optional in "+strings.Join(optional, ", "))
				}
				if len(absent) > 0 {
					where = append(where, "no such field in "+strings.Join(absent, ", "))
				}
				f.Message = fmt.Sprintf("%s may be absent (%s), and is selected with no has() or optional guard: the expression fails with \"no such key\" on objects without it", shown, strings.Join(where, "; "))
				f.Fix = guardFix(r.operand, r.field)
			}
			out = append(out, f)
		}
	}
	return out
}

func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// allPresent: every selection on the way to p is of a field present in
// every kind.
func allPresent(schemas []kindSchema, p path) bool {
	for _, ks := range schemas {
		n := ks.node
		for _, s := range p.segs {
			if selectState(n, s) != statePresent {
				return false
			}
			n = resolve(n, path{segs: []string{s}})
		}
	}
	return true
}

func hasWildcardResource(mr *admissionregistrationv1.MatchResources) bool {
	if mr == nil {
		return true
	}
	for _, r := range mr.ResourceRules {
		for _, res := range r.Resources {
			if strings.Contains(res, "*") {
				return true
			}
		}
	}
	return false
}

func kindName(gvk schema.GroupVersionKind) string {
	return gvk.Kind + " " + gvk.GroupVersion().String()
}

// guardFix suggests a guard of the selection of field on operand.
func guardFix(operand path, field string) string {
	if k, ok := strings.CutPrefix(field, segKey); ok {
		return fmt.Sprintf("guard it: '%s' in %s && ..., or read %s[?'%s'].orValue(...)", k, operand, operand, k)
	}
	sel := operand.child(field).String()
	if strings.Contains(sel, segItem) {
		return fmt.Sprintf("guard it with has(...) on the item, or read it with ?.%s", field)
	}
	return fmt.Sprintf("guard it: has(%s) && ..., or read %s.?%s.orValue(...)", sel, operand, field)
}

// nullOperations returns, for object and oldObject, an operation the
// policy's rules match on which kube-apiserver makes it null: DELETE for
// object (validating policies only: mutating ones are not called on
// DELETE), CREATE for oldObject.
func nullOperations(p *Policy) map[string]string {
	out := map[string]string{}
	if p.MatchConstraints == nil {
		return out
	}
	for _, r := range p.MatchConstraints.ResourceRules {
		for _, op := range r.Operations {
			if op == "*" || op == "CREATE" {
				out["oldObject"] = "CREATE"
			}
			if (op == "*" || op == "DELETE") && p.Kind == "ValidatingAdmissionPolicy" {
				out["object"] = "DELETE"
			}
		}
	}
	return out
}
