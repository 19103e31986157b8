package admissionvalidation

import "regexp"

// celIdentifier is an identifier of CEL, less the reserved words.
var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)

var celReserved = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true, "const": true,
	"continue": true, "else": true, "for": true, "function": true, "if": true, "import": true, "let": true,
	"loop": true, "package": true, "namespace": true, "return": true, "var": true, "void": true, "while": true,
}

// IsCELIdentifier reports whether name is an identifier of CEL that is not
// a reserved word, the rule for the names of a policy's variables.
func IsCELIdentifier(name string) bool {
	return celIdentifier.MatchString(name) && !celReserved[name]
}
