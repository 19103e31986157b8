package kubeeval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/apis/apiserver/load"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/authorization/union"

	"github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"
)

// kube-apiserver's authorizer types (k8s.io/kubernetes
// pkg/kubeapiserver/authorizer/modes) and the one it lets repeat, which it
// passes to ValidateAuthorizationConfiguration.
var (
	kubeAPIServerTypes       = []string{"AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node"}
	kubeAPIServerRepeatables = []string{"Webhook"}
)

// authzConfig answers OpAuthzConfig as kube-apiserver loads and validates
// its --authorization-config file.
func (e *Evaluator) authzConfig(q protocol.Query) protocol.Answer {
	cfg, err := load.LoadFromData(q.Data)
	if err != nil {
		return protocol.Answer{LoadError: err.Error()}
	}
	known, repeatable := kubeAPIServerTypes, kubeAPIServerRepeatables
	if q.KnownTypes != nil {
		known = q.KnownTypes
	}
	if q.RepeatableTypes != nil {
		repeatable = q.RepeatableTypes
	}
	if e.authzCompiler == nil {
		e.authzCompiler = authorizationcel.NewDefaultCompiler()
	}
	errs := validation.ValidateAuthorizationConfiguration(e.authzCompiler, nil, cfg, sets.New(known...), sets.New(repeatable...))
	a := protocol.Answer{Loaded: true}
	for _, fe := range errs {
		bad, err := json.Marshal(fe.BadValue)
		if err != nil {
			return protocol.Answer{Error: fmt.Sprintf("encoding the bad value of %s: %v", fe.Field, err)}
		}
		a.Validation = append(a.Validation, protocol.FieldError{
			Type: string(fe.Type), Field: fe.Field, BadValue: string(bad), Detail: fe.Detail, Text: fe.Error(),
		})
	}
	if agg := errs.ToAggregate(); agg != nil {
		a.ValidationAggregate = agg.Error()
	}
	return a
}

// union answers OpUnion.
func (e *Evaluator) union(q protocol.Query) protocol.Answer {
	names := make([]string, len(q.Authorizers))
	azs := make([]authorizer.Authorizer, len(q.Authorizers))
	for i, s := range q.Authorizers {
		var d authorizer.Decision
		switch s.Decision {
		case protocol.DecisionAllow:
			d = authorizer.DecisionAllow
		case protocol.DecisionDeny:
			d = authorizer.DecisionDeny
		case protocol.DecisionNoOpinion:
			d = authorizer.DecisionNoOpinion
		default:
			return protocol.Answer{Error: fmt.Sprintf("authorizer %d: unknown decision %q", i, s.Decision)}
		}
		var err error
		if s.Error != "" {
			err = errors.New(s.Error)
		}
		reason := s.Reason
		names[i] = s.Name
		azs[i] = authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
			return d, reason, err
		})
	}
	u, err := newUnion(names, azs)
	if err != nil {
		return protocol.Answer{NewError: err.Error()}
	}
	attrs := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "x"}}
	d, reason, err := u.Authorize(context.Background(), attrs)
	a := protocol.Answer{Decision: d.String(), Reason: reason}
	if err != nil {
		a.AuthorizeError, a.HasAuthorizeError = err.Error(), true
	}
	if q.ConditionsAware {
		s, err := conditionsAwareString(u, attrs)
		if err != nil {
			return protocol.Answer{Error: err.Error()}
		}
		a.ConditionsAware = s
	}
	return a
}

// conditionsAwareString is the String() of u's ConditionsAwareAuthorize
// decision, called through reflection: the method exists from v0.37 only,
// and the untagged build also compiles against v0.36.6.
func conditionsAwareString(u authorizer.Authorizer, attrs authorizer.AttributesRecord) (string, error) {
	m := reflect.ValueOf(u).MethodByName("ConditionsAwareAuthorize")
	if !m.IsValid() {
		return "", errors.New("oracle: the union has no ConditionsAwareAuthorize before v0.37")
	}
	out := m.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(attrs)})
	str := out[0].MethodByName("String")
	if len(out) != 1 || !str.IsValid() {
		return "", fmt.Errorf("oracle: unknown signature of ConditionsAwareAuthorize: %v", m.Type())
	}
	return str.Call(nil)[0].String(), nil
}

// newUnion calls union.New, whose signature changed in v0.37:
//
//	v0.35, v0.36: New(...authorizer.Authorizer) authorizer.Authorizer
//	v0.37:        New(...NamedAuthorizer) (authorizer.Authorizer, error)
//
// It calls it through reflection rather than from build-tagged files: the
// untagged build of this package must compile against v0.36.6 (the oracle's
// go.mod, vetted and tested without tags) and against v0.37.2 (linked by the
// conformance module, tested without tags), which no tag can tell apart.
// The names are dropped before v0.37, which has none.
func newUnion(names []string, azs []authorizer.Authorizer) (authorizer.Authorizer, error) {
	if f, ok := any(union.New).(func(...authorizer.Authorizer) authorizer.Authorizer); ok {
		return f(azs...), nil
	}
	f := reflect.ValueOf(union.New)
	ft := f.Type()
	azType := reflect.TypeFor[authorizer.Authorizer]()
	errType := reflect.TypeFor[error]()
	if !ft.IsVariadic() || ft.NumIn() != 1 || ft.NumOut() != 2 || !ft.Out(0).AssignableTo(azType) || ft.Out(1) != errType {
		return nil, fmt.Errorf("oracle: unknown signature of union.New: %v", ft)
	}
	elem := ft.In(0).Elem() // union.NamedAuthorizer
	nameField, ok1 := elem.FieldByName("AuthorizerName")
	azField, ok2 := elem.FieldByName("Authorizer")
	if elem.Kind() != reflect.Struct || !ok1 || !ok2 || nameField.Type.Kind() != reflect.String || azField.Type != azType {
		return nil, fmt.Errorf("oracle: unknown argument of union.New: %v", elem)
	}
	args := reflect.MakeSlice(ft.In(0), len(azs), len(azs))
	for i := range azs {
		args.Index(i).FieldByIndex(nameField.Index).SetString(names[i])
		args.Index(i).FieldByIndex(azField.Index).Set(reflect.ValueOf(azs[i]))
	}
	out := f.CallSlice([]reflect.Value{args})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	return out[0].Interface().(authorizer.Authorizer), nil
}
