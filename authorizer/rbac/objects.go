package rbac

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/gatehouse-dev/gatehouse/internal/manifest"
)

// Objects is a set of RBAC objects: what FromObjects and Update index. The
// objects are read, never modified; do not modify them after handing them
// over.
type Objects struct {
	Roles               []*rbacv1.Role
	RoleBindings        []*rbacv1.RoleBinding
	ClusterRoles        []*rbacv1.ClusterRole
	ClusterRoleBindings []*rbacv1.ClusterRoleBinding
}

// Len returns the number of objects.
func (o *Objects) Len() int {
	return len(o.Roles) + len(o.RoleBindings) + len(o.ClusterRoles) + len(o.ClusterRoleBindings)
}

// Append adds the objects of other to o.
func (o *Objects) Append(other *Objects) {
	o.Roles = append(o.Roles, other.Roles...)
	o.RoleBindings = append(o.RoleBindings, other.RoleBindings...)
	o.ClusterRoles = append(o.ClusterRoles, other.ClusterRoles...)
	o.ClusterRoleBindings = append(o.ClusterRoleBindings, other.ClusterRoleBindings...)
}

// The API version and kinds Decode reads.
const (
	apiVersion = rbacv1.GroupName + "/v1"
	kindList   = "List"
)

// DecodeError says what is wrong with a document of a stream, and where.
type DecodeError = manifest.DecodeError

// Decode reads the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings
// (rbac.authorization.k8s.io/v1) of a YAML or JSON stream, as kubectl apply
// -f reads a file: several documents separated by "---", or JSON objects one
// after the other; a document may be a List (apiVersion v1) or a RoleList,
// ClusterRoleList, RoleBindingList or ClusterRoleBindingList, whose items are
// read in order.
//
// Decoding is strict: unknown and duplicate fields, field names in the wrong
// case, values of the wrong type, other API versions (v1beta1 and v1alpha1
// are no longer served) and other kinds are errors. An object must have a
// name, and a Role or RoleBinding a namespace (kubectl would take the
// namespace from its context, which a file does not have); the namespace of
// a cluster-scoped object is dropped, as kube-apiserver drops it.
//
// Every document is read even if an earlier one is bad: Decode returns the
// objects of the good documents and an error that joins one *DecodeError per
// bad document or item. Whether two objects share a name is checked when
// they are indexed, not here.
func Decode(data []byte) (*Objects, error) {
	out := &Objects{}
	err := manifest.Objects(data, func(doc []byte) []*DecodeError { return decodeDocument(doc, out) })
	return out, err
}

// Load reads the RBAC objects of files and directories, as Decode reads
// them: a directory gives its *.yaml, *.yml and *.json files, in name order,
// without descending into subdirectories. A file given by name is read
// whatever its name.
func Load(paths ...string) (*Objects, error) {
	out := &Objects{}
	var errs []error
	for _, p := range paths {
		files := []string{p}
		if info, err := os.Stat(p); err != nil {
			errs = append(errs, err)
			continue
		} else if info.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			files = files[:0]
			for _, e := range entries {
				switch strings.ToLower(filepath.Ext(e.Name())) {
				case ".yaml", ".yml", ".json":
					if !e.IsDir() {
						files = append(files, filepath.Join(p, e.Name()))
					}
				}
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			objs, err := Decode(data)
			out.Append(objs)
			if err != nil {
				errs = append(errs, withFile(err, f))
			}
		}
	}
	return out, errors.Join(errs...)
}

func withFile(err error, file string) error {
	var parts []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		parts = j.Unwrap()
	} else {
		parts = []error{err}
	}
	for _, p := range parts {
		if de, ok := p.(*DecodeError); ok {
			de.File = file
		}
	}
	return err
}

// KindError is the error of a document (or List item) that is not an RBAC
// object, such as a Deployment in a directory of manifests. Decode and Load
// skip it and return the other objects: a caller that reads a directory of
// mixed manifests can find these errors (errors.As on each error that the
// returned error joins, through its DecodeError) and ignore them.
type KindError struct {
	APIVersion, Kind string
}

func (e *KindError) Error() string {
	if e.APIVersion == apiVersion {
		return fmt.Sprintf("unsupported kind %s %q: expected Role, ClusterRole, RoleBinding, ClusterRoleBinding or a List of them", e.Kind, e.APIVersion)
	}
	return fmt.Sprintf("unsupported kind %s %q: expected RBAC objects (%s)", e.Kind, e.APIVersion, apiVersion)
}

// typeMeta is the apiVersion and kind of a document.
type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// list is a List or a typed list: its items are read afterwards.
type list struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   map[string]any    `json:"metadata,omitempty"`
	Items      []json.RawMessage `json:"items"`
}

// decodeDocument decodes one document into out.
func decodeDocument(doc []byte, out *Objects) []*DecodeError {
	var tm typeMeta
	if err := unmarshalLoose(doc, &tm); err != nil {
		return []*DecodeError{{Err: err}}
	}
	if tm.Kind == kindList && tm.APIVersion == "v1" || tm.APIVersion == apiVersion && strings.HasSuffix(tm.Kind, "List") && itemKind(tm.Kind) != "" {
		var l list
		if err := unmarshalStrict(doc, &l); err != nil {
			return []*DecodeError{{Err: err}}
		}
		var errs []*DecodeError
		for i, item := range l.Items {
			var err error
			if tm.Kind == kindList {
				err = decodeObject(item, "", out)
			} else {
				err = decodeObject(item, itemKind(tm.Kind), out)
			}
			if err != nil {
				errs = append(errs, &DecodeError{Item: i + 1, Err: err})
			}
		}
		return errs
	}
	if err := decodeObject(doc, "", out); err != nil {
		return []*DecodeError{{Err: err}}
	}
	return nil
}

// itemKind is the kind of the items of a typed RBAC list.
func itemKind(listKind string) string {
	switch k := strings.TrimSuffix(listKind, "List"); k {
	case "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
		return k
	}
	return ""
}

// decodeObject decodes one object; kind is the kind of a typed list's items,
// which may leave out their apiVersion and kind.
func decodeObject(doc []byte, kind string, out *Objects) error {
	var tm typeMeta
	if err := unmarshalLoose(doc, &tm); err != nil {
		return err
	}
	if kind != "" && tm.APIVersion == "" && tm.Kind == "" {
		tm = typeMeta{APIVersion: apiVersion, Kind: kind}
	}
	switch {
	case tm.APIVersion == "" || tm.Kind == "":
		return fmt.Errorf("apiVersion and kind are required")
	case tm.APIVersion != apiVersion:
		if strings.HasPrefix(tm.APIVersion, rbacv1.GroupName+"/") {
			return fmt.Errorf("unsupported apiVersion %q: RBAC objects are read as %s (v1beta1 and v1alpha1 are no longer served)", tm.APIVersion, apiVersion)
		}
		return &KindError{APIVersion: tm.APIVersion, Kind: tm.Kind}
	case kind != "" && tm.Kind != kind:
		return fmt.Errorf("a %s in a %sList", tm.Kind, kind)
	}
	switch tm.Kind {
	case "Role":
		var r rbacv1.Role
		if err := unmarshalStrict(doc, &r); err != nil {
			return err
		}
		r.TypeMeta = typeMetaOf(tm)
		if err := checkMeta(tm.Kind, r.Name, r.Namespace, true); err != nil {
			return err
		}
		out.Roles = append(out.Roles, &r)
	case "RoleBinding":
		var r rbacv1.RoleBinding
		if err := unmarshalStrict(doc, &r); err != nil {
			return err
		}
		r.TypeMeta = typeMetaOf(tm)
		if err := checkMeta(tm.Kind, r.Name, r.Namespace, true); err != nil {
			return err
		}
		out.RoleBindings = append(out.RoleBindings, &r)
	case "ClusterRole":
		var r rbacv1.ClusterRole
		if err := unmarshalStrict(doc, &r); err != nil {
			return err
		}
		r.TypeMeta = typeMetaOf(tm)
		if err := checkMeta(tm.Kind, r.Name, r.Namespace, false); err != nil {
			return err
		}
		r.Namespace = ""
		out.ClusterRoles = append(out.ClusterRoles, &r)
	case "ClusterRoleBinding":
		var r rbacv1.ClusterRoleBinding
		if err := unmarshalStrict(doc, &r); err != nil {
			return err
		}
		r.TypeMeta = typeMetaOf(tm)
		if err := checkMeta(tm.Kind, r.Name, r.Namespace, false); err != nil {
			return err
		}
		r.Namespace = ""
		out.ClusterRoleBindings = append(out.ClusterRoleBindings, &r)
	default:
		return &KindError{APIVersion: tm.APIVersion, Kind: tm.Kind}
	}
	return nil
}

// typeMetaOf is the apiVersion and kind of an object, filled in for the
// items of typed lists, which may leave them out.
func typeMetaOf(tm typeMeta) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: tm.APIVersion, Kind: tm.Kind}
}

func checkMeta(kind, name, namespace string, namespaced bool) error {
	if name == "" {
		return fmt.Errorf("%s: metadata.name is required", kind)
	}
	if namespaced && namespace == "" {
		return fmt.Errorf("%s %q: metadata.namespace is required", kind, name)
	}
	return nil
}

// unmarshalLoose reads the type of a document; what else it holds is
// checked by unmarshalStrict.
func unmarshalLoose(doc []byte, into any) error {
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, into); err != nil {
		return fmt.Errorf("not an object: %w", err)
	}
	return nil
}

// unmarshalStrict decodes like kube-apiserver's strict field validation:
// case-sensitive, unknown and duplicate fields are errors.
func unmarshalStrict(doc []byte, into any) error {
	strict, err := kjson.UnmarshalStrict(doc, into, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strict...)
}
