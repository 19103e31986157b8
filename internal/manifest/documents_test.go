package manifest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDocuments(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // "line: JSON" or "line: error: text"
	}{
		{"YAML documents", "a: 1\n---\n# only a comment\n---\nb: [x]\n", []string{`1: {"a":1}`, `5: {"b":["x"]}`}},
		{"a null document is passed on", "---\nnull\n", []string{`2: null`}},
		{"CRLF line ends", "a: 1\r\n---\r\nb: 2\r\n", []string{`1: {"a":1}`, `3: {"b":2}`}},
		{"a JSON stream", ` {"a":1}
{"b":2}`, []string{`1: {"a":1}`, `2: {"b":2}`}},
		{"a JSON syntax error stops the stream", `{"a":1} {"b" 2} {"c":3}`, []string{`1: {"a":1}`, `0: error: invalid JSON at line 1, column 14: invalid character '2' after object key`}},
		{"a JSON stream cut short", `{"a":1} {"b":`, []string{`1: {"a":1}`, `0: error: unexpected EOF`}},
		{"a separator followed by text", "a: 1\n--- b: 2\n", []string{`1: {"a":1}`, `2: error: a "---" document separator must stand alone on its line (a comment may follow it)`}},
		{"duplicate keys in YAML", "a: 1\na: 2\n", []string{"1: error: invalid YAML: yaml: unmarshal errors:\n  line 2: key \"a\" already set in map"}},
		{"nothing", "\n# c\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			Documents([]byte(tt.input), func(line int, doc []byte, err error) {
				if err != nil {
					got = append(got, fmt.Sprintf("%d: error: %v", line, err))
					return
				}
				got = append(got, fmt.Sprintf("%d: %s", line, doc))
			})
			assert.Equal(t, tt.want, got)
		})
	}
}
