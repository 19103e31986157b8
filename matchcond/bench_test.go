package matchcond

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func BenchmarkAdmissionMatch(b *testing.B) {
	m := compileAdmission(b, AdmissionOptions{Policy: true, Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.labels.app"}}},
		"request.operation == 'CREATE'", "variables.app == 'web'", "'dev' in request.userInfo.groups")
	a := podCreate()
	b.ReportAllocs()
	for b.Loop() {
		if r := m.Match(context.Background(), a); !r.Matches {
			b.Fatal(r)
		}
	}
}

func BenchmarkNewAdmissionCompiler(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewAdmissionCompiler(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmissionCompilePolicy compiles one policy's variables and match
// conditions, as a server does for each policy it loads.
func BenchmarkAdmissionCompilePolicy(b *testing.B) {
	c, err := NewAdmissionCompiler()
	if err != nil {
		b.Fatal(err)
	}
	conds := []admissionregistrationv1.MatchCondition{
		{Name: "create", Expression: "request.operation == 'CREATE'"},
		{Name: "web", Expression: "variables.app == 'web'"},
		{Name: "dev", Expression: "'dev' in request.userInfo.groups"},
	}
	o := AdmissionOptions{Policy: true, HasParams: true, Variables: []admissionregistrationv1.Variable{{Name: "app", Expression: "object.metadata.labels.app"}}}
	b.ReportAllocs()
	for b.Loop() {
		m, err := c.Compile(conds, o)
		if err != nil || len(m.CompileErrors()) > 0 {
			b.Fatal(err, m.CompileErrors())
		}
	}
}
