package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// whoCanReport is the -o json/yaml output of rbac who-can.
type whoCanReport struct {
	SchemaVersion int           `json:"schemaVersion"`
	Request       whoCanRequest `json:"request"`
	// Subjects are those that may make the request, each once, as
	// kube-apiserver's RBAC subject locator lists them: the group
	// system:masters first, then the subjects of the grants, in order.
	Subjects []rbacv1.Subject `json:"subjects"`
	// Grants are the bindings whose role allows the request, in the order
	// the authorizer asks them.
	Grants []whoCanGrant `json:"grants"`
	// Error lists the roles of bindings that could not be found.
	Error string   `json:"error,omitempty"`
	Notes []string `json:"notes,omitempty"`
}

// whoCanRequest is a request without its user.
type whoCanRequest struct {
	Verb            string `json:"verb"`
	ResourceRequest bool   `json:"resourceRequest"`
	Namespace       string `json:"namespace,omitempty"`
	APIGroup        string `json:"apiGroup,omitempty"`
	APIVersion      string `json:"apiVersion,omitempty"`
	Resource        string `json:"resource,omitempty"`
	Subresource     string `json:"subresource,omitempty"`
	Name            string `json:"name,omitempty"`
	Path            string `json:"path,omitempty"`
}

// whoCanGrant is a binding whose role allows the request.
type whoCanGrant struct {
	Binding   objectRef        `json:"binding"`
	Role      objectRef        `json:"role"`
	Rule      string           `json:"rule"`
	RuleIndex int              `json:"ruleIndex"`
	Subjects  []rbacv1.Subject `json:"subjects"`
}

type whoCanOptions struct {
	explainOptions
	files []string
}

func (a *app) rbacWhoCanCommand() *cobra.Command {
	o := &whoCanOptions{}
	cmd := &cobra.Command{
		Use:   "who-can VERB RESOURCE [NAME] -f DIR...",
		Short: "Which subjects RBAC allows a request, through which bindings and roles",
		Long: `List, as kube-apiserver's RBAC subject locator does over the Roles,
ClusterRoles, RoleBindings and ClusterRoleBindings of the files and
directories given by -f, the subjects that may make a request: the group
system:masters (which may do anything), then the subjects of every binding
whose role has a rule that allows the request, with the binding, the role and
the rule.

RESOURCE is resource[.group][/subresource]; a VERB followed by a path that
starts with "/" is a non-resource request. Without -n, only the
ClusterRoleBindings are asked (a cluster-wide request).

Documents of other kinds in the directories are skipped with a note.

Exit status: 0, or 2 on a usage or input error.`,
		Example: `  gatehouse rbac who-can delete secrets -n prod -f manifests/
  gatehouse rbac who-can get /metrics -f rbac/`,
		Args: usageArgs(cobra.RangeArgs(2, 3)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.rbacWhoCan(args, o)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&o.namespace, "namespace", "n", "", "the namespace of a resource request")
	f.StringVar(&o.version, "api-version", "", "the API version of a resource request (empty: any)")
	addRBACFilesFlag(cmd, &o.files)
	return cmd
}

func (a *app) rbacWhoCan(args []string, o *whoCanOptions) error {
	attrs, err := parseRequest(args, o.explainOptions)
	if err != nil {
		return err
	}
	set, err := loadRBAC(o.files, a.stdin)
	if err != nil {
		return fmt.Errorf("-f %s: %w", strings.Join(o.files, ","), err)
	}
	grants, grantsErr := set.authorizer.WhoCan(attrs)
	subjects, _ := set.authorizer.AllowedSubjects(attrs) // the same error as WhoCan's
	req := requestOf(attrs)
	r := whoCanReport{
		SchemaVersion: schemaVersion,
		Request: whoCanRequest{
			Verb: req.Verb, ResourceRequest: req.ResourceRequest, Namespace: req.Namespace, APIGroup: req.APIGroup,
			APIVersion: req.APIVersion, Resource: req.Resource, Subresource: req.Subresource, Name: req.Name, Path: req.Path,
		},
		Subjects: subjects,
		Grants:   []whoCanGrant{},
		Error:    errorText(grantsErr),
		Notes:    set.notes,
	}
	if r.Subjects == nil {
		r.Subjects = []rbacv1.Subject{}
	}
	for _, g := range grants {
		r.Grants = append(r.Grants, whoCanGrant{
			Binding: refOf(g.Binding), Role: roleOf(g.Binding, g.RoleRef),
			Rule: rbac.RuleString(&g.Rule), RuleIndex: g.RuleIndex, Subjects: g.Subjects,
		})
	}
	return a.emit(r, func(p *printer) { r.text(p, req) })
}

func (r whoCanReport) text(p *printer, req explainRequest) {
	req.User = ""
	p.linef("who can%s:", describeRequest(req))
	p.linef("  Group system:masters (may do anything)")
	for _, g := range r.Grants {
		role := g.Role.Kind + " " + fmt.Sprintf("%q", g.Role.Name)
		p.linef("  %s of %s, rules[%d] %s:", bindingName(g.Binding), role, g.RuleIndex, g.Rule)
		for _, s := range g.Subjects {
			p.linef("    %s", subjectName(s, g.Binding.Namespace))
		}
	}
	if r.Error != "" {
		p.block(p.paint(red, "error: "), r.Error)
	}
	printNotes(p, r.Notes)
}

// bindingName names a binding as kube-apiserver's reasons do.
func bindingName(b objectRef) string {
	return rbac.ObjectRef{Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}.String()
}

// subjectName renders a subject: Kind name, a service account as
// namespace/name (its namespace defaulting to the binding's).
func subjectName(s rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("ServiceAccount %s/%s", ns, s.Name)
	}
	return s.Kind + " " + s.Name
}
