package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// writeFamily writes one metric family in the Prometheus text exposition
// format, version 0.0.4, byte for byte as Prometheus' expfmt package writes
// what kube-apiserver's registry gathers.
func writeFamily(b *strings.Builder, d *Desc, fam map[string]*series) {
	b.WriteString("# HELP ")
	b.WriteString(d.name)
	b.WriteByte(' ')
	b.WriteString(escapeHelp(d.HelpText()))
	b.WriteString("\n# TYPE ")
	b.WriteString(d.name)
	b.WriteByte(' ')
	b.WriteString(d.kind.String())
	b.WriteByte('\n')

	// Prometheus sorts the labels of a series by name, and the series of a
	// family by their label values taken in that order.
	order := make([]int, len(d.labels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int { return strings.Compare(d.labels[x], d.labels[y]) })
	rows := make([][]string, 0, len(fam))
	byKey := make(map[string]*series, len(fam))
	for _, s := range fam {
		row := make([]string, len(order))
		for i, j := range order {
			row[i] = s.labels[j]
		}
		rows = append(rows, row)
		byKey[seriesKey(row)] = s
	}
	slices.SortFunc(rows, slices.Compare)
	names := make([]string, len(order))
	for i, j := range order {
		names[i] = d.labels[j]
	}

	for _, row := range rows {
		s := byKey[seriesKey(row)]
		if d.kind != Histogram {
			writeSample(b, d.name, names, row, "", "", s.value)
			continue
		}
		var cumulative uint64
		for i, bound := range d.buckets {
			cumulative += s.counts[i]
			writeSample(b, d.name+"_bucket", names, row, "le", formatFloat(bound), float64(cumulative))
		}
		cumulative += s.counts[len(d.buckets)]
		writeSample(b, d.name+"_bucket", names, row, "le", "+Inf", float64(cumulative))
		writeSample(b, d.name+"_sum", names, row, "", "", s.sum)
		writeSample(b, d.name+"_count", names, row, "", "", float64(cumulative))
	}
}

func writeSample(b *strings.Builder, name string, labelNames, labelValues []string, extraName, extraValue string, v float64) {
	b.WriteString(name)
	if len(labelNames) > 0 || extraName != "" {
		b.WriteByte('{')
		for i, n := range labelNames {
			if i > 0 {
				b.WriteByte(',')
			}
			writeLabel(b, n, labelValues[i])
		}
		if extraName != "" {
			if len(labelNames) > 0 {
				b.WriteByte(',')
			}
			writeLabel(b, extraName, extraValue)
		}
		b.WriteByte('}')
	}
	b.WriteByte(' ')
	b.WriteString(formatFloat(v))
	b.WriteByte('\n')
}

func writeLabel(b *strings.Builder, name, value string) {
	b.WriteString(name)
	b.WriteString(`="`)
	b.WriteString(labelEscaper.Replace(value))
	b.WriteByte('"')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }

// formatFloat formats a value as the text format does: shortest 'g' form,
// with +Inf, -Inf and NaN spelled out.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, +1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
