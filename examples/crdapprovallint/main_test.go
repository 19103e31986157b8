package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRun(t *testing.T) {
	const dir = "../../crdapproval/testdata/realworld/"
	tests := []struct {
		name       string
		files      []string
		stdin      string
		wantStatus int
		wantOutput string
	}{
		{
			name:       "approved",
			files:      []string{dir + "kubernetes-sigs__external-dns__dnsendpoint.yaml"},
			wantStatus: 0,
			wantOutput: dir + "kubernetes-sigs__external-dns__dnsendpoint.yaml:2: dnsendpoints.externaldns.k8s.io (externaldns.k8s.io): Approved: approved in https://github.com/kubernetes-sigs/external-dns/pull/2007\n",
		},
		{
			name:       "unprotected and unapproved pass",
			files:      []string{dir + "kubernetes-sigs__mcs-api__multicluster.x-k8s.io_serviceexports.yaml", dir + "kubernetes__sample-controller__crd-status-subresource.yaml"},
			wantStatus: 0,
			wantOutput: dir + "kubernetes-sigs__mcs-api__multicluster.x-k8s.io_serviceexports.yaml:14: serviceexports.multicluster.x-k8s.io (multicluster.x-k8s.io): NotRequired\n" +
				dir + `kubernetes__sample-controller__crd-status-subresource.yaml:1: foos.samplecontroller.k8s.io (samplecontroller.k8s.io): Unapproved: not approved: "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups"` + "\n",
		},
		{
			name:       "missing fails",
			files:      []string{dir + "kubernetes__sample-controller__crd-v1beta1-sessionjobs.yaml"},
			wantStatus: 1,
			wantOutput: dir + "kubernetes__sample-controller__crd-v1beta1-sessionjobs.yaml:1: sessionjobs.samplecontroller.k8s.io (samplecontroller.k8s.io): Missing: " +
				`protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111` +
				" (apiextensions.k8s.io/v1beta1 is not served since Kubernetes 1.22; checked as v1)\n" +
				`  metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111` + "\n",
		},
		{
			name:       "standard input, with a bad document",
			stdin:      "apiVersion: v1\nkind: ConfigMap\n",
			wantStatus: 1,
			wantOutput: `-: document 1 (line 1): not a CustomResourceDefinition of apiextensions.k8s.io/v1 or v1beta1: apiVersion "v1", kind "ConfigMap"` + "\n",
		},
		{
			name:       "a file that does not exist",
			files:      []string{dir + "nope.yaml"},
			wantStatus: 1,
			wantOutput: dir + "nope.yaml: open " + dir + "nope.yaml: no such file or directory\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			status := run(tt.files, strings.NewReader(tt.stdin), &out)
			assert.Equal(t, tt.wantStatus, status)
			assert.Equal(t, tt.wantOutput, out.String())
		})
	}
}
