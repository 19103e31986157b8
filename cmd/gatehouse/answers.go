package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/authorizer/authorizertest"
	"github.com/gatehouse-dev/gatehouse/authzconfig"
	sarv1 "github.com/gatehouse-dev/gatehouse/internal/sarv1"
)

// webhookAnswers is the file of scripted webhook answers of authz explain
// (--webhook-answers), in place of calls to the real webhooks.
type webhookAnswers struct {
	Webhooks []scriptedWebhook `json:"webhooks"`
}

// scriptedWebhook answers for the webhook authorizer of that name.
type scriptedWebhook struct {
	Name string `json:"name"`
	// Answers are tried in order; the first whose when matches answers.
	// None matching: no opinion.
	Answers []scriptedAnswer `json:"answers,omitempty"`
	// Fail, an HTTP status such as 500 or 503, answers every call with that
	// status, so that the webhook's retries and failure policy decide.
	Fail int `json:"fail,omitempty"`
}

// scriptedAnswer is one answer of a scripted webhook.
type scriptedAnswer struct {
	When    *answerWhen `json:"when,omitempty"`
	Allowed bool        `json:"allowed,omitempty"`
	Denied  bool        `json:"denied,omitempty"`
	Reason  string      `json:"reason,omitempty"`
	// Conditions answer a conditional ask (1.38, gate
	// ConditionalAuthorization, a webhook with a conditionsReview) with a
	// ConditionsMap decision; a plain ask gets allowed, denied and reason.
	Conditions *scriptedConditions `json:"conditions,omitempty"`
}

// scriptedConditions are the conditions of a ConditionsMap answer, by
// effect.
type scriptedConditions struct {
	Deny      []sarv1.Condition `json:"deny,omitempty"`
	NoOpinion []sarv1.Condition `json:"noOpinion,omitempty"`
	Allow     []sarv1.Condition `json:"allow,omitempty"`
}

// conditionalAnswer is the body of an answer with a conditional decision,
// which k8s.io/api v0.37's SubjectAccessReview cannot express.
type conditionalAnswer struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Status     struct {
		Allowed             bool                           `json:"allowed"`
		Reason              string                         `json:"reason,omitempty"`
		ConditionalDecision *sarv1.ConditionsAwareDecision `json:"conditionalDecision"`
	} `json:"status"`
}

// answer is the raw body answering a review whose answer has conditions,
// when the review asks for them (spec.authorizationOptions); nil otherwise
// (the fake's own answer from decide).
func (s scriptedWebhook) answer(body []byte) []byte {
	var review struct {
		authorizationv1.SubjectAccessReview
		Spec struct {
			authorizationv1.SubjectAccessReviewSpec
			AuthorizationOptions *struct {
				HandledDecisionTypes []string `json:"handledDecisionTypes"`
			} `json:"authorizationOptions"`
		} `json:"spec"`
	}
	if json.Unmarshal(body, &review) != nil || review.Spec.AuthorizationOptions == nil {
		return nil
	}
	for _, a := range s.Answers {
		if !a.When.matches(review.Spec.SubjectAccessReviewSpec) {
			continue
		}
		if a.Conditions == nil {
			return nil
		}
		out := conditionalAnswer{APIVersion: "authorization.k8s.io/v1", Kind: "SubjectAccessReview"}
		out.Status.Reason = a.Reason
		out.Status.ConditionalDecision = &sarv1.ConditionsAwareDecision{Type: sarv1.ConditionsAwareDecisionTypeConditionsMap,
			ConditionsMap: &sarv1.ConditionsMap{DenyConditions: a.Conditions.Deny, NoOpinionConditions: a.Conditions.NoOpinion, AllowConditions: a.Conditions.Allow}}
		raw, err := json.Marshal(out)
		if err != nil {
			return nil
		}
		return raw
	}
	return nil
}

// answerWhen selects the reviews an answer is for: every field given must
// equal the review's (group: one of the user's groups).
type answerWhen struct {
	User        string `json:"user,omitempty"`
	Group       string `json:"group,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	Resource    string `json:"resource,omitempty"`
	Subresource string `json:"subresource,omitempty"`
	Name        string `json:"name,omitempty"`
	Path        string `json:"path,omitempty"`
}

func (w *answerWhen) matches(spec authorizationv1.SubjectAccessReviewSpec) bool {
	if w == nil {
		return true
	}
	var verb, ns, group, resource, sub, name, path string
	if ra := spec.ResourceAttributes; ra != nil {
		verb, ns, group, resource, sub, name = ra.Verb, ra.Namespace, ra.Group, ra.Resource, ra.Subresource, ra.Name
	}
	if nra := spec.NonResourceAttributes; nra != nil {
		verb, path = nra.Verb, nra.Path
	}
	eq := func(want, got string) bool { return want == "" || want == got }
	return eq(w.User, spec.User) && (w.Group == "" || slices.Contains(spec.Groups, w.Group)) &&
		eq(w.Verb, verb) && eq(w.Namespace, ns) && eq(w.APIGroup, group) && eq(w.Resource, resource) &&
		eq(w.Subresource, sub) && eq(w.Name, name) && eq(w.Path, path)
}

func (s scriptedWebhook) decide(spec authorizationv1.SubjectAccessReviewSpec) authorizationv1.SubjectAccessReviewStatus {
	for _, a := range s.Answers {
		if a.When.matches(spec) {
			return authorizationv1.SubjectAccessReviewStatus{Allowed: a.Allowed, Denied: a.Denied, Reason: a.Reason}
		}
	}
	return authorizationv1.SubjectAccessReviewStatus{}
}

// readAnswers reads a file of scripted answers.
func readAnswers(path string) (*webhookAnswers, error) {
	in := readFile(path)
	if in.err != nil {
		return nil, in.err
	}
	a, err := parseAnswers(in.data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// parseAnswers decodes scripted answers strictly and checks them.
func parseAnswers(data []byte) (*webhookAnswers, error) {
	var a webhookAnswers
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, w := range a.Webhooks {
		switch {
		case w.Name == "":
			return nil, fmt.Errorf("webhooks[%d]: name is required", i)
		case seen[w.Name]:
			return nil, fmt.Errorf("webhooks[%d]: webhook %q is answered twice", i, w.Name)
		case w.Fail != 0 && len(w.Answers) > 0:
			return nil, fmt.Errorf("webhooks[%d]: fail and answers exclude each other", i)
		case w.Fail != 0 && (w.Fail < 400 || w.Fail > 599):
			return nil, fmt.Errorf("webhooks[%d]: fail must be an HTTP error status (400 to 599), not %d", i, w.Fail)
		}
		seen[w.Name] = true
	}
	return &a, nil
}

// scriptedBackoff is the webhooks' backoff with scripted answers: as many
// attempts as kube-apiserver makes, with waits of milliseconds instead of
// seconds.
func scriptedBackoff() *authorizer.Backoff {
	b := authorizer.DefaultBackoff()
	b.Duration = time.Millisecond
	return &b
}

// scriptedWebhooks starts a fake webhook for every webhook of cfg, answering
// as the file says, and points cfg's webhooks at them through kubeconfig
// files in dir. Every webhook of cfg must be answered, and every answered
// webhook must be in cfg. It returns a function that stops the fakes.
func scriptedWebhooks(cfg *authzconfig.Configuration, answers *webhookAnswers, dir string) (func(), error) {
	byName := map[string]scriptedWebhook{}
	for _, w := range answers.Webhooks {
		byName[w.Name] = w
	}
	var servers []*authorizertest.Server
	stop := func() {
		for _, s := range servers {
			s.Close()
		}
	}
	var missing []string
	configured := map[string]bool{}
	for i := range cfg.Authorizers {
		ac := &cfg.Authorizers[i]
		if ac.Type != authzconfig.TypeWebhook || ac.Webhook == nil {
			continue
		}
		configured[ac.Name] = true
		script, ok := byName[ac.Name]
		if !ok {
			missing = append(missing, ac.Name)
			continue
		}
		srv, err := authorizertest.NewServer(authorizertest.Options{Decide: script.decide, Answer: script.answer})
		if err != nil {
			stop()
			return nil, err
		}
		servers = append(servers, srv)
		if script.Fail != 0 {
			srv.InjectAlways(authorizertest.Fault{Status: script.Fail})
		}
		path := filepath.Join(dir, fmt.Sprintf("webhook-%d.kubeconfig", i))
		if err := srv.WriteKubeconfig(path); err != nil {
			stop()
			return nil, err
		}
		ac.Webhook.ConnectionInfo = authzconfig.WebhookConnectionInfo{Type: authzconfig.ConnectionTypeKubeConfigFile, KubeConfigFile: &path}
		if r := ac.Webhook.ConditionsReview; r != nil {
			// The fake's kubeconfig has one context.
			r.KubeConfigContextName = ""
		}
	}
	var unknown []string
	for _, w := range answers.Webhooks {
		if !configured[w.Name] {
			unknown = append(unknown, w.Name)
		}
	}
	switch {
	case len(missing) > 0:
		stop()
		return nil, fmt.Errorf("--webhook-answers has no answers for the webhook(s) %s of the configuration", strings.Join(missing, ", "))
	case len(unknown) > 0:
		stop()
		return nil, fmt.Errorf("--webhook-answers answers for %s, which the configuration does not have", strings.Join(unknown, ", "))
	}
	return stop, nil
}
