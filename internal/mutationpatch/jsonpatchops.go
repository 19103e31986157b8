package mutationpatch

import "encoding/json"

// patchOp is an operation of a JSON patch as json-patch v4 reads it
// (Operation, a map of raw JSON values, and its Kind, Path and value).
type patchOp struct {
	// kind is the operation ("op"), a JSON string.
	kind string
	// path is the JSON pointer ("path"), a JSON string.
	path string
	// value is the JSON text of "value"; nil when it is absent or null
	// (json-patch then adds null).
	value []byte
	// hasValue tells "value" is present, null or not.
	hasValue bool
}

// decodeOps reads a JSON patch as json-patch's DecodePatch and the
// accessors of its operations read it, without reflection; false where
// they fail or the operation is not one the fast path reads (an "op" or
// "path" that is absent or not a string, which json-patch reports as an
// error): the exact path then runs.
func decodeOps(b []byte) ([]patchOp, bool) {
	if !json.Valid(b) {
		return nil, false
	}
	i := skipSpace(b, 0)
	if b[i] == 'n' {
		// null: no operations.
		return nil, true
	}
	if b[i] != '[' {
		return nil, false
	}
	var ops []patchOp
	i = skipSpace(b, i+1)
	if b[i] == ']' {
		return ops, true
	}
	for {
		op, next, ok := decodeOp(b, i)
		if !ok {
			return nil, false
		}
		ops = append(ops, op)
		i = skipSpace(b, next)
		if b[i] == ']' {
			return ops, true
		}
		// b is valid JSON: a comma.
		i = skipSpace(b, i+1)
	}
}

// decodeOp reads the operation (a JSON object) at b[i]; its keys decoded,
// the last of duplicate keys winning, as decoding into a map does.
func decodeOp(b []byte, i int) (patchOp, int, bool) {
	var op patchOp
	if b[i] != '{' {
		return op, 0, false
	}
	var kindRaw, pathRaw []byte
	i = skipSpace(b, i+1)
	if b[i] == '}' {
		return op, 0, false
	}
	for {
		end, ok := stringEnd(b, i)
		if !ok {
			return op, 0, false
		}
		key, ok := unquote(b[i:end])
		if !ok {
			return op, 0, false
		}
		i = skipSpace(b, end)
		i = skipSpace(b, i+1) // the colon
		vend, ok := skipValue(b, i)
		if !ok {
			return op, 0, false
		}
		raw := b[i:vend]
		if string(raw) == "null" {
			raw = nil
		}
		switch key {
		case "op":
			kindRaw = raw
		case "path":
			pathRaw = raw
		case "value":
			op.value, op.hasValue = raw, true
		}
		i = skipSpace(b, vend)
		if b[i] == '}' {
			i++
			break
		}
		i = skipSpace(b, i+1)
	}
	if len(kindRaw) == 0 || kindRaw[0] != '"' || len(pathRaw) == 0 || pathRaw[0] != '"' {
		return op, 0, false
	}
	var ok bool
	if op.kind, ok = unquote(kindRaw); !ok {
		return op, 0, false
	}
	if op.path, ok = unquote(pathRaw); !ok {
		return op, 0, false
	}
	return op, i, true
}

// skipValue returns the index after the JSON value at b[i], of a valid
// JSON text.
func skipValue(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := stringEnd(b, j)
				if !ok {
					return 0, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, true
				}
			}
		}
		return 0, false
	}
	// A number or a literal.
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	return j, true
}
