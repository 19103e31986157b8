package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	"github.com/gatehouse-dev/gatehouse/internal/kubeversions"
	"github.com/gatehouse-dev/gatehouse/matchcond"
)

// explainReport is the -o json/yaml output of authz explain.
type explainReport struct {
	SchemaVersion int            `json:"schemaVersion"`
	Request       explainRequest `json:"request"`
	// Decision is Allow, Deny or NoOpinion; Allowed is Decision == Allow.
	Decision string `json:"decision"`
	Allowed  bool   `json:"allowed"`
	// HTTPStatus is kube-apiserver's answer: 200 allowed, 500 not allowed
	// with an error, 403 otherwise; 0 when the decision is Conditional.
	HTTPStatus int `json:"httpStatus"`
	// Conditional is set when Decision is Conditional (1.38, gate
	// ConditionalAuthorization): the request goes on to admission, where the
	// conditions are evaluated on the object.
	Conditional *explainConditional `json:"conditional,omitempty"`
	Reason      string              `json:"reason,omitempty"`
	Error       string              `json:"error,omitempty"`
	// Steps are the authorizers asked, in order; those after the one that
	// decided are not listed.
	Steps []explainStep `json:"steps"`
	// Notes are the documents of --rbac skipped because they are not RBAC
	// objects.
	Notes []string `json:"notes,omitempty"`
}

// explainConditional is a conditional decision that could allow.
type explainConditional struct {
	// Decision is the decision, as kube-apiserver prints it
	// (ConditionsMap(allows=1), Union[...]).
	Decision string `json:"decision"`
	// Possible are the decisions its conditions can evaluate to.
	Possible []string `json:"possible"`
}

// explainRequest is the request explained.
type explainRequest struct {
	User            string              `json:"user"`
	UID             string              `json:"uid,omitempty"`
	Groups          []string            `json:"groups"`
	Extra           map[string][]string `json:"extra,omitempty"`
	Verb            string              `json:"verb"`
	ResourceRequest bool                `json:"resourceRequest"`
	Namespace       string              `json:"namespace,omitempty"`
	APIGroup        string              `json:"apiGroup,omitempty"`
	APIVersion      string              `json:"apiVersion,omitempty"`
	Resource        string              `json:"resource,omitempty"`
	Subresource     string              `json:"subresource,omitempty"`
	Name            string              `json:"name,omitempty"`
	Path            string              `json:"path,omitempty"`
}

// explainStep is one authorizer's part in the decision.
type explainStep struct {
	Name     string        `json:"name"`
	Type     string        `json:"type,omitempty"`
	Decision string        `json:"decision"`
	Reason   string        `json:"reason,omitempty"`
	Error    string        `json:"error,omitempty"`
	Webhook  *explainHook  `json:"webhook,omitempty"`
	Steps    []explainStep `json:"steps,omitempty"`
}

// explainHook tells what a webhook authorizer did.
type explainHook struct {
	// MatchConditions is "none configured", "all true", "excluded" or
	// "error"; Condition the expression that was false or failed, with its
	// index.
	MatchConditions string `json:"matchConditions"`
	Condition       string `json:"condition,omitempty"`
	ConditionIndex  *int   `json:"conditionIndex,omitempty"`
	// Cache is "not consulted", "hit" or "miss".
	Cache    string           `json:"cache"`
	Attempts []explainAttempt `json:"attempts"`
	// FailurePolicy is true when the failure policy decided.
	FailurePolicy bool `json:"failurePolicy"`
}

// explainAttempt is one call to a webhook.
type explainAttempt struct {
	// Result is success, canceled, timeout or error.
	Result     string `json:"result"`
	StatusCode int    `json:"statusCode,omitempty"`
	Requests   int    `json:"requests"`
	Error      string `json:"error,omitempty"`
}

type explainOptions struct {
	config    string
	user      string
	uid       string
	groups    []string
	extra     map[string]string
	namespace string
	version   string
	answers   string
	rbac      []string
}

func (a *app) authzExplainCommand() *cobra.Command {
	o := explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain --config FILE --as USER [--groups G,...] VERB (RESOURCE [NAME] [-n NS] | /PATH)",
		Short: "Explain the decision of an authorizer chain for one request",
		Long: `Build the authorizer chain kube-apiserver 1.37 builds from an
AuthorizationConfiguration (system:masters first, then each authorizer in
order), ask it about one request, and print the decision with its trace: each
authorizer asked, what it answered, and for webhooks the match conditions,
the cache and each call.

RESOURCE is resource[.group][/subresource], as kubectl writes it: pods,
deployments.apps, pods/log, deployments.apps/scale. A VERB followed by a path
that starts with "/" is a non-resource request (get /healthz).

Webhooks are called for real, through their kubeconfig files, unless
--webhook-answers gives a file of scripted answers (see README.md): then every
webhook of the configuration is answered from it, by a fake webhook on the
loopback interface, with kube-apiserver's retries (waits shortened to
milliseconds), cache and failure policy.

AlwaysAllow and AlwaysDeny are built in. Node has no opinion on users who are
not nodes, as in kube-apiserver; for a node's own requests it needs the
cluster's objects, and the command stops with a usage error. RBAC decides over
the objects of --rbac DIR (other kinds of documents there are skipped, with a
note); ABAC is not supported.

With --kube-version 1.38 --feature-gates ConditionalAuthorization=true, the
requests admission sees (create, update, patch, delete, deletecollection of a
resource) are asked conditionally, as kube-apiserver asks them: webhooks with
a conditionsReview may answer with conditions (scripted answers: conditions:
{deny, noOpinion, allow}), and a decision that could allow is reported as
Conditional, left to admission's AuthorizationConditionsEnforcer.

Exit status: 0 allowed, 1 not allowed or conditional, 2 usage or input error.`,
		Example: `  gatehouse authz explain --config authz.yaml --as alice --groups dev get pods -n dev
  gatehouse authz explain --config authz.yaml --webhook-answers answers.yaml \
    --as system:serviceaccount:ci:deployer delete customresourcedefinitions.apiextensions.k8s.io foos.example.com
  gatehouse authz explain --config authz.yaml --as bob get /healthz`,
		Args: usageArgs(cobra.RangeArgs(2, 3)),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.authzExplain(cmd.Context(), args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.config, "config", "", "the AuthorizationConfiguration file (- for standard input)")
	f.StringVar(&o.user, "as", "", "the user name of the request")
	f.StringVar(&o.uid, "uid", "", "the user's UID")
	f.StringSliceVar(&o.groups, "groups", nil, "the user's groups, comma-separated or repeated (authenticated users also have system:authenticated: give it)")
	f.StringToStringVar(&o.extra, "extra", nil, "the user's extra information, key=value, repeated")
	f.StringVarP(&o.namespace, "namespace", "n", "", "the namespace of a resource request")
	f.StringVar(&o.version, "api-version", "", "the API version of a resource request (empty: any)")
	f.StringVar(&o.answers, "webhook-answers", "", "a file of scripted answers of the webhooks, instead of calling them")
	f.StringSliceVar(&o.rbac, "rbac", nil, "the Roles, ClusterRoles, RoleBindings and ClusterRoleBindings of the RBAC authorizer: files or directories, comma-separated or repeated (other kinds are skipped)")
	_ = cmd.MarkFlagRequired("config")
	_ = cmd.MarkFlagRequired("as")
	return cmd
}

// parseRequest reads VERB RESOURCE [NAME] or VERB /PATH.
func parseRequest(args []string, o explainOptions) (*authorizer.Attributes, error) {
	attrs := &authorizer.Attributes{
		User: &authorizer.User{Name: o.user, UID: o.uid, Groups: o.groups},
		Verb: args[0],
	}
	if len(o.extra) > 0 {
		attrs.User.Extra = map[string][]string{}
		for k, v := range o.extra {
			attrs.User.Extra[k] = []string{v}
		}
	}
	if attrs.Verb == "" {
		return nil, errors.New("the verb is empty")
	}
	target := args[1]
	if strings.HasPrefix(target, "/") {
		if len(args) > 2 || o.namespace != "" || o.version != "" {
			return nil, fmt.Errorf("%s is a non-resource path: it takes no name, namespace or API version", target)
		}
		attrs.Path = target
		return attrs, nil
	}
	attrs.ResourceRequest = true
	resource, sub, _ := strings.Cut(target, "/")
	resource, group, _ := strings.Cut(resource, ".")
	if resource == "" || strings.Contains(sub, "/") {
		return nil, fmt.Errorf("resource %q: write resource[.group][/subresource], such as pods, deployments.apps or pods/log", target)
	}
	attrs.Resource, attrs.APIGroup, attrs.Subresource = resource, group, sub
	attrs.Namespace, attrs.APIVersion = o.namespace, o.version
	if len(args) > 2 {
		attrs.Name = args[2]
	}
	return attrs, nil
}

func (a *app) authzExplain(ctx context.Context, args []string, o explainOptions) error {
	attrs, err := parseRequest(args, o)
	if err != nil {
		return err
	}
	if o.config == "-" && slices.Contains(o.rbac, "-") {
		return errors.New("--config and --rbac cannot both read standard input")
	}
	ins := readInputs([]string{o.config}, a.stdin)
	if len(ins) != 1 || ins[0].err != nil {
		for _, in := range ins {
			if in.err != nil {
				return fmt.Errorf("--config %s: %w", in.name, in.err)
			}
		}
		return fmt.Errorf("--config %s: give one file", o.config)
	}
	compiler, err := matchcond.NewAuthorizationCompilerFor(a.kube)
	if err != nil {
		return err
	}
	compiled, errs := validateConfig(a.kube, ins[0].data, compiler, false, nil)
	if len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = "  " + indent(e.Message, "  ")
		}
		return fmt.Errorf("--config %s: kube-apiserver %s would not start with this configuration (see gatehouse authz validate):\n%s", o.config, a.kube.Version(), strings.Join(msgs, "\n"))
	}
	cfg := compiled.Configuration

	opts := authorizer.Options{Compiler: compiler, Authorizers: map[string]authorizer.Authorizer{}, Kube: a.kube}
	var rbacObjects *rbacSet
	for i, ac := range cfg.Authorizers {
		where := fmt.Sprintf("authorizers[%d] (%s %q)", i, ac.Type, ac.Name)
		switch ac.Type {
		case authzconfig.TypeRBAC:
			if len(o.rbac) == 0 {
				return fmt.Errorf("%s: give the RBAC objects with --rbac DIR", where)
			}
			if rbacObjects == nil {
				rbacObjects, err = loadRBAC(o.rbac, a.stdin)
				if err != nil {
					return fmt.Errorf("--rbac %s: %w", strings.Join(o.rbac, ","), err)
				}
			}
			opts.Authorizers[authzconfig.TypeRBAC] = rbacObjects.authorizer
		case authzconfig.TypeNode:
			opts.Authorizers[authzconfig.TypeNode] = nodeAuthorizer()
		case authzconfig.TypeABAC:
			return fmt.Errorf("%s: gatehouse does not evaluate ABAC policies", where)
		case authzconfig.TypeWebhook:
			if o.answers == "" && ac.Webhook != nil && ac.Webhook.ConnectionInfo.Type == authzconfig.ConnectionTypeInClusterConfig {
				return fmt.Errorf("%s: connectionInfo.type InClusterConfig: kube-apiserver cannot call such a webhook (it crashes building it); answer it with --webhook-answers", where)
			}
		}
	}

	if len(o.rbac) > 0 && rbacObjects == nil {
		return fmt.Errorf("--rbac %s: the configuration has no RBAC authorizer", strings.Join(o.rbac, ","))
	}
	if o.answers != "" {
		answers, err := readAnswers(o.answers)
		if err != nil {
			return fmt.Errorf("--webhook-answers: %w", err)
		}
		dir, err := os.MkdirTemp("", "gatehouse-webhooks-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		scripted := cfg.DeepCopy()
		stop, err := scriptedWebhooks(scripted, answers, dir)
		if err != nil {
			return err
		}
		defer stop()
		compiled = &authzconfig.Compiled{Configuration: scripted, MatchConditions: compiled.MatchConditions}
		opts.Backoff = scriptedBackoff()
	}

	chain, err := authorizer.NewFromCompiled(compiled, opts)
	if err != nil {
		if o.answers == "" {
			return fmt.Errorf("--config %s: %w (to answer the webhooks from a file instead, give --webhook-answers)", o.config, err)
		}
		return fmt.Errorf("--config %s: %w", o.config, err)
	}
	ctx, cancel := signal.NotifyContext(ctx, os.Interrupt)
	defer cancel()
	// kube-apiserver 1.38 with the gate ConditionalAuthorization on (and so
	// its AuthorizationConditionsEnforcer) asks the requests admission sees
	// conditionally.
	var trace *authorizer.Trace
	var conditional *explainConditional
	if kubeversions.Has(a.kube, kubeversions.ConditionsEnforcerPlugin) && authorizer.ConditionsAwareRequest(attrs) {
		var d authorizer.ConditionalDecision
		trace, d = authorizer.ExplainConditionally(ctx, chain, attrs)
		if _, ok := d.Unconditional(); !ok {
			conditional = &explainConditional{Decision: d.String(), Possible: []string{}}
			for _, p := range d.PossibleDecisions() {
				conditional.Possible = append(conditional.Possible, p.String())
			}
		}
	} else {
		trace = authorizer.Explain(ctx, chain, attrs)
	}
	if usesNodeGraph(trace.Steps) {
		node, _ := nodeIdentity(attrs.User)
		return fmt.Errorf("the request of node %q reached the Node authorizer: %w", node, errNodeGraph)
	}

	report := explainReport{
		SchemaVersion: schemaVersion,
		Request:       requestOf(attrs),
		Decision:      trace.Decision.String(),
		Allowed:       trace.Decision == authorizer.DecisionAllow,
		Reason:        trace.Reason,
		Error:         errorText(trace.Err),
		Steps:         steps(trace.Steps),
	}
	if rbacObjects != nil {
		report.Notes = rbacObjects.notes
	}
	switch {
	case report.Allowed:
		report.HTTPStatus = http.StatusOK
	case conditional != nil && slices.Contains(conditional.Possible, "Allow"):
		// Through to admission, whose AuthorizationConditionsEnforcer
		// evaluates the conditions on the object.
		report.Decision, report.Conditional = "Conditional", conditional
	case trace.Err != nil:
		report.HTTPStatus = http.StatusInternalServerError
	default:
		report.HTTPStatus = http.StatusForbidden
	}
	if err := a.emit(report, func(p *printer) { report.text(p, trace) }); err != nil {
		return err
	}
	if !report.Allowed {
		return errFindings
	}
	return nil
}

func usesNodeGraph(steps []authorizer.Step) bool {
	for _, s := range steps {
		if errors.Is(s.Err, errNodeGraph) || usesNodeGraph(s.Steps) {
			return true
		}
	}
	return false
}

func requestOf(a *authorizer.Attributes) explainRequest {
	r := explainRequest{
		User: a.User.Name, UID: a.User.UID, Groups: a.User.Groups, Extra: a.User.Extra, Verb: a.Verb,
		ResourceRequest: a.ResourceRequest, Namespace: a.Namespace, APIGroup: a.APIGroup, APIVersion: a.APIVersion,
		Resource: a.Resource, Subresource: a.Subresource, Name: a.Name, Path: a.Path,
	}
	if r.Groups == nil {
		r.Groups = []string{}
	}
	return r
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func steps(in []authorizer.Step) []explainStep {
	out := []explainStep{}
	for _, s := range in {
		e := explainStep{Name: s.Name, Type: s.Type, Decision: s.Decision.String(), Reason: s.Reason, Error: errorText(s.Err)}
		if len(s.Steps) > 0 {
			e.Steps = steps(s.Steps)
		}
		if w := s.Webhook; w != nil {
			h := &explainHook{
				MatchConditions: w.MatchConditions.String(), Condition: w.Condition,
				Cache: w.Cache.String(), Attempts: []explainAttempt{}, FailurePolicy: w.FailurePolicy,
			}
			if w.ConditionIndex >= 0 && (w.MatchConditions == authorizer.MatchExcluded || w.MatchConditions == authorizer.MatchError) {
				i := w.ConditionIndex
				h.ConditionIndex = &i
			}
			for _, at := range w.Attempts {
				h.Attempts = append(h.Attempts, explainAttempt{Result: at.Result, StatusCode: at.StatusCode, Requests: at.Requests, Error: errorText(at.Err)})
			}
			e.Webhook = h
		}
		out = append(out, e)
	}
	return out
}

func (r explainReport) text(p *printer, trace *authorizer.Trace) {
	p.linef("request: %s", describeRequest(r.Request))
	verdict := p.paint(red, r.Decision)
	if r.Allowed {
		verdict = p.paint(green, r.Decision)
	}
	if c := r.Conditional; c != nil {
		p.linef("decision: %s %s (possible: %s): admission's AuthorizationConditionsEnforcer decides, on the object", p.paint(yellow, r.Decision), c.Decision, strings.Join(c.Possible, ", "))
	} else {
		p.linef("decision: %s (HTTP %d)", verdict, r.HTTPStatus)
	}
	if r.Reason != "" {
		p.block("reason: ", r.Reason)
	}
	if r.Error != "" {
		p.block("error: ", r.Error)
	}
	p.linef("trace:")
	// The library's rendering, without its first line (the decision).
	lines := strings.SplitN(trace.String(), "\n", 2)
	if len(lines) == 2 {
		p.linef("%s", lines[1])
	}
	printNotes(p, r.Notes)
}

// printNotes writes the notes of a report, one a line.
func printNotes(p *printer, notes []string) {
	for _, n := range notes {
		p.block(p.paint(yellow, "note: "), n)
	}
}

func describeRequest(r explainRequest) string {
	var b strings.Builder
	b.WriteString(r.User)
	if len(r.Groups) > 0 {
		fmt.Fprintf(&b, " (groups %s)", strings.Join(r.Groups, ", "))
	}
	b.WriteString(" " + r.Verb + " ")
	if !r.ResourceRequest {
		b.WriteString(r.Path)
		return b.String()
	}
	b.WriteString(r.Resource)
	if r.APIGroup != "" {
		b.WriteString("." + r.APIGroup)
	}
	if r.Subresource != "" {
		b.WriteString("/" + r.Subresource)
	}
	if r.Name != "" {
		fmt.Fprintf(&b, " %q", r.Name)
	}
	if r.Namespace != "" {
		b.WriteString(" in namespace " + r.Namespace)
	}
	return b.String()
}
