// Package schemagen builds the encoded schemas of Kubernetes' built-in types
// from client-go's applyconfigurations schema; see cmd/schemagen.
package schemagen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gatehouse-dev/gatehouse/internal/smdcodec"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// SchemaYAML returns the YAML schema that client-go's
// applyconfigurations/internal package embeds, read from its source in the
// module cache (the package is internal to client-go).
func SchemaYAML() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/client-go").Output()
	if err != nil {
		return "", fmt.Errorf("locating k8s.io/client-go: %w", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "applyconfigurations", "internal", "internal.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return "", err
	}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Names) != 1 || vs.Names[0].Name != "schemaYAML" || len(vs.Values) != 1 {
				continue
			}
			call, ok := vs.Values[0].(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return "", fmt.Errorf("%s: schemaYAML is not typed.YAMLObject(`...`)", file)
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return "", fmt.Errorf("%s: schemaYAML is not a string literal", file)
			}
			return strconv.Unquote(lit.Value)
		}
	}
	return "", fmt.Errorf("%s: no schemaYAML", file)
}

// Roots returns, for every kind of client-go's scheme whose model the parser
// defines, the root that names that model.
func Roots(p *typed.Parser) []smdcodec.Root {
	var roots []smdcodec.Root
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal {
			continue
		}
		name, err := scheme.Scheme.ToOpenAPIDefinitionName(gvk)
		if err != nil || !p.Type(name).IsValid() {
			continue
		}
		roots = append(roots, smdcodec.Root{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Type: name})
	}
	sort.Slice(roots, func(i, j int) bool {
		return fmt.Sprint(roots[i]) < fmt.Sprint(roots[j])
	})
	return roots
}

// Generate returns the encoded schema.
func Generate() ([]byte, error) {
	y, err := SchemaYAML()
	if err != nil {
		return nil, err
	}
	p, err := typed.NewParser(typed.YAMLObject(y))
	if err != nil {
		return nil, err
	}
	return smdcodec.Encode(p.Schema.Types, Roots(p))
}
