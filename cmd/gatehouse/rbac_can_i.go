package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/rbac"
)

// canIReport is the -o json/yaml output of rbac can-i.
type canIReport struct {
	SchemaVersion int            `json:"schemaVersion"`
	Request       explainRequest `json:"request"`
	// Allowed is RBAC's answer: the decision is Allow.
	Allowed bool `json:"allowed"`
	// Reason is RBAC's reason, as kube-apiserver gives it.
	Reason string `json:"reason,omitempty"`
	// AllowedBy says what allowed the request, when it is allowed.
	AllowedBy *canIGrant `json:"allowedBy,omitempty"`
	// Applied are the bindings that apply to the user, in the order they
	// were asked, up to the one that allowed.
	Applied []canIBinding `json:"applied"`
	Notes   []string      `json:"notes,omitempty"`
}

// canIGrant is the binding, subject, role and rule that allowed a request.
type canIGrant struct {
	Binding   objectRef      `json:"binding"`
	Subject   rbacv1.Subject `json:"subject"`
	Role      objectRef      `json:"role"`
	Rule      string         `json:"rule"`
	RuleIndex int            `json:"ruleIndex"`
}

// canIBinding is a binding that applies to the user.
type canIBinding struct {
	Binding objectRef      `json:"binding"`
	Subject rbacv1.Subject `json:"subject"`
	Role    objectRef      `json:"role"`
	Allowed bool           `json:"allowed"`
	// Error says why the role could not be read (it does not exist).
	Error string `json:"error,omitempty"`
}

// objectRef names a Role, ClusterRole, RoleBinding or ClusterRoleBinding.
type objectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func refOf(r rbac.ObjectRef) objectRef {
	return objectRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// roleOf is the role a binding refers to: a Role lives in the binding's
// namespace.
func roleOf(binding rbac.ObjectRef, r rbacv1.RoleRef) objectRef {
	ref := objectRef{Kind: r.Kind, Name: r.Name}
	if r.Kind == rbac.KindRole {
		ref.Namespace = binding.Namespace
	}
	return ref
}

// rulesReport is the -o json/yaml output of rbac can-i --list.
type rulesReport struct {
	SchemaVersion int      `json:"schemaVersion"`
	User          string   `json:"user"`
	Groups        []string `json:"groups"`
	Namespace     string   `json:"namespace,omitempty"`
	// ResourceRules and NonResourceRules are what a SelfSubjectRulesReview
	// answers, RBAC's part of it.
	ResourceRules    []authorizationv1.ResourceRule    `json:"resourceRules"`
	NonResourceRules []authorizationv1.NonResourceRule `json:"nonResourceRules"`
	// EvaluationError lists the roles of applying bindings that could not
	// be found.
	EvaluationError string   `json:"evaluationError,omitempty"`
	Notes           []string `json:"notes,omitempty"`
}

type canIOptions struct {
	explainOptions
	files []string
	list  bool
}

func (a *app) rbacCanICommand() *cobra.Command {
	o := &canIOptions{}
	cmd := &cobra.Command{
		Use:   "can-i VERB RESOURCE [NAME] --as USER -f DIR...",
		Short: "Whether RBAC allows a user a request, and through which binding, role and rule",
		Long: `Answer, as kube-apiserver's RBAC authorizer does over the Roles, ClusterRoles,
RoleBindings and ClusterRoleBindings of the files and directories given by -f,
whether USER (with --groups) may make a request, and through which binding,
subject, role and rule. kubectl auth can-i asks a cluster the same question.

RESOURCE is resource[.group][/subresource] (pods, deployments.apps, pods/log);
a VERB followed by a path that starts with "/" is a non-resource request.
With --list, VERB and RESOURCE are not given: the rules that apply to USER in
the namespace of -n (cluster-wide ones only without -n), as kubectl auth can-i
--list shows them.

Documents of other kinds in the directories (Deployments, Namespaces...) are
skipped with a note; ClusterRoles with an aggregationRule get the rules
kube-controller-manager would give them. Groups are taken as given: an
authenticated user also has system:authenticated, a service account
system:serviceaccounts and system:serviceaccounts:<namespace>.

Exit status: 0 yes (or --list), 1 no, 2 usage or input error.`,
		Example: `  gatehouse rbac can-i --as alice --groups developers list pods -n dev -f manifests/
  gatehouse rbac can-i --as system:serviceaccount:dev:deployer patch deployments.apps/scale web -n dev -f rbac/
  gatehouse rbac can-i --as bob --groups system:authenticated get /healthz -f rbac/
  gatehouse rbac can-i --list --as alice -n dev -f rbac/`,
		Args: usageArgs(func(cmd *cobra.Command, args []string) error {
			if o.list {
				if len(args) > 0 {
					return fmt.Errorf("--list takes no request: give the user (--as, --groups) and the namespace (-n), not %q", strings.Join(args, " "))
				}
				return nil
			}
			return cobra.RangeArgs(2, 3)(cmd, args)
		}),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.rbacCanI(args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.user, "as", "", "the user name of the request")
	f.StringSliceVar(&o.groups, "groups", nil, "the user's groups, comma-separated or repeated")
	f.StringVarP(&o.namespace, "namespace", "n", "", "the namespace of a resource request")
	f.StringVar(&o.version, "api-version", "", "the API version of a resource request (empty: any)")
	f.BoolVar(&o.list, "list", false, "list what the user may do in the namespace")
	addRBACFilesFlag(cmd, &o.files)
	_ = cmd.MarkFlagRequired("as")
	return cmd
}

// addRBACFilesFlag adds -f, the RBAC objects of the rbac commands.
func addRBACFilesFlag(cmd *cobra.Command, files *[]string) {
	cmd.Flags().StringSliceVarP(files, "filename", "f", nil, "the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings: files, directories (recursively) or - for standard input, comma-separated or repeated")
	_ = cmd.MarkFlagRequired("filename")
}

func (a *app) rbacCanI(args []string, o *canIOptions) error {
	var attrs *authorizer.Attributes
	if !o.list {
		var err error
		if attrs, err = parseRequest(args, o.explainOptions); err != nil {
			return err
		}
	}
	set, err := loadRBAC(o.files, a.stdin)
	if err != nil {
		return fmt.Errorf("-f %s: %w", strings.Join(o.files, ","), err)
	}
	if o.list {
		return a.rbacList(set, o)
	}
	e := set.authorizer.Explain(context.Background(), attrs)
	r := canIReport{
		SchemaVersion: schemaVersion,
		Request:       requestOf(attrs),
		Allowed:       e.Decision == authorizer.DecisionAllow,
		Reason:        e.Reason,
		Applied:       []canIBinding{},
		Notes:         set.notes,
	}
	if r.Allowed {
		r.AllowedBy = &canIGrant{Binding: refOf(e.Binding), Subject: e.Subject, Role: refOf(e.Role), Rule: rbac.RuleString(&e.Rule), RuleIndex: e.RuleIndex}
	}
	for _, ab := range e.Applied {
		b := canIBinding{Binding: refOf(ab.Binding), Subject: ab.Subject, Role: roleOf(ab.Binding, ab.RoleRef), Allowed: ab.Allowed}
		if ab.Err != nil {
			b.Error = ab.Err.Error()
		}
		r.Applied = append(r.Applied, b)
	}
	if err := a.emit(r, func(p *printer) { r.text(p, e) }); err != nil {
		return err
	}
	if !r.Allowed {
		return errFindings
	}
	return nil
}

func (r canIReport) text(p *printer, e *rbac.Explanation) {
	if r.Allowed {
		p.linef("%s", p.paint(green, "yes"))
	} else {
		p.linef("%s", p.paint(red, "no"))
	}
	p.linef("request: %s", describeRequest(r.Request))
	if r.Reason != "" {
		p.block("reason: ", r.Reason)
	}
	for _, l := range e.Details() {
		p.block("  ", l)
	}
	printNotes(p, r.Notes)
}

func (a *app) rbacList(set *rbacSet, o *canIOptions) error {
	user := &authorizer.User{Name: o.user, Groups: o.groups}
	st := set.authorizer.SubjectRulesReview(user, o.namespace)
	r := rulesReport{
		SchemaVersion:    schemaVersion,
		User:             o.user,
		Groups:           o.groups,
		Namespace:        o.namespace,
		ResourceRules:    st.ResourceRules,
		NonResourceRules: st.NonResourceRules,
		EvaluationError:  st.EvaluationError,
		Notes:            set.notes,
	}
	if r.Groups == nil {
		r.Groups = []string{}
	}
	if r.ResourceRules == nil {
		r.ResourceRules = []authorizationv1.ResourceRule{}
	}
	if r.NonResourceRules == nil {
		r.NonResourceRules = []authorizationv1.NonResourceRule{}
	}
	return a.emit(r, r.text)
}

// text writes the rules in the columns of kubectl auth can-i --list: a row
// for each resource (resource.group) of a rule, in the order of the rules,
// then a row for each non-resource rule.
func (r rulesReport) text(p *printer) {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "Resources\tNon-Resource URLs\tResource Names\tVerbs")
	for _, rule := range r.ResourceRules {
		for _, res := range rule.Resources {
			for _, g := range rule.APIGroups {
				name := res
				if g != "" {
					name += "." + g
				}
				fmt.Fprintf(tw, "%s\t[]\t%s\t%s\n", name, list(rule.ResourceNames), list(rule.Verbs))
			}
		}
	}
	for _, rule := range r.NonResourceRules {
		fmt.Fprintf(tw, "\t%s\t[]\t%s\n", list(rule.NonResourceURLs), list(rule.Verbs))
	}
	_ = tw.Flush()
	for _, line := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		p.linef("%s", strings.TrimRight(line, " "))
	}
	if r.EvaluationError != "" {
		p.block(p.paint(red, "error: "), r.EvaluationError)
	}
	printNotes(p, r.Notes)
}

// list renders values as kubectl does: [a b].
func list(values []string) string {
	return "[" + strings.Join(values, " ") + "]"
}
