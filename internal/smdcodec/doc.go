// Package smdcodec stores a structured-merge-diff schema compactly and reads
// back, on demand, only the named types one root type needs.
//
// The encoding (before gzip) is, with every integer an unsigned varint and
// every string a length-prefixed byte sequence:
//
//	"SMDC1"
//	count of types, then per type: name, offset and length of its record
//	count of roots, then per root: group, version, kind, index of its type
//	the type records
//
// A record holds one [schema.Atom]; a named type reference is the index of
// the type it names, so that the closure of a root is found without building
// a name table. Field defaults keep the Go types that go.yaml.in/yaml/v2
// gives SMD's own YAML parser (int, float64, bool, string,
// map[interface{}]interface{}, []interface{}), so a decoded type is
// reflect.DeepEqual to the one typed.NewParser builds from YAML.
package smdcodec
