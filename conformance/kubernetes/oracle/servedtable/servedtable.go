// Package servedtable generates the main module's tables of the resources
// and subresources kube-apiserver serves (internal/servedresources,
// served_resources_<version>.tsv) from the k8s.io/kubernetes a build links,
// and checks them: one source for every version. This module's test
// (TestServedResourcesTable, run with each modfile: 1.35, 1.36, 1.38) and
// conformance/kubernetes' (1.37) call Check.
//
// A table is read from k8s.io/kubernetes' source, not its packages: the
// discovery documents of api/discovery (written by
// hack/update-openapi-spec.sh from a kube-apiserver with every API enabled),
// the default API enablement of pkg/controlplane/instance.go
// (DefaultAPIResourceConfigSource) and the storage prefixes of
// pkg/kubeapiserver/default_storage_factory_builder.go, whose package names
// are resolved through the register.go of the packages they import
// (k8s.io/api's and k8s.io/kubernetes/pkg/apis'). Defaults answers as
// k8s.io/apiserver's ResourceConfig and DefaultStorageFactory do (their
// package links etcd's client, which this module's builds do not have;
// conformance/kubernetes checks the answers are theirs). Nothing of
// k8s.io/kubernetes is linked: the generation does not depend on which API
// groups a test binary happens to register.
package servedtable

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Header is the first line of a table: its columns.
const Header = "# group\tversion\tresource\tsubresource\tkind group\tkind version\tkind\tnamespaced\tdefault\tstorage"

// Source is the k8s.io/kubernetes a build links and the directories of its
// module and of k8s.io/api's (each replaced as the modfile says).
type Source struct {
	// Release is k8s.io/kubernetes' module version ("v1.37.2").
	Release string
	// Minor is its minor version ("1.37"), which names the table.
	Minor                 string
	KubernetesDir, APIDir string
}

// Built returns the Source of the k8s.io/kubernetes this build's module
// graph holds: the current module's modfile (go.mod; this module's
// go.v1.35.mod or go.v1.38.mod with the tag k8s135 or k8s138), as go mod
// download finds it in the module cache (downloading it, and k8s.io/api as
// the modfile replaces it, if no build did).
func Built() (Source, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return Source{}, fmt.Errorf("go env GOMOD: %w", err)
	}
	args := []string{"mod", "download", "-json"}
	if modfile != "" {
		args = append(args, "-modfile="+filepath.Join(filepath.Dir(strings.TrimSpace(string(gomod))), modfile))
	}
	args = append(args, "k8s.io/kubernetes", "k8s.io/api")
	cmd := exec.Command("go", args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return Source{}, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	var s Source
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var m struct{ Path, Version, Dir, Error string }
		if err := dec.Decode(&m); err != nil {
			return Source{}, fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
		}
		if m.Error != "" {
			return Source{}, fmt.Errorf("go %s: %s: %s", strings.Join(args, " "), m.Path, m.Error)
		}
		switch m.Path {
		case "k8s.io/kubernetes":
			s.Release, s.KubernetesDir = m.Version, m.Dir
		case "k8s.io/api":
			s.APIDir = m.Dir
		}
	}
	if s.KubernetesDir == "" || s.APIDir == "" {
		return Source{}, fmt.Errorf("go %s: no k8s.io/kubernetes or k8s.io/api: %s", strings.Join(args, " "), out)
	}
	parts := strings.SplitN(strings.TrimPrefix(s.Release, "v"), ".", 3)
	if len(parts) < 2 {
		return Source{}, fmt.Errorf("k8s.io/kubernetes %s: not a release", s.Release)
	}
	s.Minor = parts[0] + "." + parts[1]
	return s, nil
}

// FileName is the name of the table of a minor version ("1.37").
func FileName(minor string) string { return "served_resources_" + minor + ".tsv" }

// Generate returns the table of what the k8s.io/kubernetes of s serves with
// every API enabled (--runtime-config=api/all=true), one line per resource
// and subresource, sorted, after Header and a line naming the release.
//
// Two columns say how kube-apiserver registers the row in its
// EquivalentResourceRegistry: "default", whether it serves the row with
// its default API enablement (the enabled and disabled lists of
// pkg/controlplane's DefaultAPIResourceConfigSource, in a k8s.io/apiserver
// ResourceConfig; apiextensions-apiserver's and kube-aggregator's
// DefaultAPIResourceConfigSource enable all their versions), and
// "storage", the key its registry groups equivalent resources by: the
// storage prefix (DefaultStorageFactory.ResourcePrefix of k8s.io/apiserver,
// with the SpecialDefaultResourcePrefixes and the cohabitating resources of
// pkg/kubeapiserver).
func Generate(s Source) (string, error) {
	d, err := ReadDefaults(s)
	if err != nil {
		return "", err
	}
	files, err := filepath.Glob(filepath.Join(s.KubernetesDir, "api", "discovery", "api*__v*.json"))
	if err != nil {
		return "", err
	}
	if len(files) == 0 {
		return "", fmt.Errorf("%s: no discovery documents in api/discovery", s.KubernetesDir)
	}
	var lines []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		var list metav1.APIResourceList
		if err := json.Unmarshal(data, &list); err != nil {
			return "", fmt.Errorf("%s: %w", f, err)
		}
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return "", fmt.Errorf("%s: %w", f, err)
		}
		for _, r := range list.APIResources {
			resource, sub, _ := strings.Cut(r.Name, "/")
			kg, kv := gv.Group, gv.Version
			if r.Group != "" {
				kg = r.Group
			}
			if r.Version != "" {
				kv = r.Version
			}
			enabled, listed := d.Enabled(gv)
			if gv.Group == "apiextensions.k8s.io" || gv.Group == "apiregistration.k8s.io" {
				enabled = true
			} else if !listed {
				return "", fmt.Errorf("%v is in no list of DefaultAPIResourceConfigSource", gv)
			}
			prefix := d.ResourcePrefix(schema.GroupResource{Group: gv.Group, Resource: resource})
			lines = append(lines, fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%t\t%t\t%s", gv.Group, gv.Version, resource, sub, kg, kv, r.Kind, r.Namespaced, enabled, prefix))
		}
	}
	slices.Sort(lines)
	return Header + "\n" +
		"# generated by TestServedResourcesTable (conformance/kubernetes/oracle/servedtable) from k8s.io/kubernetes " + s.Release + " api/discovery; do not edit\n" +
		strings.Join(lines, "\n") + "\n", nil
}

var (
	importLine = regexp.MustCompile(`(?m)^\s*(?:(\w+)\s+)?"([^"]+)"$`)
	gvList     = regexp.MustCompile(`(?s)(\w+APIGroupVersions(?:Enabled|Disabled)ByDefault) = \[\]schema\.GroupVersion\{(.*?)\n\t\}`)
	gvListUse  = regexp.MustCompile(`ret\.(EnableVersions|DisableVersions)\((\w+)\.\.\.\)`)
	gvItem     = regexp.MustCompile(`(\w+)\.SchemeGroupVersion`)
	// The resource lists of DefaultAPIResourceConfigSource: none so far.
	resourceUse  = regexp.MustCompile(`ret\.(EnableResources|DisableResources)\(`)
	cohabitating = regexp.MustCompile(`AddCohabitatingResources\((\w+)\.Resource\("(\w+)"\), (\w+)\.Resource\("(\w+)"\)\)`)
	prefixEntry  = regexp.MustCompile(`\{Group: "([^"]*)", Resource: "([^"]*)"\}:\s*"([^"]*)"`)
	groupName    = regexp.MustCompile(`(?m)^\s*(?:const\s+)?GroupName\s*=\s*"([^"]*)"`)
	gvVersion    = regexp.MustCompile(`SchemeGroupVersion\s*=\s*schema\.GroupVersion\{Group:\s*GroupName,\s*Version:\s*"([^"]+)"\}`)
)

// goFile is a Go source file of k8s.io/kubernetes and its imports by name.
type goFile struct {
	src     string
	imports map[string]string
}

func readGo(path string) (goFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return goFile{}, err
	}
	f := goFile{src: string(data), imports: map[string]string{}}
	for _, m := range importLine.FindAllStringSubmatch(f.src, -1) {
		alias := m[1]
		if alias == "" {
			alias = filepath.Base(m[2])
		}
		f.imports[alias] = m[2]
	}
	return f, nil
}

// groupVersion resolves an imported package to its API group and version
// by its register.go: k8s.io/api/<group>/<version> (versioned) or
// k8s.io/kubernetes/pkg/apis/<group>[/<version>] (internal: no version).
func (s Source) groupVersion(importPath string) (schema.GroupVersion, error) {
	var dir string
	switch {
	case strings.HasPrefix(importPath, "k8s.io/api/"):
		dir = filepath.Join(s.APIDir, strings.TrimPrefix(importPath, "k8s.io/api/"))
	case strings.HasPrefix(importPath, "k8s.io/kubernetes/pkg/apis/"):
		dir = filepath.Join(s.KubernetesDir, strings.TrimPrefix(importPath, "k8s.io/kubernetes/"))
	default:
		return schema.GroupVersion{}, fmt.Errorf("%s: not an API package", importPath)
	}
	data, err := os.ReadFile(filepath.Join(dir, "register.go"))
	if err != nil {
		return schema.GroupVersion{}, err
	}
	var gv schema.GroupVersion
	m := groupName.FindSubmatch(data)
	if m == nil {
		// A versioned package of pkg/apis may take its group's.
		parent, err := os.ReadFile(filepath.Join(filepath.Dir(dir), "register.go"))
		if err != nil {
			return schema.GroupVersion{}, err
		}
		if m = groupName.FindSubmatch(parent); m == nil {
			return schema.GroupVersion{}, fmt.Errorf("%s: no GroupName", importPath)
		}
	}
	gv.Group = string(m[1])
	if v := gvVersion.FindSubmatch(data); v != nil {
		gv.Version = string(v[1])
	}
	return gv, nil
}

// Defaults are kube-apiserver's default API enablement and the storage
// prefixes of its resources, as pkg/controlplane and pkg/kubeapiserver
// declare them.
type Defaults struct {
	// Versions are the group versions the lists of
	// DefaultAPIResourceConfigSource name: true when enabled.
	Versions map[schema.GroupVersion]bool
	// Prefixes are the SpecialDefaultResourcePrefixes.
	Prefixes map[schema.GroupResource]string
	// Cohabitating are the sets of cohabitating resources, in the order the
	// storage factory builder adds them.
	Cohabitating [][]schema.GroupResource
}

// Enabled tells whether kube-apiserver serves gv by default, as
// k8s.io/apiserver's ResourceConfig.ResourceEnabled answers for each of its
// resources (DefaultAPIResourceConfigSource sets no resource apart:
// ReadDefaults checks it); listed is false when no list names gv.
func (d Defaults) Enabled(gv schema.GroupVersion) (enabled, listed bool) {
	enabled, listed = d.Versions[gv]
	return enabled, listed
}

// ResourcePrefix is the storage prefix of gr, as k8s.io/apiserver's
// DefaultStorageFactory.ResourcePrefix answers: of the first of its
// cohabitating resources whose group has a version enabled (else its own),
// the special prefix, else the resource's name in lower case. No override
// is set (the builder sets no etcd prefix).
func (d Defaults) ResourcePrefix(gr schema.GroupResource) string {
	chosen := gr
	for _, set := range d.Cohabitating {
		if !slices.Contains(set, gr) {
			continue
		}
		// AddCohabitatingResources replaces a resource's set: the last
		// one naming gr counts.
		chosen = gr
		for _, r := range set {
			if d.anyVersionEnabled(r.Group) {
				chosen = r
				break
			}
		}
	}
	if p := d.Prefixes[chosen]; p != "" {
		return p
	}
	return strings.ToLower(chosen.Resource)
}

func (d Defaults) anyVersionEnabled(group string) bool {
	for gv, on := range d.Versions {
		if gv.Group == group && on {
			return true
		}
	}
	return false
}

// ReadDefaults reads kube-apiserver's default API enablement and storage
// prefixes from the source of s's k8s.io/kubernetes.
func ReadDefaults(s Source) (Defaults, error) {
	d := Defaults{Versions: map[schema.GroupVersion]bool{}, Prefixes: map[schema.GroupResource]string{}}
	instance := filepath.Join(s.KubernetesDir, "pkg/controlplane/instance.go")
	f, err := readGo(instance)
	if err != nil {
		return d, err
	}
	lists := map[string][]schema.GroupVersion{}
	for _, l := range gvList.FindAllStringSubmatch(f.src, -1) {
		var gvs []schema.GroupVersion
		for _, item := range gvItem.FindAllStringSubmatch(l[2], -1) {
			gv, err := s.groupVersion(f.imports[item[1]])
			if err != nil {
				return d, fmt.Errorf("%s: %s: %w", l[1], item[1], err)
			}
			gvs = append(gvs, gv)
		}
		lists[l[1]] = gvs
	}
	uses := gvListUse.FindAllStringSubmatch(f.src, -1)
	if len(lists) == 0 || len(uses) != len(lists) {
		return d, fmt.Errorf("%s: %d lists of group versions, %d used by EnableVersions and DisableVersions", instance, len(lists), len(uses))
	}
	if resourceUse.MatchString(f.src) {
		return d, fmt.Errorf("%s: DefaultAPIResourceConfigSource enables or disables resources: read them too", instance)
	}
	// In the order of the calls (DefaultGenericAPIResourceConfigSource's,
	// then DefaultAPIResourceConfigSource's), as EnableVersions and
	// DisableVersions set them.
	for _, u := range uses {
		gvs, ok := lists[u[2]]
		if !ok {
			return d, fmt.Errorf("%s: %s: no such list", instance, u[2])
		}
		for _, gv := range gvs {
			d.Versions[gv] = u[1] == "EnableVersions"
		}
	}

	builder := filepath.Join(s.KubernetesDir, "pkg/kubeapiserver/default_storage_factory_builder.go")
	f, err = readGo(builder)
	if err != nil {
		return d, err
	}
	for _, m := range prefixEntry.FindAllStringSubmatch(f.src, -1) {
		d.Prefixes[schema.GroupResource{Group: m[1], Resource: m[2]}] = m[3]
	}
	if len(d.Prefixes) == 0 {
		return d, fmt.Errorf("%s: no SpecialDefaultResourcePrefixes", builder)
	}
	if strings.Contains(f.src, "SetResourceEtcdPrefix") {
		return d, fmt.Errorf("%s: sets an etcd prefix: read it too", builder)
	}
	matches := cohabitating.FindAllStringSubmatch(f.src, -1)
	if len(matches) == 0 {
		return d, fmt.Errorf("%s: no cohabitating resources", builder)
	}
	for _, m := range matches {
		a, err := s.groupVersion(f.imports[m[1]])
		if err != nil {
			return d, fmt.Errorf("%s: %s: %w", builder, m[1], err)
		}
		b, err := s.groupVersion(f.imports[m[3]])
		if err != nil {
			return d, fmt.Errorf("%s: %s: %w", builder, m[3], err)
		}
		d.Cohabitating = append(d.Cohabitating, []schema.GroupResource{{Group: a.Group, Resource: m[2]}, {Group: b.Group, Resource: m[4]}})
	}
	return d, nil
}

var (
	versionPriority = regexp.MustCompile(`SetVersionPriority\(([^)]*)\)`)
	internalPackage = regexp.MustCompile(`^pkg/apis/[^/]+$`)
)

// VersionPriority returns the versions of an API group in the priority
// order its install package gives the scheme (SetVersionPriority of
// pkg/apis/<group>/install), which is the order kube-apiserver installs
// them in, and registers their resources in its EquivalentResourceRegistry.
func VersionPriority(s Source, group string) ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(s.KubernetesDir, "pkg", "apis", "*"))
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(s.KubernetesDir, dir)
		if !internalPackage.MatchString(filepath.ToSlash(rel)) {
			continue
		}
		gv, err := s.groupVersion("k8s.io/kubernetes/" + filepath.ToSlash(rel))
		if err != nil || gv.Group != group {
			continue
		}
		install := filepath.Join(dir, "install", "install.go")
		f, err := readGo(install)
		if err != nil {
			return nil, err
		}
		m := versionPriority.FindStringSubmatch(f.src)
		if m == nil {
			return nil, fmt.Errorf("%s: no SetVersionPriority", install)
		}
		var out []string
		for _, item := range gvItem.FindAllStringSubmatch(m[1], -1) {
			v, err := s.groupVersion(f.imports[item[1]])
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", install, item[1], err)
			}
			out = append(out, v.Version)
		}
		return out, nil
	}
	return nil, fmt.Errorf("no package of k8s.io/kubernetes/pkg/apis has group %q", group)
}
