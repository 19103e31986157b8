package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// schemaVersion is the version of the -o json and -o yaml schema of every
// command (see README.md). It changes only when a field changes meaning or
// goes away; new fields may be added without a change.
const schemaVersion = 1

// emit writes a report: v as JSON or YAML, or text written by text.
func (a *app) emit(v any, text func(p *printer)) error {
	switch a.output {
	case "json":
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = a.stdout.Write(data)
		return err
	}
	p := &printer{w: a.stdout, color: a.colorOn()}
	text(p)
	return p.err
}

// printer writes text output, coloured or not.
type printer struct {
	w     io.Writer
	color bool
	err   error
}

// ANSI colours of the text output.
const (
	red    = "31"
	green  = "32"
	yellow = "33"
	bold   = "1"
)

// paint colours s when colour is on.
func (p *printer) paint(code, s string) string {
	if !p.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func (p *printer) linef(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
}

// block writes s under prefix, continuation lines aligned.
func (p *printer) block(prefix, s string) {
	p.linef("%s%s", prefix, indent(s, strings.Repeat(" ", len(prefix))))
}
