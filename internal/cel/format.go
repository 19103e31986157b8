package cel

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation"
)

// FormatType is the type of the named formats (format.dns1123Label(), ...).
var FormatType = cel.ObjectType("kubernetes.NamedFormat")

// Cost model constants of the format library (k8s.io/apiserver/pkg/cel).
const (
	// maxFormatSize bounds the cost of comparing two formats.
	maxFormatSize = 64
	// maxNameFormatRegexSize is the regex size the static estimate of
	// validate() assumes.
	maxNameFormatRegexSize = 128
	// uuidPattern and dateTimePattern are the regular expressions of
	// kube-openapi's strfmt; only their lengths are used, as the regex size
	// of the uuid, date and datetime formats in the runtime cost.
	uuidPattern     = `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`
	dateTimePattern = `^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$`
	// base64RegexSize and urlRegexSize are kube-apiserver's estimates of the
	// govalidator regexes for base64 and URLs.
	base64RegexSize = 84
	urlRegexSize    = 1103
)

// namedFormat is a format of the format library, a CEL value.
type namedFormat struct {
	// key is the name in format.<key>() and format.named("<key>").
	key  string
	name string
	// validate returns the reasons why s does not have the format.
	validate func(s string) []string
	// maxRegexSize is the regex size (or the estimate of an equivalent one)
	// charged by the runtime cost of validate().
	maxRegexSize int
}

// namedFormats returns the formats of kube-apiserver 1.37.
func namedFormats() []namedFormat {
	return []namedFormat{
		{"dns1123Label", "DNS1123Label", func(s string) []string { return validation.IsDNS1123Label(s) }, 30},
		{"dns1123Subdomain", "DNS1123Subdomain", func(s string) []string { return validation.IsDNS1123Subdomain(s) }, 60},
		{"dns1035Label", "DNS1035Label", func(s string) []string { return validation.IsDNS1035Label(s) }, 30},
		{"qualifiedName", "QualifiedName", validation.IsQualifiedName, 60},
		{"dns1123LabelPrefix", "DNS1123LabelPrefix", func(s string) []string { return validation.IsDNS1123Label(maskTrailingDash(s)) }, 30},
		{"dns1123SubdomainPrefix", "DNS1123SubdomainPrefix", func(s string) []string { return validation.IsDNS1123Subdomain(maskTrailingDash(s)) }, 60},
		{"dns1035LabelPrefix", "DNS1035LabelPrefix", func(s string) []string { return validation.IsDNS1035Label(maskTrailingDash(s)) }, 30},
		{"labelValue", "LabelValue", validation.IsValidLabelValue, 40},
		{"uri", "URI", validateURI, urlRegexSize},
		{"uuid", "uuid", reasonIfNot(isUUID, "does not match the UUID format"), len(uuidPattern)},
		{"byte", "byte", reasonIfNot(isBase64, "invalid base64"), base64RegexSize},
		{"date", "date", reasonIfNot(isDate, "invalid date"), len(dateTimePattern)},
		{"datetime", "datetime", reasonIfNot(isDateTime, "invalid datetime"), len(dateTimePattern)},
	}
}

// formatLibrary is the kubernetes.format library: format.<name>(),
// format.named(name) and <format>.validate(s).
type formatLibrary struct{}

func (formatLibrary) LibraryName() string { return "kubernetes.format" }

func (formatLibrary) CompileOptions() []cel.EnvOption {
	formats := namedFormats()
	byKey := make(map[string]namedFormat, len(formats))
	opts := make([]cel.EnvOption, 0, len(formats)+2)
	opts = append(opts,
		cel.Function("validate", cel.MemberOverload("format-validate",
			[]*cel.Type{FormatType, cel.StringType}, cel.OptionalType(cel.ListType(cel.StringType)), cel.BinaryBinding(formatValidate))),
		cel.Function("format.named", cel.Overload("format-named",
			[]*cel.Type{cel.StringType}, cel.OptionalType(FormatType), cel.UnaryBinding(func(name ref.Val) ref.Val {
				key, ok := name.Value().(string)
				if !ok {
					return types.MaybeNoSuchOverloadErr(name)
				}
				f, ok := byKey[key]
				if !ok {
					return types.OptionalNone
				}
				return types.OptionalOf(f)
			}))))
	for _, f := range formats {
		byKey[f.key] = f
		fn := "format." + f.key
		opts = append(opts, cel.Function(fn, cel.Overload(fn, nil, FormatType,
			cel.FunctionBinding(func(...ref.Val) ref.Val { return f }))))
	}
	return opts
}

func (formatLibrary) ProgramOptions() []cel.ProgramOption { return nil }

func (f namedFormat) ConvertToNative(typeDesc reflect.Type) (any, error) {
	return nil, fmt.Errorf("type conversion error from 'Format' to '%v'", typeDesc)
}

func (f namedFormat) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case FormatType:
		return f
	case types.TypeType:
		return FormatType
	default:
		return types.NewErr("type conversion error from '%s' to '%s'", FormatType, typeVal)
	}
}

func (f namedFormat) Equal(other ref.Val) ref.Val {
	o, ok := other.(namedFormat)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(f.name == o.name)
}

func (f namedFormat) Type() ref.Type { return FormatType }
func (f namedFormat) Value() any     { return f }

func formatValidate(arg1, arg2 ref.Val) ref.Val {
	f, ok := arg1.Value().(namedFormat)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg1)
	}
	s, ok := arg2.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg2)
	}
	reasons := f.validate(s)
	if len(reasons) == 0 {
		return types.OptionalNone
	}
	return types.OptionalOf(types.NewStringList(types.DefaultTypeAdapter, reasons))
}

// maskTrailingDash is apimachinery's treatment of a name used as a prefix
// (api/validation): when it ends with a dash and is longer than one
// character, its last two characters are replaced by "a".
func maskTrailingDash(name string) string {
	if len(name) > 1 && strings.HasSuffix(name, "-") {
		return name[:len(name)-2] + "a"
	}
	return name
}

func reasonIfNot(valid func(string) bool, reason string) func(string) []string {
	return func(s string) []string {
		if valid(s) {
			return nil
		}
		return []string{reason}
	}
}

func validateURI(s string) []string {
	if _, err := url.ParseRequestURI(s); err != nil {
		return []string{err.Error()}
	}
	return nil
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isUUID matches uuidPattern: 8-4-4-4-12 hex digits, each dash optional.
func isUUID(s string) bool {
	i := 0
	for g, n := range [5]int{8, 4, 4, 4, 12} {
		if g > 0 && i < len(s) && s[i] == '-' {
			i++
		}
		for range n {
			if i >= len(s) || !isHexDigit(s[i]) {
				return false
			}
			i++
		}
	}
	return i == len(s)
}

func isBase64Char(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// isBase64 matches govalidator's base64 pattern: groups of four characters,
// the last one possibly padded with one or two "=".
func isBase64(s string) bool {
	if len(s) < 4 || len(s)%4 != 0 {
		return false
	}
	last := len(s) - 4
	for i := 0; i < last+2; i++ {
		if !isBase64Char(s[i]) {
			return false
		}
	}
	c2, c3 := s[last+2], s[last+3]
	switch {
	case c2 == '=' && c3 == '=':
		return true
	case c3 == '=':
		return isBase64Char(c2)
	default:
		return isBase64Char(c2) && isBase64Char(c3)
	}
}

// isDate is strfmt's date format: RFC 3339 full-date.
func isDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

// isDateTime is strfmt's datetime format: a date, "t" (any case), then a
// time matching dateTimePattern with hours up to 23 and minutes and seconds
// up to 59.
func isDateTime(str string) bool {
	if len(str) < 4 {
		return false
	}
	parts := strings.Split(strings.ToLower(str), "t")
	if len(parts) < 2 || !isDate(parts[0]) {
		return false
	}
	t := parts[1]
	if len(t) < 8 || !isDigit(t[0]) || !isDigit(t[1]) || t[2] != ':' ||
		!isDigit(t[3]) || !isDigit(t[4]) || t[5] != ':' || !isDigit(t[6]) || !isDigit(t[7]) {
		return false
	}
	if rest := t[8:]; !isTimeZone(rest) {
		// The optional fraction: any one character (but a newline), then
		// digits.
		r, size := utf8.DecodeRuneInString(rest)
		if rest == "" || r == '\n' {
			return false
		}
		j := size
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		if j == size || !isTimeZone(rest[j:]) {
			return false
		}
	}
	return t[0:2] <= "23" && t[3:5] <= "59" && t[6:8] <= "59"
}

// isTimeZone matches "z" or [+-]hh:mm.
func isTimeZone(s string) bool {
	if s == "z" {
		return true
	}
	return len(s) == 6 && (s[0] == '+' || s[0] == '-') && isDigit(s[1]) && isDigit(s[2]) &&
		s[3] == ':' && isDigit(s[4]) && isDigit(s[5])
}
