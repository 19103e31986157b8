package authzconfig

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// DecodeAndValidate accepts or rejects the content of an
// --authorization-config file as kube-apiserver does when it starts
// (startup nil) and on every automatic reload (startup the configuration it
// started with), and returns the error kube-apiserver reports, text for text:
//
//  1. Decode; an error reads "failed to load AuthorizationConfiguration from
//     file: " and Decode's error;
//  2. Validate with opts (KnownTypes nil: kube-apiserver's six types); the
//     error is the aggregate of the error list;
//  3. kube-apiserver's own checks, aggregated: every non-webhook authorizer
//     is named after its lowercased type ("expected name rbac for
//     authorizer RBAC instead of myrbac"), and on reload the non-webhook
//     types present at startup are all still there ("missing required
//     types: [Node RBAC]");
//  4. on reload, none of Node, RBAC and ABAC is added ("authorizer type Node
//     is not allowed if it was not enabled at initial server startup").
//
// kube-apiserver passes the validation aggregate through fmt.Errorf as a
// format string, which garbles a '%' in a value; DecodeAndValidate keeps the
// text as it is (see "Differences from kube-apiserver" in the package doc).
func DecodeAndValidate(data []byte, startup *Configuration, opts ValidateOptions) (*Compiled, error) {
	cfg, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load AuthorizationConfiguration from file: %w", err)
	}
	opts.RequireTypeNames = false // reported below, in kube-apiserver's words
	compiled, fieldErrs := ValidateAndCompile(cfg, opts)
	if len(fieldErrs) > 0 {
		return nil, errors.New(fieldErrs.ToAggregate().Error())
	}
	var errs []error
	for _, a := range cfg.Authorizers {
		if a.Type == TypeWebhook {
			continue
		}
		if a.Name != strings.ToLower(a.Type) {
			errs = append(errs, errors.New(typeNameMessage(a.Type, a.Name)))
		}
	}
	if startup != nil {
		if err := missingTypes(startup, cfg); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	if startup != nil {
		if err := addedTypes(startup, cfg); err != nil {
			return nil, err
		}
	}
	return compiled, nil
}

// ValidateReload checks a configuration that is to replace, by an automatic
// reload, the one a server started with, by kube-apiserver's rules: the
// non-webhook types present at startup must all still be present ("missing
// required types: [Node RBAC]"), and Node, RBAC and ABAC, whose authorizers
// kube-apiserver builds only at startup, cannot be added ("authorizer type
// Node is not allowed if it was not enabled at initial server startup").
// Webhooks may be added, removed, edited and reordered; AlwaysAllow and
// AlwaysDeny may be added, and removed if they were absent at startup.
//
// Compare with the configuration the server started with, not with the one
// in force: kube-apiserver remembers the startup types only.
func ValidateReload(startup, next *Configuration) error {
	if err := missingTypes(startup, next); err != nil {
		return err
	}
	return addedTypes(startup, next)
}

// missingTypes reports the non-webhook types of startup absent from next.
func missingTypes(startup, next *Configuration) error {
	var missing []string
	for _, a := range startup.Authorizers {
		if a.Type == TypeWebhook || slices.Contains(missing, a.Type) || hasType(next, a.Type) {
			continue
		}
		missing = append(missing, a.Type)
	}
	if len(missing) == 0 {
		return nil
	}
	slices.Sort(missing)
	return fmt.Errorf("missing required types: %v", missing)
}

// addedTypes reports the first of Node, RBAC and ABAC, in chain order, that
// next has and startup had not.
func addedTypes(startup, next *Configuration) error {
	for _, a := range next.Authorizers {
		switch a.Type {
		case TypeNode, TypeRBAC, TypeABAC:
			if !hasType(startup, a.Type) {
				return fmt.Errorf("authorizer type %s is not allowed if it was not enabled at initial server startup", a.Type)
			}
		}
	}
	return nil
}

func hasType(cfg *Configuration, typ string) bool {
	for _, a := range cfg.Authorizers {
		if a.Type == typ {
			return true
		}
	}
	return false
}
