package kubeeval

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// DecodeValue decodes a value of an activation (see protocol's value
// encoding) into the Go value admission would hand to CEL: plain JSON as
// the apimachinery decoder gives it (int64 or float64 numbers,
// map[string]interface{}, []interface{}), tagged objects as uint64,
// []byte, time.Duration, time.Time or float64.
func DecodeValue(raw json.RawMessage) (any, error) {
	var v any
	if err := utiljson.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return untag(v)
}

func untag(v any) (any, error) {
	switch x := v.(type) {
	case []any:
		for i := range x {
			var err error
			if x[i], err = untag(x[i]); err != nil {
				return nil, err
			}
		}
		return x, nil
	case map[string]any:
		if len(x) == 1 {
			for k, tv := range x {
				if strings.HasPrefix(k, "@") {
					return untagOne(k, tv)
				}
			}
		}
		for k := range x {
			var err error
			if x[k], err = untag(x[k]); err != nil {
				return nil, err
			}
		}
		return x, nil
	}
	return v, nil
}

func untagOne(tag string, v any) (any, error) {
	s, isString := v.(string)
	if !isString {
		return nil, fmt.Errorf("%s wants a string, not %T", tag, v)
	}
	switch tag {
	case "@uint":
		return strconv.ParseUint(s, 10, 64)
	case "@double":
		switch s {
		case "NaN":
			return math.NaN(), nil
		case "+Inf":
			return math.Inf(1), nil
		case "-Inf":
			return math.Inf(-1), nil
		case "-0":
			return math.Copysign(0, -1), nil
		}
		return strconv.ParseFloat(s, 64)
	case "@bytes":
		return base64.StdEncoding.DecodeString(s)
	case "@duration":
		return time.ParseDuration(s)
	case "@timestamp":
		return time.Parse(time.RFC3339Nano, s)
	}
	return nil, fmt.Errorf("unknown tag %s in an activation (known: @uint, @double, @bytes, @duration, @timestamp)", tag)
}

// EncodeResult encodes a CEL value (see protocol's value encoding) and
// returns its type name.
func EncodeResult(v refVal) (json.RawMessage, string, error) {
	enc, err := encode(v)
	if err != nil {
		return nil, "", err
	}
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(enc); err != nil {
		return nil, "", err
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	if len(out) > protocol.MaxResultBytes {
		sum := sha256.Sum256(out)
		out = fmt.Appendf(nil, `{"@digest":"sha256:%s","@size":%d}`, hex.EncodeToString(sum[:]), len(out))
	}
	return out, v.Type().TypeName(), nil
}

func encode(v refVal) (any, error) {
	switch x := v.(type) {
	case typesNull:
		return nil, nil
	case typesBool:
		return bool(x), nil
	case typesInt:
		return json.Number(strconv.FormatInt(int64(x), 10)), nil
	case typesUint:
		return map[string]any{"@uint": strconv.FormatUint(uint64(x), 10)}, nil
	case typesDouble:
		f := float64(x)
		switch {
		case math.IsNaN(f):
			return map[string]any{"@double": "NaN"}, nil
		case math.IsInf(f, 1):
			return map[string]any{"@double": "+Inf"}, nil
		case math.IsInf(f, -1):
			return map[string]any{"@double": "-Inf"}, nil
		case f == 0 && math.Signbit(f):
			return map[string]any{"@double": "-0"}, nil
		}
		s := strconv.FormatFloat(f, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return json.Number(s), nil
	case typesString:
		return string(x), nil
	case typesBytes:
		return map[string]any{"@bytes": base64.StdEncoding.EncodeToString(x)}, nil
	case typesDuration:
		return map[string]any{"@duration": x.Duration.String()}, nil
	case typesTimestamp:
		return map[string]any{"@timestamp": x.Time.UTC().Format(time.RFC3339Nano)}, nil
	case *typesOptional:
		if !x.HasValue() {
			return map[string]any{"@optional.none": true}, nil
		}
		inner, err := encode(x.GetValue())
		return map[string]any{"@optional.of": inner}, err
	case *typesType:
		return map[string]any{"@type": x.TypeName()}, nil
	case *typesErr:
		return map[string]any{"@error": x.Error()}, nil
	case traitsMapper:
		return encodeMap(x)
	case traitsLister:
		out := []any{}
		for it := x.Iterator(); it.HasNext() == typesTrue; {
			e, err := encode(it.Next())
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	text := ""
	if s, ok := v.Value().(fmt.Stringer); ok {
		text = s.String()
	} else if s, ok := v.ConvertToType(typesStringType).(typesString); ok {
		text = string(s)
	}
	return map[string]any{"@" + v.Type().TypeName(): text}, nil
}

func encodeMap(m traitsMapper) (any, error) {
	type entry struct {
		key  string // the encoded key, to sort by
		k, v any
	}
	var entries []entry
	allStrings := true
	for it := m.Iterator(); it.HasNext() == typesTrue; {
		k := it.Next()
		if _, ok := k.(typesString); !ok {
			allStrings = false
		}
		ek, err := encode(k)
		if err != nil {
			return nil, err
		}
		ev, err := encode(m.Get(k))
		if err != nil {
			return nil, err
		}
		kb, err := json.Marshal(ek)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{key: string(kb), k: ek, v: ev})
	}
	if allStrings {
		out := make(map[string]any, len(entries))
		for _, e := range entries {
			out[e.k.(string)] = e.v
		}
		return out, nil
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	pairs := make([]any, len(entries))
	for i, e := range entries {
		pairs[i] = []any{e.k, e.v}
	}
	return map[string]any{"@map": pairs}, nil
}
