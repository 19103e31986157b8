package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadInputs(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"b.yaml":           "b",
		"a.json":           "a",
		"notes.md":         "skipped",
		"sub/c.YML":        "c",
		"sub/deeper/d.yml": "d",
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "empty"), 0o755))

	got := readInputs([]string{dir, "-", filepath.Join(dir, "notes.md"), "-", filepath.Join(dir, "nope.yaml"), filepath.Join(dir, "empty")}, strings.NewReader("from stdin"))
	type row struct{ name, data, err string }
	var rows []row
	for _, in := range got {
		r := row{name: strings.TrimPrefix(filepath.ToSlash(in.name), filepath.ToSlash(dir)), data: string(in.data)}
		if in.err != nil {
			r.err = strings.ReplaceAll(in.err.Error(), dir, "")
		}
		rows = append(rows, r)
	}
	assert.Equal(t, []row{
		// A directory: its .yaml, .yml and .json files, recursively, in
		// lexical order.
		{name: "/a.json", data: "a"},
		{name: "/b.yaml", data: "b"},
		{name: "/sub/c.YML", data: "c"},
		{name: "/sub/deeper/d.yml", data: "d"},
		{name: "-", data: "from stdin"},
		// A file named explicitly is read whatever its extension.
		{name: "/notes.md", data: "skipped"},
		{name: "-", err: "standard input is given more than once"},
		{name: "/nope.yaml", err: "stat /nope.yaml: no such file or directory"},
		{name: "/empty", err: "no .yaml, .yml or .json file in the directory"},
	}, rows)
}
