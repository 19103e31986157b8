package podsecurity

import (
	"context"

	"errors"
	"fmt"
	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	intstrutil "k8s.io/apimachinery/pkg/util/intstr"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	psadmission "k8s.io/pod-security-admission/admission"
	psaload "k8s.io/pod-security-admission/admission/api/load"
	psaapi "k8s.io/pod-security-admission/api"
	psametrics "k8s.io/pod-security-admission/metrics"
	"k8s.io/pod-security-admission/policy"

	gadmission "github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/contrib/podsecurity"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

// outcome is what a request ends with, as kube-apiserver's client and
// audit log see it.
type outcome struct {
	Status      *metav1.Status
	Warnings    []string
	Annotations map[string]string
}

// world is one configuration, one namespace and its pods.
type world struct {
	configYAML string
	namespace  *corev1.Namespace
	pods       func() []*corev1.Pod
}

// kubeOutcome runs the request through pod-security-admission's Admission
// as kube-apiserver's PodSecurity plugin does (its handled operations and
// resources, its warnings, audit annotations and status).
func kubePlugin(t *testing.T, w world, target kube.Target) *psadmission.Admission {
	cfg, err := psaload.LoadFromData([]byte(w.configYAML))
	if err != nil {
		t.Fatalf("kube's loader: %v", err)
	}
	var emulation *psaapi.Version
	if minor := target.Version().Minor(); minor != 37 {
		v := psaapi.MajorMinorVersion(1, minor)
		emulation = &v
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), emulation)
	if err != nil {
		t.Fatal(err)
	}
	a := &psadmission.Admission{Configuration: cfg, Evaluator: evaluator, Metrics: nopRecorder{},
		PodSpecExtractor: psadmission.DefaultPodSpecExtractor{},
		NamespaceGetter:  namespaceGetter{w.namespace}, PodLister: podLister{w.pods}}
	if err := a.CompleteConfiguration(); err != nil {
		t.Fatal(err)
	}
	if err := a.ValidateConfiguration(); err != nil {
		t.Fatal(err)
	}
	return a
}

func kubeOutcome(a *psadmission.Admission, req *gadmission.Request, obj, old runtime.Object) outcome {
	var out outcome
	// kube-apiserver's plugin handles CREATE and UPDATE, of pods,
	// namespaces and the resources with a pod template.
	gr := req.Resource.GroupResource()
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return out
	}
	if gr != (schema.GroupResource{Resource: "pods"}) && gr != (schema.GroupResource{Resource: "namespaces"}) && !(psadmission.DefaultPodSpecExtractor{}).HasPodSpec(gr) {
		return out
	}
	// klog's errors of the lookups that fail on purpose are not wanted.
	ctx := klog.NewContext(context.Background(), logr.Discard())
	resp := a.Validate(ctx, &psaapi.AttributesRecord{Name: req.Name, Namespace: req.Namespace, Kind: req.Kind, Resource: req.Resource,
		Subresource: req.SubResource, Operation: req.Operation, Object: obj, OldObject: old, Username: req.UserInfo.Username})
	out.Warnings = resp.Warnings
	for k, v := range resp.AuditAnnotations {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[psaapi.AuditAnnotationPrefix+k] = v
	}
	if !resp.Allowed {
		attrs := kadmission.NewAttributesRecord(obj, old, req.Kind, req.Namespace, req.Name, req.Resource, req.SubResource,
			kadmission.Operation(req.Operation), nil, false, &user.DefaultInfo{Name: req.UserInfo.Username})
		retval := kadmission.NewForbidden(attrs, errors.New("Not allowed by PodSecurity")).(*apierrors.StatusError)
		if r := resp.Result; r != nil {
			if r.Message != "" {
				retval.ErrStatus.Message = r.Message
			}
			if r.Reason != "" {
				retval.ErrStatus.Reason = r.Reason
			}
			if r.Details != nil {
				retval.ErrStatus.Details = r.Details
			}
			if r.Code != 0 {
				retval.ErrStatus.Code = r.Code
			}
		}
		out.Status = &retval.ErrStatus
	}
	return out
}

type nopRecorder struct{}

func (nopRecorder) RecordEvaluation(psametrics.Decision, psaapi.LevelVersion, psametrics.Mode, psaapi.Attributes) {
}
func (nopRecorder) RecordExemption(psaapi.Attributes)   {}
func (nopRecorder) RecordError(bool, psaapi.Attributes) {}

type namespaceGetter struct{ ns *corev1.Namespace }

func (g namespaceGetter) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if g.ns == nil || g.ns.Name != name {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return g.ns.DeepCopy(), nil
}

func (g namespaceGetter) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return g.GetNamespace(ctx, name)
}

type podLister struct{ pods func() []*corev1.Pod }

func (l podLister) ListPods(context.Context, string) ([]*corev1.Pod, error) { return l.pods(), nil }

// gatehouseOutcome runs the request through gatehouse's chain with the
// plugin.
func gatehouseChain(t *testing.T, w world, target kube.Target) *gadmission.Chain {
	cfg, err := podsecurity.Decode([]byte(w.configYAML))
	if err != nil {
		t.Fatalf("gatehouse's decoder: %v", err)
	}
	lookup := namespaceGetter{w.namespace}
	plugin, err := podsecurity.New(cfg, podsecurity.Options{Kube: target, Namespaces: mutation.NamespaceLookup(lookup), Pods: podLister{w.pods}})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := gadmission.New(gadmission.Config{}, gadmission.Options{Kube: target, Namespaces: lookup, PodSecurity: plugin})
	if err != nil {
		t.Fatal(err)
	}
	return chain
}

func gatehouseOutcome(t *testing.T, chain *gadmission.Chain, req *gadmission.Request) outcome {
	res, err := chain.Admit(context.Background(), req)
	out := outcome{Warnings: res.Warnings, Annotations: res.AuditAnnotations}
	if err != nil {
		var status *apierrors.StatusError
		if !errors.As(err, &status) {
			t.Fatalf("a denial that is not a status: %v", err)
		}
		out.Status = &status.ErrStatus
	}
	return out
}

// gen makes random cases.
type gen struct{ r *rand.Rand }

func (g gen) pick(options ...string) string { return options[g.r.IntN(len(options))] }
func (g gen) chance(n int) bool             { return g.r.IntN(n) == 0 }

func (g gen) boolPtr() *bool {
	switch g.r.IntN(3) {
	case 0:
		return nil
	case 1:
		return ptr(true)
	}
	return ptr(false)
}

func (g gen) int64Ptr() *int64 {
	switch g.r.IntN(4) {
	case 0, 1:
		return nil
	case 2:
		return ptr(int64(0))
	}
	return ptr(int64(1000))
}

func (g gen) seLinux() *corev1.SELinuxOptions {
	if g.chance(2) {
		return nil
	}
	return &corev1.SELinuxOptions{Type: g.pick("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t", "spc_t"),
		User: g.pick("", "", "system_u"), Role: g.pick("", "", "object_r"), Level: g.pick("", "s0:c1")}
}

func (g gen) seccomp() *corev1.SeccompProfile {
	switch g.r.IntN(5) {
	case 0, 1:
		return nil
	case 2:
		return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	case 3:
		return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr("p.json")}
	}
	return &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}
}

func (g gen) appArmor() *corev1.AppArmorProfile {
	switch g.r.IntN(5) {
	case 0, 1:
		return nil
	case 2:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeRuntimeDefault}
	case 3:
		return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeLocalhost, LocalhostProfile: ptr("p")}
	}
	return &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined}
}

func (g gen) windows() *corev1.WindowsSecurityContextOptions {
	if !g.chance(6) {
		return nil
	}
	return &corev1.WindowsSecurityContextOptions{HostProcess: g.boolPtr()}
}

func (g gen) caps(list ...string) []corev1.Capability {
	var out []corev1.Capability
	for _, c := range list {
		if g.chance(3) {
			out = append(out, corev1.Capability(c))
		}
	}
	return out
}

func (g gen) probe() *corev1.Probe {
	switch g.r.IntN(4) {
	case 0:
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Host: g.pick("", "example.com"), Port: intstr(80)}}}
	case 1:
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Host: g.pick("", "127.0.0.1"), Port: intstr(80)}}}
	}
	return nil
}

func (g gen) container(name string) corev1.Container {
	c := corev1.Container{Name: name, Image: g.pick("nginx", "busybox")}
	if g.chance(3) {
		c.Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: int32(g.r.IntN(2) * 8080)}}
	}
	c.LivenessProbe = g.probe()
	c.ReadinessProbe = g.probe()
	if g.chance(5) {
		c.Lifecycle = &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{HTTPGet: &corev1.HTTPGetAction{Host: g.pick("", "h"), Port: intstr(1)}}}
	}
	if g.chance(4) {
		return c
	}
	sc := &corev1.SecurityContext{Privileged: g.boolPtr(), AllowPrivilegeEscalation: g.boolPtr(), RunAsNonRoot: g.boolPtr(), RunAsUser: g.int64Ptr(),
		SELinuxOptions: g.seLinux(), SeccompProfile: g.seccomp(), AppArmorProfile: g.appArmor(), WindowsOptions: g.windows()}
	if g.chance(2) {
		sc.Capabilities = &corev1.Capabilities{Add: g.caps("NET_BIND_SERVICE", "NET_RAW", "SYS_ADMIN", "CHOWN", "ALL"), Drop: g.caps("ALL", "NET_RAW")}
	}
	if g.chance(4) {
		sc.ProcMount = ptr(corev1.ProcMountType(g.pick("Default", "Unmasked", "")))
	}
	c.SecurityContext = sc
	return c
}

func (g gen) volume(i int) corev1.Volume {
	v := corev1.Volume{Name: fmt.Sprintf("v%d", i)}
	switch g.r.IntN(12) {
	case 0:
		v.HostPath = &corev1.HostPathVolumeSource{Path: "/var"}
	case 1:
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	case 2:
		v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "c"}}
	case 3:
		v.Secret = &corev1.SecretVolumeSource{SecretName: "s"}
	case 4:
		v.NFS = &corev1.NFSVolumeSource{Server: "s", Path: "/"}
	case 5:
		v.CSI = &corev1.CSIVolumeSource{Driver: "d"}
	case 6:
		v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}
	case 7:
		v.Projected = &corev1.ProjectedVolumeSource{}
	case 8:
		v.DownwardAPI = &corev1.DownwardAPIVolumeSource{}
	case 9:
		v.Ephemeral = &corev1.EphemeralVolumeSource{}
	case 10:
		v.GitRepo = &corev1.GitRepoVolumeSource{Repository: "r"}
	case 11:
		v.Image = &corev1.ImageVolumeSource{Reference: "i"}
	}
	return v
}

func (g gen) podSpec() (metav1.ObjectMeta, corev1.PodSpec) {
	var meta metav1.ObjectMeta
	spec := corev1.PodSpec{HostNetwork: g.chance(8), HostPID: g.chance(8), HostIPC: g.chance(8)}
	for i := 0; i < 1+g.r.IntN(2); i++ {
		spec.Containers = append(spec.Containers, g.container(fmt.Sprintf("c%d", i)))
	}
	if g.chance(3) {
		spec.InitContainers = []corev1.Container{g.container("init")}
	}
	if g.chance(5) {
		spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(g.container("debug"))}}
	}
	for i := 0; i < g.r.IntN(3); i++ {
		spec.Volumes = append(spec.Volumes, g.volume(i))
	}
	if !g.chance(3) {
		psc := &corev1.PodSecurityContext{RunAsNonRoot: g.boolPtr(), RunAsUser: g.int64Ptr(), SELinuxOptions: g.seLinux(),
			SeccompProfile: g.seccomp(), AppArmorProfile: g.appArmor(), WindowsOptions: g.windows()}
		for _, s := range []string{"kernel.shm_rmid_forced", "net.ipv4.tcp_notsent_lowat", "net.ipv4.ip_local_port_range", "kernel.msgmax", "net.ipv4.tcp_keepalive_time"} {
			if g.chance(5) {
				psc.Sysctls = append(psc.Sysctls, corev1.Sysctl{Name: s, Value: "1"})
			}
		}
		spec.SecurityContext = psc
	}
	switch g.r.IntN(6) {
	case 0:
		spec.RuntimeClassName = ptr("kata")
	case 1:
		spec.RuntimeClassName = ptr("runc")
	}
	if g.chance(4) {
		meta.Annotations = map[string]string{
			"container.apparmor.security.beta.kubernetes.io/c0": g.pick("runtime/default", "unconfined", "localhost/p"),
		}
		if g.chance(2) {
			meta.Annotations["seccomp.security.alpha.kubernetes.io/pod"] = g.pick("runtime/default", "unconfined")
		}
	}
	if g.chance(8) {
		spec.OS = &corev1.PodOS{Name: corev1.OSName(g.pick("linux", "windows"))}
	}
	return meta, spec
}

func (g gen) labels() map[string]string {
	l := map[string]string{}
	for _, mode := range []string{"enforce", "audit", "warn"} {
		if !g.chance(2) {
			l["pod-security.kubernetes.io/"+mode] = g.pick("privileged", "baseline", "restricted", "restricted", "baseline", "strict", "")
		}
		if g.chance(3) {
			l["pod-security.kubernetes.io/"+mode+"-version"] = g.pick("latest", "v1.0", "v1.22", "v1.25", "v1.35", "v1.36", "v1.37", "v1.40", "1.2", "v2.0", "vx")
		}
	}
	if g.chance(3) {
		l["team"] = "a"
	}
	return l
}

func (g gen) configYAML() string {
	s := "apiVersion: pod-security.admission.config.k8s.io/" + g.pick("v1", "v1", "v1beta1") + "\nkind: PodSecurityConfiguration\ndefaults:\n"
	for _, mode := range []string{"enforce", "audit", "warn"} {
		if g.chance(2) {
			s += fmt.Sprintf("  %s: %s\n", mode, g.pick("privileged", "baseline", "restricted"))
		}
		if g.chance(3) {
			s += fmt.Sprintf("  %s-version: %s\n", mode, g.pick("latest", "v1.23", "v1.36", "v1.39"))
		}
	}
	s += "exemptions:\n"
	if g.chance(2) {
		s += "  usernames: [admin]\n"
	}
	if g.chance(2) {
		s += "  namespaces: [exempt]\n"
	}
	if g.chance(2) {
		s += "  runtimeClasses: [kata]\n"
	}
	return s
}

// typed sets an object's kind and returns its unstructured form.
func unstructuredOf(t *testing.T, obj runtime.Object, gvk schema.GroupVersionKind) *unstructured.Unstructured {
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

type testCase struct {
	name     string
	req      *gadmission.Request
	obj, old runtime.Object
}

func (g gen) podCases(t *testing.T, ns string) []testCase {
	meta, spec := g.podSpec()
	meta.Name, meta.Namespace = "p", ns
	pod := &corev1.Pod{ObjectMeta: meta, Spec: spec}
	podGVK := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	mk := func(name string, op admissionv1.Operation, sub string, obj, old *corev1.Pod) testCase {
		r := &gadmission.Request{Operation: op, Kind: podGVK, Resource: pods, SubResource: sub, Name: "p", Namespace: ns,
			UserInfo: authenticationv1.UserInfo{Username: g.pick("user", "user", "admin", "")}}
		tc := testCase{name: name, req: r}
		if obj != nil {
			r.Object = unstructuredOf(t, obj, podGVK)
			tc.obj = obj
		}
		if old != nil {
			r.OldObject = unstructuredOf(t, old, podGVK)
			tc.old = old
		}
		return tc
	}
	relabelled := pod.DeepCopy()
	relabelled.Labels = map[string]string{"x": "y"}
	newImage := pod.DeepCopy()
	newImage.Spec.Containers[0].Image = "nginx:2"
	moreEphemeral := pod.DeepCopy()
	_, other := g.podSpec()
	moreEphemeral.Spec.EphemeralContainers = append(moreEphemeral.Spec.EphemeralContainers,
		corev1.EphemeralContainer{EphemeralContainerCommon: corev1.EphemeralContainerCommon(other.Containers[0])})
	moreEphemeral.Spec.EphemeralContainers[len(moreEphemeral.Spec.EphemeralContainers)-1].Name = "added"
	_, otherSpec := g.podSpec()
	changed := pod.DeepCopy()
	changed.Spec = otherSpec
	return []testCase{
		mk("pod create", admissionv1.Create, "", pod, nil),
		mk("pod update, labels only", admissionv1.Update, "", relabelled, pod),
		mk("pod update, an image", admissionv1.Update, "", newImage, pod),
		mk("pod update, another spec", admissionv1.Update, "", changed, pod),
		mk("pod ephemeralcontainers", admissionv1.Update, "ephemeralcontainers", moreEphemeral, pod),
		mk("pod status", admissionv1.Update, "status", changed, pod),
		mk("pod resize", admissionv1.Update, "resize", newImage, pod),
		mk("pod delete", admissionv1.Delete, "", nil, pod),
	}
}

func (g gen) templateCases(t *testing.T, ns string) []testCase {
	meta, spec := g.podSpec()
	tmpl := corev1.PodTemplateSpec{ObjectMeta: meta, Spec: spec}
	om := metav1.ObjectMeta{Name: "w", Namespace: ns}
	type workload struct {
		obj runtime.Object
		gvk schema.GroupVersionKind
		res string
	}
	apps := func(kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}
	}
	batch := func(kind string) schema.GroupVersionKind {
		return schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: kind}
	}
	var rcTemplate *corev1.PodTemplateSpec
	if !g.chance(4) {
		rcTemplate = &tmpl
	}
	workloads := []workload{
		{&appsv1.Deployment{ObjectMeta: om, Spec: appsv1.DeploymentSpec{Template: tmpl}}, apps("Deployment"), "deployments"},
		{&appsv1.ReplicaSet{ObjectMeta: om, Spec: appsv1.ReplicaSetSpec{Template: tmpl}}, apps("ReplicaSet"), "replicasets"},
		{&appsv1.StatefulSet{ObjectMeta: om, Spec: appsv1.StatefulSetSpec{Template: tmpl}}, apps("StatefulSet"), "statefulsets"},
		{&appsv1.DaemonSet{ObjectMeta: om, Spec: appsv1.DaemonSetSpec{Template: tmpl}}, apps("DaemonSet"), "daemonsets"},
		{&batchv1.Job{ObjectMeta: om, Spec: batchv1.JobSpec{Template: tmpl}}, batch("Job"), "jobs"},
		{&batchv1.CronJob{ObjectMeta: om, Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tmpl}}}}, batch("CronJob"), "cronjobs"},
		{&corev1.ReplicationController{ObjectMeta: om, Spec: corev1.ReplicationControllerSpec{Template: rcTemplate}}, schema.GroupVersionKind{Version: "v1", Kind: "ReplicationController"}, "replicationcontrollers"},
		{&corev1.PodTemplate{ObjectMeta: om, Template: tmpl}, schema.GroupVersionKind{Version: "v1", Kind: "PodTemplate"}, "podtemplates"},
	}
	w := workloads[g.r.IntN(len(workloads))]
	gvr := w.gvk.GroupVersion().WithResource(w.res)
	op := admissionv1.Create
	sub := ""
	var old runtime.Object
	var oldU *unstructured.Unstructured
	switch g.r.IntN(4) {
	case 0:
		op = admissionv1.Update
		old = w.obj.DeepCopyObject()
		oldU = unstructuredOf(t, old, w.gvk)
	case 1:
		op, sub = admissionv1.Update, g.pick("scale", "status")
		old = w.obj.DeepCopyObject()
		oldU = unstructuredOf(t, old, w.gvk)
	}
	r := &gadmission.Request{Operation: op, Kind: w.gvk, Resource: gvr, SubResource: sub, Name: "w", Namespace: ns,
		UserInfo: authenticationv1.UserInfo{Username: g.pick("user", "admin")}, Object: unstructuredOf(t, w.obj, w.gvk), OldObject: oldU}
	return []testCase{{name: "workload " + w.res + " " + string(op) + " " + sub, req: r, obj: w.obj, old: old}}
}

func (g gen) namespaceCases(t *testing.T, ns string) []testCase {
	gvk := schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	obj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: g.labels()}}
	old := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: g.labels()}}
	if g.chance(4) {
		old.Labels = obj.Labels
	}
	create := &gadmission.Request{Operation: admissionv1.Create, Kind: gvk, Resource: gvr, Name: ns, Namespace: ns, Object: unstructuredOf(t, obj, gvk)}
	update := &gadmission.Request{Operation: admissionv1.Update, Kind: gvk, Resource: gvr, Name: ns, Namespace: ns,
		Object: unstructuredOf(t, obj, gvk), OldObject: unstructuredOf(t, old, gvk)}
	return []testCase{{name: "namespace create", req: create, obj: obj}, {name: "namespace update", req: update, obj: obj, old: old}}
}

// existingPods are a namespace's pods, some of one controller.
func (g gen) existingPods() []*corev1.Pod {
	var pods []*corev1.Pod
	for i := 0; i < g.r.IntN(6); i++ {
		meta, spec := g.podSpec()
		meta.Name = fmt.Sprintf("pod-%d", g.r.IntN(100))
		if g.chance(2) {
			meta.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs",
				UID: types.UID(g.pick("u1", "u2")), Controller: ptr(true)}}
		}
		pods = append(pods, &corev1.Pod{ObjectMeta: meta, Spec: spec})
	}
	return pods
}

// TestPodSecurityMatchesKubeAPIServer compares gatehouse's PodSecurity
// plugin with kube's over generated cases.
func TestPodSecurityMatchesKubeAPIServer(t *testing.T) {
	const worlds = 1500
	g := gen{rand.New(rand.NewPCG(28, 3))}
	targets := []kube.Target{}
	for _, v := range []string{"1.35", "1.36", "1.37"} {
		target, err := kube.ParseTarget(v)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, target)
	}
	cases, denied, warned, differences := 0, 0, 0, 0
	// Per kind of case: how many, denied, with warnings, with annotations.
	type tally struct{ n, denied, warned, annotated int }
	byName := map[string]*tally{}
	for i := 0; i < worlds; i++ {
		nsName := g.pick("ns", "ns", "ns", "exempt")
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsName, Labels: g.labels()}}
		if g.chance(10) {
			ns = nil // a namespace that cannot be found
		}
		existing := g.existingPods()
		w := world{configYAML: g.configYAML(), namespace: ns, pods: func() []*corev1.Pod {
			out := make([]*corev1.Pod, len(existing))
			for i, p := range existing {
				out[i] = p.DeepCopy()
			}
			return out
		}}
		target := targets[i%len(targets)]
		var tcs []testCase
		tcs = append(tcs, g.podCases(t, nsName)...)
		tcs = append(tcs, g.templateCases(t, nsName)...)
		tcs = append(tcs, g.namespaceCases(t, nsName)...)
		kubeAdmission, chain := kubePlugin(t, w, target), gatehouseChain(t, w, target)
		for _, tc := range tcs {
			cases++
			want := kubeOutcome(kubeAdmission, tc.req, tc.obj, tc.old)
			got := gatehouseOutcome(t, chain, tc.req)
			kind := tc.name
			if strings.HasPrefix(kind, "workload ") {
				kind = "workload"
			}
			tl := byName[kind]
			if tl == nil {
				tl = &tally{}
				byName[kind] = tl
			}
			tl.n++
			if want.Status != nil {
				denied++
				tl.denied++
			}
			if len(want.Warnings) > 0 {
				warned++
				tl.warned++
			}
			if len(want.Annotations) > 0 {
				tl.annotated++
			}
			if !reflect.DeepEqual(normalize(want), normalize(got)) {
				differences++
				if differences <= 10 {
					t.Errorf("world %d (kube %s), %s:\nconfig:\n%s\nnamespace: %+v\nkube-apiserver: %s\ngatehouse:      %s", i, target, tc.name, w.configYAML, ns, show(want), show(got))
				}
			}
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tl := byName[n]
		t.Logf("%-28s %5d cases, %5d denied, %5d with warnings, %5d with audit annotations", n, tl.n, tl.denied, tl.warned, tl.annotated)
	}
	t.Logf("%d cases in %d worlds (%d denied, %d with warnings): %d differences", cases, worlds, denied, warned, differences)
	if differences > 0 {
		t.Errorf("%d differences", differences)
	}
}

func normalize(o outcome) outcome {
	if len(o.Warnings) == 0 {
		o.Warnings = nil
	}
	if len(o.Annotations) == 0 {
		o.Annotations = nil
	}
	return o
}

func show(o outcome) string {
	s := ""
	if o.Status != nil {
		s += fmt.Sprintf("denied %d %s %q details=%+v; ", o.Status.Code, o.Status.Reason, o.Status.Message, o.Status.Details)
	}
	return s + fmt.Sprintf("warnings=%q annotations=%q", o.Warnings, o.Annotations)
}

func ptr[T any](v T) *T { return &v }

func intstr(port int) intstrutil.IntOrString { return intstrutil.FromInt32(int32(port)) }
