package crdapproval

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// realworldDir holds published CRDs of protected (and lookalike) groups; see
// SOURCES.md there.
const realworldDir = "testdata/realworld"

// realworldCRD is kube-apiserver 1.37's verdict on one CRD of a real-world
// file.
type realworldCRD struct {
	apiVersion, name, group string
	value                   string // the approval annotation; "<none>" if absent
	state                   State
	// servedBy137 is false for apiextensions.k8s.io/v1beta1, which a 1.37
	// cluster rejects before any check ("no matches for kind
	// CustomResourceDefinition in version apiextensions.k8s.io/v1beta1"); the
	// errors and the condition are then those of the CRD converted to v1.
	// Converted, these CRDs also fail the rest of kube's validation
	// (spec.versions[*].schema.openAPIV3Schema: Required value, or
	// spec.validation.openAPIV3Schema.type: Required value, and
	// spec.preserveUnknownFields: Invalid value: true), which this package
	// does not check; the v1 files pass it. The conformance test
	// TestCRDApprovalRealworldMatchesKube checks those errors too.
	servedBy137 bool
	// createErrs is the rendered error list of ValidateCreate, "" for none.
	createErrs string
	// removeErrs is the rendered error list of an update that removes the
	// annotation.
	removeErrs string
	// condition is the condition the controller sets; nil for none.
	condition *metav1.Condition
}

func approvedCondition(url string) *metav1.Condition {
	return &metav1.Condition{Type: ConditionType, Status: metav1.ConditionTrue, Reason: "ApprovedAnnotation", Message: "approved in " + url}
}

func unapprovedCondition(quoted string) *metav1.Condition {
	return &metav1.Condition{Type: ConditionType, Status: metav1.ConditionFalse, Reason: "UnapprovedAnnotation", Message: "not approved: " + quoted}
}

var missingCondition = &metav1.Condition{
	Type: ConditionType, Status: metav1.ConditionFalse, Reason: "MissingAnnotation",
	Message: `protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111`,
}

func v1Approved(name, group, url string) realworldCRD {
	return realworldCRD{
		apiVersion: APIVersionV1, name: name, group: group, value: url, state: Approved, servedBy137: true,
		removeErrs: renderedRequired, condition: approvedCondition(url),
	}
}

func v1beta1Missing(name, group string) realworldCRD {
	return realworldCRD{
		apiVersion: APIVersionV1beta1, name: name, group: group, value: "<none>", state: Missing, servedBy137: false,
		createErrs: renderedRequired, condition: missingCondition,
	}
}

func aadPodIdentity(name string) realworldCRD {
	return realworldCRD{
		apiVersion: APIVersionV1, name: name, group: "aadpodidentity.k8s.io", value: "unapproved", state: Unapproved, servedBy137: true,
		removeErrs: renderedRequired, condition: unapprovedCondition(`"unapproved"`),
	}
}

const sampleControllerReason = "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"

var realworldVerdicts = map[string][]realworldCRD{
	"Azure__aad-pod-identity__crd.yaml": {
		aadPodIdentity("azureassignedidentities.aadpodidentity.k8s.io"),
		aadPodIdentity("azureidentities.aadpodidentity.k8s.io"),
		aadPodIdentity("azureidentitybindings.aadpodidentity.k8s.io"),
		aadPodIdentity("azurepodidentityexceptions.aadpodidentity.k8s.io"),
	},
	"kcp-dev__kcp__rbac.authorization.k8s.io_clusterrolebindings.yaml": {
		v1Approved("clusterrolebindings.rbac.authorization.k8s.io", "rbac.authorization.k8s.io", "https://github.com/kcp-dev/kubernetes/pull/4"),
	},
	"kcp-dev__kcp__rbac.authorization.k8s.io_roles.yaml": {
		v1Approved("roles.rbac.authorization.k8s.io", "rbac.authorization.k8s.io", "https://github.com/kcp-dev/kubernetes/pull/4"),
	},
	"kubernetes-csi__external-snapshot-metadata__cbt.storage.k8s.io_snapshotmetadataservices-no-annotation.yaml": {{
		apiVersion: APIVersionV1, name: "snapshotmetadataservices.cbt.storage.k8s.io", group: "cbt.storage.k8s.io", value: "<none>",
		state: Missing, servedBy137: true, createErrs: renderedRequired, condition: missingCondition,
	}},
	"kubernetes-csi__external-snapshot-metadata__cbt.storage.k8s.io_snapshotmetadataservices.yaml": {
		v1Approved("snapshotmetadataservices.cbt.storage.k8s.io", "cbt.storage.k8s.io", "https://github.com/kubernetes-csi/external-snapshot-metadata/pull/2"),
	},
	"kubernetes-csi__external-snapshotter__groupsnapshot.storage.k8s.io_volumegroupsnapshotclasses.yaml": {
		v1Approved("volumegroupsnapshotclasses.groupsnapshot.storage.k8s.io", "groupsnapshot.storage.k8s.io", "https://github.com/kubernetes-csi/external-snapshotter/pull/1337"),
	},
	"kubernetes-csi__external-snapshotter__snapshot.storage.k8s.io_volumesnapshotclasses.yaml": {
		v1Approved("volumesnapshotclasses.snapshot.storage.k8s.io", "snapshot.storage.k8s.io", "https://github.com/kubernetes-csi/external-snapshotter/pull/814"),
	},
	"kubernetes-sigs__external-dns__dnsendpoint.yaml": {
		v1Approved("dnsendpoints.externaldns.k8s.io", "externaldns.k8s.io", "https://github.com/kubernetes-sigs/external-dns/pull/2007"),
	},
	"kubernetes-sigs__gateway-api__gateway.networking.k8s.io_referencegrants-experimental.yaml": {
		v1Approved("referencegrants.gateway.networking.k8s.io", "gateway.networking.k8s.io", "https://github.com/kubernetes-sigs/gateway-api/pull/4530"),
	},
	// x-k8s.io is not a subdomain of k8s.io: the annotation is ignored.
	"kubernetes-sigs__gateway-api__gateway.networking.x-k8s.io_xreferencegrants.yaml": {{
		apiVersion: APIVersionV1, name: "xreferencegrants.gateway.networking.x-k8s.io", group: "gateway.networking.x-k8s.io",
		value: "https://github.com/kubernetes-sigs/gateway-api/pull/2466", state: NotRequired, servedBy137: true,
	}},
	"kubernetes-sigs__mcs-api__multicluster.x-k8s.io_serviceexports.yaml": {{
		apiVersion: APIVersionV1, name: "serviceexports.multicluster.x-k8s.io", group: "multicluster.x-k8s.io",
		value: "<none>", state: NotRequired, servedBy137: true,
	}},
	"kubernetes__autoscaler__vpa-v1-crd-v1beta1.yaml": {
		v1beta1Missing("verticalpodautoscalers.autoscaling.k8s.io", "autoscaling.k8s.io"),
		v1beta1Missing("verticalpodautoscalercheckpoints.autoscaling.k8s.io", "autoscaling.k8s.io"),
	},
	"kubernetes__kubernetes__sample-controller-crd-scale-subresource-v1beta1.yaml": {
		v1beta1Missing("foos.samplecontroller.k8s.io", "samplecontroller.k8s.io"),
	},
	// A link to an issue rather than a pull request is still a URL.
	"kubernetes__kubernetes__sample-controller-crd.yaml": {
		v1Approved("foos.samplecontroller.k8s.io", "samplecontroller.k8s.io", "https://github.com/kubernetes/kubernetes/issues/12345"),
	},
	"kubernetes__sample-controller__crd-status-subresource.yaml": {{
		apiVersion: APIVersionV1, name: "foos.samplecontroller.k8s.io", group: "samplecontroller.k8s.io",
		value: sampleControllerReason, state: Unapproved, servedBy137: true,
		removeErrs: renderedRequired, condition: unapprovedCondition(`"` + sampleControllerReason + `"`),
	}},
	"kubernetes__sample-controller__crd-v1beta1-sessionjobs.yaml": {
		v1beta1Missing("sessionjobs.samplecontroller.k8s.io", "samplecontroller.k8s.io"),
	},
}

func TestRealworldCRDs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realworldDir, "*.yaml"))
	require.NoError(t, err)
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	var tabled []string
	for name := range realworldVerdicts {
		tabled = append(tabled, name)
	}
	sort.Strings(tabled)
	require.Equal(t, tabled, names, "every real-world file has a row, and every row a file")

	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(realworldDir, name))
			require.NoError(t, err)
			crds, err := Decode(data)
			require.NoError(t, err)
			want := realworldVerdicts[name]
			require.Len(t, crds, len(want))
			for i, w := range want {
				crd := crds[i]
				assert.Equal(t, w.apiVersion, crd.APIVersion, w.name)
				assert.Equal(t, w.name, crd.Name)
				assert.Equal(t, w.group, crd.Group, w.name)
				value, ok := crd.Annotations[AnnotationKey]
				if w.value == "<none>" {
					assert.False(t, ok, "%s: no approval annotation", w.name)
				} else {
					assert.Equal(t, w.value, value, w.name)
				}
				assert.Equal(t, w.servedBy137, crd.APIVersion == APIVersionV1, w.name)
				assert.Equal(t, w.state, StateOf(crd.Group, crd.Annotations), w.name)
				assert.Equal(t, w.createErrs, rendered(ValidateCreate(crd.Group, crd.Annotations)), "%s: create", w.name)
				assert.Empty(t, rendered(ValidateUpdate(crd.Group, crd.Annotations, crd.Annotations)), "%s: an unchanged update passes", w.name)
				removed := withoutApproval(crd.Annotations)
				assert.Equal(t, w.removeErrs, rendered(ValidateUpdate(crd.Group, removed, crd.Annotations)), "%s: removal", w.name)
				c, ok := Condition(crd.Group, crd.Annotations)
				if w.condition == nil {
					assert.False(t, ok, "%s: no condition", w.name)
				} else if assert.True(t, ok, "%s: a condition", w.name) {
					assert.Equal(t, *w.condition, c, w.name)
				}
			}
		})
	}
}

// rendered is the text kube-apiserver shows for an error list, "" for none.
func rendered(errs field.ErrorList) string {
	if agg := errs.ToAggregate(); agg != nil {
		return agg.Error()
	}
	return ""
}

// withoutApproval copies annotations without the approval annotation.
func withoutApproval(annotations map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range annotations {
		if k != AnnotationKey {
			out[k] = v
		}
	}
	return out
}
