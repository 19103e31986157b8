package main

import (
	"fmt"
	yaml3 "go.yaml.in/yaml/v3"
	"regexp"
	"strconv"
	"strings"
)

// yamlLine finds the line of a YAML decoder's error ("yaml: line 3: ...",
// "yaml: unmarshal errors:\n  line 3: ...").
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlProblem is a decoding error of a document that starts at line start of
// file, as file:line: message, the line counted in the file. The decoders'
// prefixes ("error converting YAML to JSON: yaml: ") are dropped: they name
// the machinery, not the problem.
func yamlProblem(file string, start int, err error) string {
	msg := err.Error()
	for _, prefix := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: while decoding JSON: ", "error unmarshaling JSON: ", "yaml: "} {
		msg = strings.TrimPrefix(msg, prefix)
	}
	if start < 1 {
		start = 1
	}
	line := start
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		n, _ := strconv.Atoi(msg[m[2]:m[3]])
		line = start + n - 1
		// "line 3: mapping values..." → "mapping values..."
		rest := strings.TrimPrefix(msg[m[1]:], ":")
		msg = strings.TrimSpace(msg[:m[0]] + rest)
		msg = strings.TrimPrefix(msg, "unmarshal errors:")
		msg = strings.TrimSpace(msg)
	}
	return fmt.Sprintf("%s:%d: %s", file, line, msg)
}

var (
	unknownField = regexp.MustCompile(`unknown field "([^"]*)"`)
	// "json: cannot unmarshal string into Go struct field testSuite.cases of type []main.testCase"
	wrongType = regexp.MustCompile(`cannot unmarshal (\w+) into Go struct field \w+\.([\w.]+) of type (\S+)`)
)

// strictProblem is a strict decoding error of the file data as
// file:line: message, the line that of the field the error is about, the
// message without Go's names of the decoder's types.
func strictProblem(file string, data []byte, err error) string {
	msg := err.Error()
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s:%d: unknown field %q", file, max(keyLine(data, nil, m[1]), 1), m[1])
	}
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		path := strings.Split(m[2], ".")
		return fmt.Sprintf("%s:%d: %s must be %s, not %s", file, max(keyLine(data, path[:len(path)-1], path[len(path)-1]), 1), m[2], typeName(m[3]), article(m[1]))
	}
	return yamlProblem(file, 1, err)
}

func typeName(goType string) string {
	switch {
	case goType == "[]string":
		return "a list of strings"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "main."), strings.HasPrefix(goType, "*main."):
		return "a mapping"
	case goType == "bool", goType == "*bool":
		return "a boolean"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"):
		return "a number"
	}
	return "a " + goType
}

func article(jsonType string) string {
	switch jsonType {
	case "array":
		return "a list"
	case "object":
		return "a mapping"
	}
	return "a " + jsonType
}

// keyLine is the line of the first mapping key named key under the keys of
// path (lists crossed, every item searched), anywhere in the document when
// path is nil; 0 when there is none.
func keyLine(data []byte, path []string, key string) int {
	var root yaml3.Node
	if yaml3.Unmarshal(data, &root) != nil {
		return 0
	}
	nodes := []*yaml3.Node{&root}
	for _, p := range path {
		var next []*yaml3.Node
		for _, n := range nodes {
			next = append(next, children(n, p)...)
		}
		nodes = next
	}
	for _, n := range nodes {
		if l := findKey(n, key, path == nil); l > 0 {
			return l
		}
	}
	return 0
}

// children are the values of key in n's mappings (through documents and
// lists).
func children(n *yaml3.Node, key string) []*yaml3.Node {
	switch n.Kind {
	case yaml3.DocumentNode, yaml3.SequenceNode:
		var out []*yaml3.Node
		for _, c := range n.Content {
			out = append(out, children(c, key)...)
		}
		return out
	case yaml3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return []*yaml3.Node{n.Content[i+1]}
			}
		}
	}
	return nil
}

// findKey is the line of key in n's mapping (deep: at any depth).
func findKey(n *yaml3.Node, key string, deep bool) int {
	switch n.Kind {
	case yaml3.DocumentNode, yaml3.SequenceNode:
		for _, c := range n.Content {
			if l := findKey(c, key, deep); l > 0 {
				return l
			}
		}
	case yaml3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i].Line
			}
		}
		if deep {
			for i := 1; i < len(n.Content); i += 2 {
				if l := findKey(n.Content[i], key, deep); l > 0 {
					return l
				}
			}
		}
	}
	return 0
}

// sequenceLines are the lines of the items of the top-level list key.
func sequenceLines(data []byte, key string) []int {
	var root yaml3.Node
	if yaml3.Unmarshal(data, &root) != nil {
		return nil
	}
	var out []int
	for _, seq := range children(&root, key) {
		if seq.Kind == yaml3.SequenceNode {
			for _, item := range seq.Content {
				out = append(out, item.Line)
			}
		}
	}
	return out
}
