package podsecurity

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/kube"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

func namespacesOf(labels map[string]map[string]string) mutation.NamespaceLookup {
	return mutation.NamespaceLookupFunc(func(_ context.Context, name string) (*corev1.Namespace, error) {
		if name == "broken" {
			return nil, errors.New("boom")
		}
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels[name]}}, nil
	})
}

func podObject(name, ns string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

func container(name, image string, sc map[string]any) map[string]any {
	c := map[string]any{"name": name, "image": image}
	if sc != nil {
		c["securityContext"] = sc
	}
	return c
}

var (
	privilegedSpec = map[string]any{"containers": []any{container("c", "nginx", map[string]any{"privileged": true})}}
	plainSpec      = map[string]any{"containers": []any{container("c", "nginx", nil)}}
	restrictedSpec = map[string]any{
		"securityContext": map[string]any{"runAsNonRoot": true, "seccompProfile": map[string]any{"type": "RuntimeDefault"}},
		"containers": []any{container("c", "nginx", map[string]any{"allowPrivilegeEscalation": false,
			"capabilities": map[string]any{"drop": []any{"ALL"}}})}}
	sysctlSpec = map[string]any{ // allowed at baseline from 1.37 only
		"securityContext": map[string]any{"sysctls": []any{map[string]any{"name": "net.ipv4.tcp_notsent_lowat", "value": "1"}}},
		"containers":      []any{container("c", "nginx", nil)}}
)

var podResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func podRequest(op admissionv1.Operation, ns string, obj, old *unstructured.Unstructured) *admission.Request {
	return &admission.Request{Operation: op, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: podResource,
		Name: "p", Namespace: ns, Object: obj, OldObject: old}
}

func TestPlugin(t *testing.T) {
	labels := map[string]map[string]string{
		"restricted": {"pod-security.kubernetes.io/enforce": "restricted"},
		"baseline":   {"pod-security.kubernetes.io/enforce": "baseline"},
		"warn":       {"pod-security.kubernetes.io/warn": "baseline", "pod-security.kubernetes.io/audit": "restricted"},
		"bad":        {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "nope"},
		"v135":       {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.35"},
		"v140":       {"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.40"},
		"exempt":     {"pod-security.kubernetes.io/enforce": "restricted"},
	}
	cfg := DefaultConfiguration()
	cfg.Exemptions = Exemptions{Usernames: []string{"admin"}, Namespaces: []string{"exempt"}, RuntimeClasses: []string{"kata"}}
	deployment := func(ns string, spec map[string]any) *admission.Request {
		return &admission.Request{Operation: admissionv1.Create, Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Name: "d", Namespace: ns,
			Object: &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"name": "d", "namespace": ns},
				"spec":     map[string]any{"template": map[string]any{"spec": spec}}}}}
	}
	withImage := func(spec map[string]any, image string) map[string]any {
		out := map[string]any{}
		for k, v := range spec {
			out[k] = v
		}
		c := container("c", image, nil)
		if sc, ok := spec["containers"].([]any)[0].(map[string]any)["securityContext"]; ok {
			c["securityContext"] = sc
		}
		out["containers"] = []any{c}
		return out
	}
	for _, tc := range []struct {
		name        string
		kube        string
		req         *admission.Request
		status      int32  // 0: allowed
		message     string // of the denial
		warnings    []string
		annotations map[string]string
	}{{
		name: "privileged pod, restricted namespace: denied", req: podRequest(admissionv1.Create, "restricted", podObject("p", "restricted", privilegedSpec), nil),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"},
	}, {
		name: "restricted pod, restricted namespace", req: podRequest(admissionv1.Create, "restricted", podObject("p", "restricted", restrictedSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "restricted:latest"},
	}, {
		name: "no labels: privileged everywhere", req: podRequest(admissionv1.Create, "other", podObject("p", "other", privilegedSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest"},
	}, {
		name: "warn and audit", req: podRequest(admissionv1.Create, "warn", podObject("p", "warn", privilegedSpec), nil),
		warnings: []string{`would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`},
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "privileged:latest",
			"pod-security.kubernetes.io/audit-violations": `would violate PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
	}, {
		name: "an invalid label: annotated, warn fails open", req: podRequest(admissionv1.Create, "bad", podObject("p", "bad", plainSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest",
			"pod-security.kubernetes.io/error": `Failed to parse policy: metadata.labels[pod-security.kubernetes.io/warn]: Invalid value: "nope": must be one of privileged, baseline, restricted`},
	}, {
		name: "exempt user", req: func() *admission.Request {
			r := podRequest(admissionv1.Create, "restricted", podObject("p", "restricted", privilegedSpec), nil)
			r.UserInfo = authenticationv1.UserInfo{Username: "admin"}
			return r
		}(),
		annotations: map[string]string{"pod-security.kubernetes.io/exempt": "user"},
	}, {
		name: "exempt namespace", req: podRequest(admissionv1.Create, "exempt", podObject("p", "exempt", privilegedSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/exempt": "namespace"},
	}, {
		name: "exempt runtime class", req: podRequest(admissionv1.Create, "restricted", podObject("p", "restricted", map[string]any{
			"runtimeClassName": "kata", "containers": privilegedSpec["containers"]}), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/exempt": "runtimeClass"},
	}, {
		name: "update of labels only: not evaluated", req: podRequest(admissionv1.Update, "restricted", podObject("p", "restricted", privilegedSpec), podObject("p", "restricted", privilegedSpec)),
	}, {
		name: "update of an image: evaluated", req: podRequest(admissionv1.Update, "baseline", podObject("p", "baseline", withImage(privilegedSpec, "nginx:2")), podObject("p", "baseline", privilegedSpec)),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"},
	}, {
		name: "status subresource: ignored", req: func() *admission.Request {
			r := podRequest(admissionv1.Update, "baseline", podObject("p", "baseline", privilegedSpec), podObject("p", "baseline", plainSpec))
			r.SubResource = "status"
			return r
		}(),
	}, {
		name: "ephemeralcontainers: an added one is evaluated", req: func() *admission.Request {
			spec := map[string]any{"containers": plainSpec["containers"], "ephemeralContainers": []any{container("debug", "busybox", map[string]any{"privileged": true})}}
			r := podRequest(admissionv1.Update, "baseline", podObject("p", "baseline", spec), podObject("p", "baseline", plainSpec))
			r.SubResource = "ephemeralcontainers"
			return r
		}(),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "debug" must not set securityContext.privileged=true)`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"},
	}, {
		name: "a template only warns and annotates", req: deployment("restricted", privilegedSpec),
		warnings:    []string{`would violate PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`},
		annotations: map[string]string{},
	}, {
		name: "a template in a namespace that cannot be looked up", req: deployment("broken", privilegedSpec),
		annotations: map[string]string{"pod-security.kubernetes.io/error": `failed to lookup namespace "broken": boom`},
	}, {
		name: "a pod in a namespace that cannot be looked up", req: podRequest(admissionv1.Create, "broken", podObject("p", "broken", plainSpec), nil),
		status: 500, message: `Internal error occurred: failed to lookup namespace "broken"`,
		annotations: map[string]string{"pod-security.kubernetes.io/error": `Internal error occurred: failed to lookup namespace "broken": boom`},
	}, {
		name: "1.37: a sysctl of 1.37 is baseline", req: podRequest(admissionv1.Create, "baseline", podObject("p", "baseline", sysctlSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"},
	}, {
		name: "1.35: latest is 1.35", kube: "1.35", req: podRequest(admissionv1.Create, "baseline", podObject("p", "baseline", sysctlSpec), nil),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "baseline:latest": forbidden sysctls (net.ipv4.tcp_notsent_lowat)`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:latest"},
	}, {
		name: "1.37: a version label of 1.35 is 1.35", req: podRequest(admissionv1.Create, "v135", podObject("p", "v135", sysctlSpec), nil),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "baseline:v1.35": forbidden sysctls (net.ipv4.tcp_notsent_lowat)`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:v1.35"},
	}, {
		name: "1.36: a future version label is 1.36", kube: "1.36", req: podRequest(admissionv1.Create, "v140", podObject("p", "v140", sysctlSpec), nil),
		status: 403, message: `pods "p" is forbidden: violates PodSecurity "baseline:v1.40": forbidden sysctls (net.ipv4.tcp_notsent_lowat)`,
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:v1.40"},
	}, {
		name: "1.38: as 1.37", kube: "1.38", req: podRequest(admissionv1.Create, "v140", podObject("p", "v140", sysctlSpec), nil),
		annotations: map[string]string{"pod-security.kubernetes.io/enforce-policy": "baseline:v1.40"},
	}, {
		name: "DELETE: not looked at", req: podRequest(admissionv1.Delete, "restricted", nil, podObject("p", "restricted", privilegedSpec)),
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var target kube.Target
			if tc.kube != "" {
				var err error
				target, err = kube.ParseTarget(tc.kube)
				require.NoError(t, err)
			}
			p, err := New(cfg, Options{Kube: target, Namespaces: namespacesOf(labels)})
			require.NoError(t, err)
			v, err := p.Validate(context.Background(), tc.req)
			if tc.status == 0 {
				require.NoError(t, err)
			} else {
				var status *apierrors.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tc.status, status.ErrStatus.Code)
				assert.Equal(t, tc.message, status.ErrStatus.Message)
			}
			assert.Equal(t, tc.warnings, v.Warnings)
			if len(tc.annotations) == 0 {
				assert.Empty(t, v.AuditAnnotations)
			} else {
				assert.Equal(t, tc.annotations, v.AuditAnnotations)
			}
		})
	}
}

func namespaceObject(name string, labels map[string]string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": name}}}
	u.SetLabels(labels)
	return u
}

func TestNamespaces(t *testing.T) {
	nsRequest := func(op admissionv1.Operation, name string, labels, old map[string]string) *admission.Request {
		r := &admission.Request{Operation: op, Kind: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"},
			Resource: schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, Name: name, Namespace: name,
			Object: namespaceObject(name, labels)}
		if op == admissionv1.Update {
			r.OldObject = namespaceObject(name, old)
		}
		return r
	}
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1", Controller: ptr(true)}}
	pods := PodListerFunc(func(_ context.Context, ns string) ([]*corev1.Pod, error) {
		priv := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x", SecurityContext: &corev1.SecurityContext{Privileged: ptr(true)}}}}
		return []*corev1.Pod{
			{ObjectMeta: metav1.ObjectMeta{Name: "b", OwnerReferences: owner}, Spec: priv},
			{ObjectMeta: metav1.ObjectMeta{Name: "a", OwnerReferences: owner}, Spec: priv},
			{ObjectMeta: metav1.ObjectMeta{Name: "c"}, Spec: corev1.PodSpec{HostNetwork: true, Containers: []corev1.Container{{Name: "c", Image: "x"}}}},
			{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x"}}}},
		}, nil
	})
	cfg := DefaultConfiguration()
	cfg.Exemptions.Namespaces = []string{"kube-system"}
	for _, tc := range []struct {
		name     string
		req      *admission.Request
		pods     PodLister
		status   int32
		message  string
		warnings []string
	}{{
		name: "create with an invalid level", req: nsRequest(admissionv1.Create, "n", map[string]string{"pod-security.kubernetes.io/enforce": "strict"}, nil),
		status: 422, message: `Namespace "n" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
	}, {
		name: "update keeping the same invalid labels", req: nsRequest(admissionv1.Update, "n", map[string]string{"pod-security.kubernetes.io/enforce-version": "1.2"}, map[string]string{"pod-security.kubernetes.io/enforce-version": "1.2"}),
	}, {
		name: "update to an invalid version", req: nsRequest(admissionv1.Update, "n", map[string]string{"pod-security.kubernetes.io/enforce-version": "1.2"}, nil),
		status: 422, message: `Namespace "n" is invalid: metadata.labels[pod-security.kubernetes.io/enforce-version]: Invalid value: "1.2": must be "latest" or "v1.x"`,
	}, {
		name: "tightening without a pod lister: no warnings", req: nsRequest(admissionv1.Update, "n", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}, nil),
	}, {
		name: "tightening with a pod lister", pods: pods, req: nsRequest(admissionv1.Update, "n", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}, nil),
		warnings: []string{`existing pods in namespace "n" violate the new PodSecurity enforce level "baseline:latest"`,
			`a (and 1 other pod): privileged`, `c: host namespaces`},
	}, {
		name: "relaxing: nothing checked", pods: pods, req: nsRequest(admissionv1.Update, "n", map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}, map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}),
	}, {
		name: "an exempt namespace is told", req: nsRequest(admissionv1.Create, "kube-system", map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted"}, nil),
		warnings: []string{`namespace "kube-system" is exempt from Pod Security, and the policy (enforce=baseline:latest, warn=restricted:latest) will be ignored`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(cfg, Options{Pods: tc.pods})
			require.NoError(t, err)
			v, err := p.Validate(context.Background(), tc.req)
			if tc.status == 0 {
				require.NoError(t, err)
			} else {
				var status *apierrors.StatusError
				require.ErrorAs(t, err, &status)
				assert.Equal(t, tc.status, status.ErrStatus.Code)
				assert.Equal(t, tc.message, status.ErrStatus.Message)
			}
			assert.Equal(t, tc.warnings, v.Warnings)
		})
	}
}

func ptr[T any](v T) *T { return &v }
