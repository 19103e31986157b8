package cel

import (
	"fmt"
	"net/url"
	"reflect"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// URLType is the type of url(...) values.
var URLType = cel.ObjectType("kubernetes.URL")

// urlTypeValue is the runtime type of URL values, a distinct pointer from
// URLType as in kube-apiserver.
var urlTypeValue = cel.ObjectType("kubernetes.URL")

// urlsLibrary is the kubernetes.urls library: url(), isURL() and the URL
// accessors.
type urlsLibrary struct{}

func (urlsLibrary) LibraryName() string { return "kubernetes.urls" }

func (urlsLibrary) CompileOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.Function("url", cel.Overload("string_to_url",
			[]*cel.Type{cel.StringType}, URLType, cel.UnaryBinding(stringToURL))),
		cel.Function("getScheme", cel.MemberOverload("url_get_scheme",
			[]*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlAccessor(func(u *url.URL) string { return u.Scheme })))),
		cel.Function("getHost", cel.MemberOverload("url_get_host",
			[]*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlAccessor(func(u *url.URL) string { return u.Host })))),
		cel.Function("getHostname", cel.MemberOverload("url_get_hostname",
			[]*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlAccessor((*url.URL).Hostname)))),
		cel.Function("getPort", cel.MemberOverload("url_get_port",
			[]*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlAccessor((*url.URL).Port)))),
		cel.Function("getEscapedPath", cel.MemberOverload("url_get_escaped_path",
			[]*cel.Type{URLType}, cel.StringType, cel.UnaryBinding(urlAccessor((*url.URL).EscapedPath)))),
		cel.Function("getQuery", cel.MemberOverload("url_get_query",
			[]*cel.Type{URLType}, cel.MapType(cel.StringType, cel.ListType(cel.StringType)), cel.UnaryBinding(urlQuery))),
		cel.Function("isURL", cel.Overload("is_url_string",
			[]*cel.Type{cel.StringType}, cel.BoolType, cel.UnaryBinding(isURL))),
	}
}

func (urlsLibrary) ProgramOptions() []cel.ProgramOption { return nil }

// urlValue is a URL in CEL.
type urlValue struct{ *url.URL }

func (u urlValue) ConvertToNative(typeDesc reflect.Type) (any, error) {
	if reflect.TypeOf(u.URL).AssignableTo(typeDesc) {
		return u.URL, nil
	}
	if reflect.TypeOf("").AssignableTo(typeDesc) {
		return u.URL.String(), nil
	}
	return nil, fmt.Errorf("type conversion error from 'URL' to '%v'", typeDesc)
}

func (u urlValue) ConvertToType(typeVal ref.Type) ref.Val {
	switch typeVal {
	case urlTypeValue:
		return u
	case types.TypeType:
		return urlTypeValue
	}
	return types.NewErr("type conversion error from '%s' to '%s'", urlTypeValue, typeVal)
}

func (u urlValue) Equal(other ref.Val) ref.Val {
	o, ok := other.(urlValue)
	if !ok {
		return types.MaybeNoSuchOverloadErr(other)
	}
	return types.Bool(u.URL.String() == o.URL.String())
}

func (u urlValue) Type() ref.Type { return urlTypeValue }
func (u urlValue) Value() any     { return u.URL }

func stringToURL(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	// ParseRequestURI accepts only absolute URLs (the OpenAPI 'uri'
	// format); Parse then gives the fragment its own field, which
	// ParseRequestURI would fold into the path or the query.
	if _, err := url.ParseRequestURI(s); err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	u, err := url.Parse(s)
	if err != nil {
		return types.NewErr("URL parse error during conversion from string: %v", err)
	}
	return urlValue{u}
}

func urlAccessor(get func(*url.URL) string) func(ref.Val) ref.Val {
	return func(arg ref.Val) ref.Val {
		u, ok := arg.Value().(*url.URL)
		if !ok {
			return types.MaybeNoSuchOverloadErr(arg)
		}
		return types.String(get(u))
	}
}

func urlQuery(arg ref.Val) ref.Val {
	u, ok := arg.Value().(*url.URL)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	query := u.Query()
	result := make(map[ref.Val]ref.Val, len(query))
	for k, v := range query {
		result[types.String(k)] = types.NewStringList(types.DefaultTypeAdapter, v)
	}
	return types.NewRefValMap(types.DefaultTypeAdapter, result)
}

func isURL(arg ref.Val) ref.Val {
	s, ok := arg.Value().(string)
	if !ok {
		return types.MaybeNoSuchOverloadErr(arg)
	}
	_, err := url.ParseRequestURI(s)
	return types.Bool(err == nil)
}
