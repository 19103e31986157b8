package admissionvalidation

import (
	"regexp"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

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

// Variable validates a variable of a policy at path (spec.variables[i]):
// its name, and its expression, which compile compiles (and declares for
// the expressions after it) unless it is blank; compile's error, if any,
// is added.
func Variable(v *admissionregistrationv1.Variable, path *field.Path, compile func() *field.Error) field.ErrorList {
	var errs field.ErrorList
	if strings.TrimSpace(v.Name) == "" {
		errs = append(errs, field.Required(path.Child("name"), "name is not specified"))
	} else if !IsCELIdentifier(v.Name) {
		errs = append(errs, field.Invalid(path.Child("name"), v.Name, "must be a valid CEL identifier"))
	}
	if strings.TrimSpace(v.Expression) == "" {
		errs = append(errs, field.Required(path.Child("expression"), "expression is not specified"))
	} else if err := compile(); err != nil {
		errs = append(errs, err)
	}
	return errs
}
