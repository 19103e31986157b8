package podsecurity

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// PluginName is the admission plugin's name in kube-apiserver.
const PluginName = admission.PluginPodSecurity

// PodLister lists the pods of a namespace, for the warnings about existing
// pods when a Namespace's enforce level is tightened. It must be safe for
// concurrent use.
type PodLister interface {
	ListPods(ctx context.Context, namespace string) ([]*corev1.Pod, error)
}

// PodListerFunc adapts a function to a PodLister.
type PodListerFunc func(ctx context.Context, namespace string) ([]*corev1.Pod, error)

// ListPods calls f.
func (f PodListerFunc) ListPods(ctx context.Context, namespace string) ([]*corev1.Pod, error) {
	return f(ctx, namespace)
}

// Options are the plugin's collaborators; all are optional.
type Options struct {
	// Kube is the kube-apiserver answered as: "latest", and any version
	// label newer than it, evaluate its minor's checks. The zero Target is
	// the newest release.
	Kube kube.Target
	// Namespaces looks up the namespaces whose labels give the policy; nil
	// answers every namespace as existing without labels (the chain's
	// admission.Options.Namespaces is the same type). An error answers as
	// kube-apiserver's plugin does when its lookup fails.
	Namespaces mutation.NamespaceLookup
	// Pods lists a namespace's pods when an update of the Namespace
	// tightens its enforce level, for kube-apiserver's warnings about the
	// existing pods that would violate it; nil: no such warnings.
	Pods PodLister
}

// Plugin is the PodSecurity admission plugin: an admission.Validator for
// admission.Options.PodSecurity. It is immutable and safe for concurrent
// use.
type Plugin struct {
	config        Configuration
	defaultPolicy api.Policy
	evaluator     policy.Evaluator
	namespaces    mutation.NamespaceLookup
	pods          PodLister
	exemptNS      map[string]bool
	exemptUsers   map[string]bool
	exemptRC      map[string]bool
}

var _ admission.Validator = (*Plugin)(nil)

// New makes the plugin of a configuration (nil: the default one), checked
// as kube-apiserver checks it at start, with its errors ("PodSecurity
// configuration error: ...", "PodSecurity invalid: ...").
func New(cfg *Configuration, o Options) (*Plugin, error) {
	if cfg == nil {
		cfg = DefaultConfiguration()
	}
	p := &Plugin{config: *cfg.DeepCopyObject().(*Configuration), namespaces: o.Namespaces, pods: o.Pods}
	var err error
	if p.defaultPolicy, err = defaultPolicy(cfg.Defaults); err != nil {
		return nil, fmt.Errorf("%s configuration error: %w", PluginName, err)
	}
	if errs := Validate(cfg); len(errs) > 0 {
		return nil, fmt.Errorf("%s invalid: %w", PluginName, errs.ToAggregate())
	}
	v := api.MajorMinorVersion(1, o.Kube.Version().Minor())
	if p.evaluator, err = policy.NewEvaluator(policy.DefaultChecks(), &v); err != nil {
		return nil, err
	}
	p.exemptNS = setOf(cfg.Exemptions.Namespaces)
	p.exemptUsers = setOf(cfg.Exemptions.Usernames)
	p.exemptRC = setOf(cfg.Exemptions.RuntimeClasses)
	return p, nil
}

func setOf(values []string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		if v != "" {
			m[v] = true
		}
	}
	return m
}

// Configuration returns the plugin's configuration.
func (p *Plugin) Configuration() *Configuration {
	return p.config.DeepCopyObject().(*Configuration)
}

// The resources PodSecurity looks at: pods, namespaces, and those with a
// pod template.
var (
	podsResource       = schema.GroupResource{Resource: "pods"}
	namespacesResource = schema.GroupResource{Resource: "namespaces"}
	templateResources  = map[schema.GroupResource]func() runtime.Object{
		{Resource: "replicationcontrollers"}:      func() runtime.Object { return &corev1.ReplicationController{} },
		{Resource: "podtemplates"}:                func() runtime.Object { return &corev1.PodTemplate{} },
		{Group: "apps", Resource: "replicasets"}:  func() runtime.Object { return &appsv1.ReplicaSet{} },
		{Group: "apps", Resource: "deployments"}:  func() runtime.Object { return &appsv1.Deployment{} },
		{Group: "apps", Resource: "statefulsets"}: func() runtime.Object { return &appsv1.StatefulSet{} },
		{Group: "apps", Resource: "daemonsets"}:   func() runtime.Object { return &appsv1.DaemonSet{} },
		{Group: "batch", Resource: "jobs"}:        func() runtime.Object { return &batchv1.Job{} },
		{Group: "batch", Resource: "cronjobs"}:    func() runtime.Object { return &batchv1.CronJob{} },
	}
)

// The pod subresources PodSecurity does not evaluate; any other one (such
// as ephemeralcontainers or resize) carries a Pod and is evaluated.
var ignoredPodSubresources = map[string]bool{
	"exec": true, "attach": true, "binding": true, "eviction": true, "log": true, "portforward": true, "proxy": true, "status": true,
}

// The audit annotations' keys, with the prefix kube-apiserver gives them.
const (
	annotationEnforcePolicy   = api.AuditAnnotationPrefix + api.EnforcedPolicyAnnotationKey
	annotationAuditViolations = api.AuditAnnotationPrefix + api.AuditViolationsAnnotationKey
	annotationExempt          = api.AuditAnnotationPrefix + api.ExemptionReasonAnnotationKey
	annotationError           = api.AuditAnnotationPrefix + "error"
)

// Validate admits a request as kube-apiserver's PodSecurity plugin does:
// pods (CREATE, UPDATE that changes an image or adds a container,
// subresources but the ignored ones) are denied when they violate the
// namespace's enforce policy; pod templates of workloads only warn and
// annotate; Namespaces are denied invalid labels. Warnings and audit
// annotations (keys prefixed pod-security.kubernetes.io/) are returned
// with the denial, an *apierrors.StatusError.
func (p *Plugin) Validate(ctx context.Context, req *admission.Request) (admission.Verdict, error) {
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return admission.Verdict{}, nil
	}
	gr := req.Resource.GroupResource()
	switch {
	case gr == namespacesResource:
		return p.validateNamespace(ctx, req)
	case gr == podsResource:
		return p.validatePod(ctx, req)
	case templateResources[gr] != nil:
		return p.validateTemplate(ctx, req, templateResources[gr]())
	}
	return admission.Verdict{}, nil
}

// exempt is the verdict on an exempt request: its reason annotated.
func exempt(reason string) admission.Verdict {
	return admission.Verdict{AuditAnnotations: map[string]string{annotationExempt: reason}}
}

// statusError is a denial with its error annotation, as kube's plugin
// reports a failure: the status's message, then the cause.
func statusError(status *apierrors.StatusError, cause error) (admission.Verdict, error) {
	detail := status.ErrStatus.Message
	if cause != nil {
		detail += ": " + cause.Error()
	}
	return admission.Verdict{AuditAnnotations: map[string]string{annotationError: detail}}, status
}

func decodeInto(obj *unstructured.Unstructured, into runtime.Object) error {
	if obj == nil {
		return fmt.Errorf("no object")
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into)
}

// namespace looks up a namespace.
func (p *Plugin) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	if p.namespaces == nil {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, nil
	}
	ns, err := p.namespaces.Namespace(ctx, name)
	if err == nil && ns == nil {
		ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	return ns, err
}

// policyOf is the policy of a namespace's labels, with the errors of the
// labels that do not parse.
func (p *Plugin) policyOf(labels map[string]string) (api.Policy, field.ErrorList) {
	return api.PolicyToEvaluate(labels, p.defaultPolicy)
}

func (p *Plugin) exemptNamespace(name string) bool { return name != "" && p.exemptNS[name] }
func (p *Plugin) exemptUser(name string) bool      { return name != "" && p.exemptUsers[name] }
func (p *Plugin) exemptRuntimeClass(rc *string) bool {
	return rc != nil && *rc != "" && p.exemptRC[*rc]
}

func (p *Plugin) validatePod(ctx context.Context, req *admission.Request) (admission.Verdict, error) {
	if ignoredPodSubresources[req.SubResource] {
		return admission.Verdict{}, nil
	}
	if p.exemptNamespace(req.Namespace) {
		return exempt("namespace"), nil
	}
	if p.exemptUser(req.UserInfo.Username) {
		return exempt("user"), nil
	}
	ns, err := p.namespace(ctx, req.Namespace)
	if err != nil {
		return statusError(apierrors.NewInternalError(fmt.Errorf("failed to lookup namespace %q", req.Namespace)), err)
	}
	nsPolicy, nsErrs := p.policyOf(ns.Labels)
	if len(nsErrs) == 0 && nsPolicy.FullyPrivileged() {
		return admission.Verdict{AuditAnnotations: map[string]string{
			annotationEnforcePolicy: api.LevelVersion{Level: api.LevelPrivileged, Version: api.LatestVersion()}.String()}}, nil
	}
	var pod corev1.Pod
	if !isKind(req.Object, "", "Pod") {
		return statusError(apierrors.NewBadRequest("failed to decode pod"), nil)
	}
	if err := decodeInto(req.Object, &pod); err != nil {
		return statusError(apierrors.NewBadRequest("failed to decode object"), err)
	}
	if req.Operation == admissionv1.Update {
		var old corev1.Pod
		if !isKind(req.OldObject, "", "Pod") {
			return statusError(apierrors.NewBadRequest("failed to decode old pod"), nil)
		}
		if err := decodeInto(req.OldObject, &old); err != nil {
			return statusError(apierrors.NewBadRequest("failed to decode old object"), err)
		}
		if !significantPodUpdate(&pod, &old) {
			return admission.Verdict{}, nil
		}
	}
	return p.evaluate(req, nsPolicy, nsErrs, &pod.ObjectMeta, &pod.Spec, true)
}

// isKind tells whether an object is of a kind: a request on pods carries
// Pods, unless a subresource carries another kind.
func isKind(obj *unstructured.Unstructured, group, kind string) bool {
	if obj == nil {
		return false
	}
	gvk := obj.GroupVersionKind()
	return gvk.Kind == kind && gvk.Group == group
}

// significantPodUpdate tells whether an update of a pod is evaluated: one
// that changes a container's image, or adds or removes a container, or
// adds an ephemeral container (kube's rule: other fields of a pod cannot
// change in a way that matters to the checks).
func significantPodUpdate(pod, old *corev1.Pod) bool {
	if len(pod.Spec.Containers) != len(old.Spec.Containers) || len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image != old.Spec.Containers[i].Image {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Image != old.Spec.InitContainers[i].Image {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		found := false
		for _, o := range old.Spec.EphemeralContainers {
			if o.Name == c.Name {
				if o.Image != c.Image {
					return true
				}
				found = true
				break
			}
		}
		if !found {
			return true
		}
	}
	return false
}

func (p *Plugin) validateTemplate(ctx context.Context, req *admission.Request, obj runtime.Object) (admission.Verdict, error) {
	if req.SubResource != "" {
		return admission.Verdict{}, nil
	}
	if p.exemptNamespace(req.Namespace) {
		return exempt("namespace"), nil
	}
	if p.exemptUser(req.UserInfo.Username) {
		return exempt("user"), nil
	}
	ns, err := p.namespace(ctx, req.Namespace)
	if err != nil {
		return admission.Verdict{AuditAnnotations: map[string]string{
			annotationError: fmt.Sprintf("failed to lookup namespace %q: %v", req.Namespace, err)}}, nil
	}
	nsPolicy, nsErrs := p.policyOf(ns.Labels)
	if len(nsErrs) == 0 && nsPolicy.Warn.Level == api.LevelPrivileged && nsPolicy.Audit.Level == api.LevelPrivileged {
		return admission.Verdict{}, nil
	}
	if err := decodeInto(req.Object, obj); err != nil {
		return admission.Verdict{AuditAnnotations: map[string]string{annotationError: fmt.Sprintf("failed to decode object: %v", err)}}, nil
	}
	meta, spec := templateOf(obj)
	if meta == nil && spec == nil {
		return admission.Verdict{}, nil
	}
	return p.evaluate(req, nsPolicy, nsErrs, meta, spec, false)
}

// templateOf is the pod template of a workload, or nils when it has none.
func templateOf(obj runtime.Object) (*metav1.ObjectMeta, *corev1.PodSpec) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		t = &o.Template
	case *corev1.ReplicationController:
		t = o.Spec.Template
	case *appsv1.ReplicaSet:
		t = &o.Spec.Template
	case *appsv1.Deployment:
		t = &o.Spec.Template
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
	case *batchv1.Job:
		t = &o.Spec.Template
	case *batchv1.CronJob:
		t = &o.Spec.JobTemplate.Spec.Template
	}
	if t == nil {
		return nil, nil
	}
	return &t.ObjectMeta, &t.Spec
}

// evaluate checks a pod or a template against the namespace's policy: the
// enforce level (pods only) denies, the audit level annotates, the warn
// level warns (unless denied).
func (p *Plugin) evaluate(req *admission.Request, nsPolicy api.Policy, nsErrs field.ErrorList, meta *metav1.ObjectMeta, spec *corev1.PodSpec, enforce bool) (admission.Verdict, error) {
	if p.exemptRuntimeClass(spec.RuntimeClassName) {
		return exempt("runtimeClass"), nil
	}
	v := admission.Verdict{AuditAnnotations: map[string]string{}}
	if err := nsErrs.ToAggregate(); err != nil {
		v.AuditAnnotations[annotationError] = fmt.Sprintf("Failed to parse policy: %v", err)
	}
	results := map[api.LevelVersion]policy.AggregateCheckResult{}
	result := func(lv api.LevelVersion) policy.AggregateCheckResult {
		r, ok := results[lv]
		if !ok {
			r = policy.AggregateCheckResults(p.evaluator.EvaluatePod(lv, meta, spec))
			results[lv] = r
		}
		return r
	}
	var denial error
	if enforce {
		v.AuditAnnotations[annotationEnforcePolicy] = nsPolicy.Enforce.String()
		if r := result(nsPolicy.Enforce); !r.Allowed {
			denial = apierrors.NewForbidden(req.Resource.GroupResource(), req.Name,
				fmt.Errorf("violates PodSecurity %q: %s", nsPolicy.Enforce.String(), r.ForbiddenDetail()))
		}
	}
	if r := result(nsPolicy.Audit); !r.Allowed {
		v.AuditAnnotations[annotationAuditViolations] = fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Audit.String(), r.ForbiddenDetail())
	}
	if denial == nil {
		if r := result(nsPolicy.Warn); !r.Allowed {
			v.Warnings = append(v.Warnings, fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Warn.String(), r.ForbiddenDetail()))
		}
	}
	return v, denial
}

func (p *Plugin) validateNamespace(ctx context.Context, req *admission.Request) (admission.Verdict, error) {
	if req.SubResource != "" {
		return admission.Verdict{}, nil
	}
	var ns corev1.Namespace
	if !isKind(req.Object, "", "Namespace") {
		return statusError(apierrors.NewBadRequest("failed to decode namespace"), nil)
	}
	if err := decodeInto(req.Object, &ns); err != nil {
		return statusError(apierrors.NewBadRequest("failed to decode object"), err)
	}
	newPolicy, newErrs := p.policyOf(ns.Labels)
	invalid := func() error { return apierrors.NewInvalid(req.Kind.GroupKind(), req.Name, newErrs) }
	exemptWarning := func() admission.Verdict {
		if w := p.exemptNamespaceWarning(ns.Name, newPolicy, ns.Labels); w != "" {
			return admission.Verdict{Warnings: []string{w}}
		}
		return admission.Verdict{}
	}
	if req.Operation == admissionv1.Create {
		if len(newErrs) > 0 {
			return admission.Verdict{}, invalid()
		}
		if p.exemptNamespace(req.Namespace) {
			return exemptWarning(), nil
		}
		return admission.Verdict{}, nil
	}
	var old corev1.Namespace
	if !isKind(req.OldObject, "", "Namespace") {
		return statusError(apierrors.NewBadRequest("failed to decode  old namespace"), nil)
	}
	if err := decodeInto(req.OldObject, &old); err != nil {
		return statusError(apierrors.NewBadRequest("failed to decode  old object"), err)
	}
	oldPolicy, oldErrs := p.policyOf(old.Labels)
	// Invalid labels are denied when they changed.
	if len(newErrs) > 0 && (len(oldErrs) == 0 || !reflect.DeepEqual(newErrs, oldErrs)) {
		return admission.Verdict{}, invalid()
	}
	switch {
	case newPolicy.Enforce == oldPolicy.Enforce, newPolicy.Enforce.Level == api.LevelPrivileged:
		return admission.Verdict{}, nil
	case newPolicy.Enforce.Version == oldPolicy.Enforce.Version && api.CompareLevels(newPolicy.Enforce.Level, oldPolicy.Enforce.Level) < 1:
		// Relaxed at the same version.
		return admission.Verdict{}, nil
	case p.exemptNamespace(req.Namespace):
		return exemptWarning(), nil
	}
	if p.pods == nil {
		return admission.Verdict{}, nil
	}
	return admission.Verdict{Warnings: p.existingPodsWarnings(ctx, ns.Name, newPolicy.Enforce)}, nil
}

// exemptNamespaceWarning is kube's warning on an exempt namespace labelled
// with a policy that is not the default one: the modes set by labels that
// are not privileged.
func (p *Plugin) exemptNamespaceWarning(name string, pol api.Policy, labels map[string]string) string {
	if pol.FullyPrivileged() || pol.Equivalent(&p.defaultPolicy) {
		return ""
	}
	var modes []string
	for _, m := range []struct {
		name                string
		lv                  api.LevelVersion
		levelKey, versionKy string
	}{
		{"enforce", pol.Enforce, api.EnforceLevelLabel, api.EnforceVersionLabel},
		{"audit", pol.Audit, api.AuditLevelLabel, api.AuditVersionLabel},
		{"warn", pol.Warn, api.WarnLevelLabel, api.WarnVersionLabel},
	} {
		_, hasLevel := labels[m.levelKey]
		_, hasVersion := labels[m.versionKy]
		if m.lv.Level != api.LevelPrivileged && (hasLevel || hasVersion) {
			modes = append(modes, m.name+"="+m.lv.String())
		}
	}
	return fmt.Sprintf("namespace %q is exempt from Pod Security, and the policy (%s) will be ignored", name, strings.Join(modes, ", "))
}

// The bounds of the existing pods' check: kube-apiserver's.
const (
	maxPodsToCheck  = 3000
	podCheckTimeout = time.Second
)

// existingPodsWarnings are kube's warnings about the existing pods of a
// namespace that violate its new enforce level: one per distinct
// violation, naming the first pod (by name) and how many others.
func (p *Plugin) existingPodsWarnings(ctx context.Context, namespace string, enforce api.LevelVersion) []string {
	timeout := podCheckTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if half := time.Until(deadline) / 2; timeout > half {
			timeout = half
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	pods, err := p.pods.ListPods(ctx, namespace)
	if err != nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods = p.prioritize(pods)
	total := len(pods)
	if len(pods) > maxPodsToCheck {
		pods = pods[:maxPodsToCheck]
	}
	type count struct {
		first string
		n     int
	}
	counts := map[string]*count{}
	var order []string
	checked := len(pods)
	for i, pod := range pods {
		r := policy.AggregateCheckResults(p.evaluator.EvaluatePod(enforce, &pod.ObjectMeta, &pod.Spec))
		if !r.Allowed {
			w := r.ForbiddenReason()
			c := counts[w]
			if c == nil {
				c = &count{first: pod.Name}
				counts[w] = c
				order = append(order, w)
			} else if pod.Name < c.first {
				c.first = pod.Name
			}
			c.n++
		}
		if ctx.Err() != nil {
			checked = i + 1
			break
		}
	}
	var warnings []string
	if checked < total {
		warnings = append(warnings, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", checked, total))
	}
	if len(order) > 0 {
		warnings = append(warnings, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	podWarnings := make([]string, len(order))
	for i, w := range order {
		c := counts[w]
		switch c.n {
		case 1:
			podWarnings[i] = fmt.Sprintf("%s: %s", c.first, w)
		case 2:
			podWarnings[i] = fmt.Sprintf("%s (and 1 other pod): %s", c.first, w)
		default:
			podWarnings[i] = fmt.Sprintf("%s (and %d other pods): %s", c.first, c.n-1, w)
		}
	}
	sort.Strings(podWarnings)
	return append(warnings, podWarnings...)
}

// prioritize drops the pods of exempt runtime classes and puts one pod per
// controller first, the other replicas after, as kube does. It does not
// modify its argument.
func (p *Plugin) prioritize(pods []*corev1.Pod) []*corev1.Pod {
	var first, replicas []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, pod := range pods {
		if p.exemptRuntimeClass(pod.Spec.RuntimeClassName) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref == nil:
			first = append(first, pod)
		case seen[ref.UID]:
			replicas = append(replicas, pod)
		default:
			seen[ref.UID] = true
			first = append(first, pod)
		}
	}
	return append(first, replicas...)
}
