package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// schemaVersion is the version of the -o json and -o yaml schema of every
// command (see README.md). It changes only when a field changes meaning or
// goes away; new fields may be added without a change.
const schemaVersion = 1

// emit writes a report: v as JSON or YAML, or text written by text. The
// JSON and YAML reports name the Kubernetes that answered (kubernetes,
// after schemaVersion), unless the report has that field itself.
func (a *app) emit(v any, text func(p *printer)) error {
	switch a.output {
	case "json", "yaml":
		data, err := a.reportJSON(v)
		if err != nil {
			return err
		}
		if a.output == "yaml" {
			if data, err = yaml.JSONToYAML(data); err != nil {
				return err
			}
		} else {
			var out bytes.Buffer
			if err := json.Indent(&out, data, "", "  "); err != nil {
				return err
			}
			out.WriteByte('\n')
			data = out.Bytes()
		}
		_, err = a.stdout.Write(data)
		return err
	}
	p := &printer{w: a.stdout, color: a.colorOn()}
	text(p)
	return p.err
}

// reportJSON is v in compact JSON (HTML characters unescaped) with the
// field kubernetes added to an object that lacks it.
func (a *app) reportJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	data := bytes.TrimSpace(buf.Bytes())
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil || fields["kubernetes"] != nil {
		return data, nil
	}
	version, err := json.Marshal(a.kube.Version().String())
	if err != nil {
		return nil, err
	}
	field := append(append([]byte(`"kubernetes":`), version...), ',')
	at := 1 // after "{"
	if bytes.HasPrefix(data, []byte(`{"schemaVersion":`)) {
		at = bytes.IndexByte(data, ',') + 1 // an int: the first comma ends it
	}
	if at <= 0 || len(fields) == 0 {
		field = field[:len(field)-1]
		if len(fields) != 0 {
			at = len(data) - 1
			field = append([]byte{','}, field...)
		}
	}
	return slices.Concat(data[:at], field, data[at:]), nil
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
