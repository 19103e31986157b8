package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
)

func TestParseAnswers(t *testing.T) {
	tests := []struct {
		name, data, err string
	}{
		{name: "empty", data: ""},
		{name: "unknown field", data: "webhooks:\n- name: a\n  answer: []\n", err: `error unmarshaling JSON: while decoding JSON: json: unknown field "answer"`},
		{name: "no name", data: "webhooks:\n- fail: 500\n", err: "webhooks[0]: name is required"},
		{name: "twice", data: "webhooks:\n- name: a\n- name: a\n", err: `webhooks[1]: webhook "a" is answered twice`},
		{name: "fail and answers", data: "webhooks:\n- name: a\n  fail: 500\n  answers: [{allowed: true}]\n", err: "webhooks[0]: fail and answers exclude each other"},
		{name: "fail not an error", data: "webhooks:\n- name: a\n  fail: 200\n", err: "webhooks[0]: fail must be an HTTP error status (400 to 599), not 200"},
		{name: "fine", data: "webhooks:\n- name: a\n  fail: 500\n- name: b\n  answers: [{when: {user: x}, allowed: true}]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseAnswers([]byte(tt.data))
			if tt.err == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.err)
			}
		})
	}
}

func TestScriptedDecide(t *testing.T) {
	a, err := parseAnswers([]byte(`webhooks:
- name: w
  answers:
  - when: {group: admins, verb: delete, apiGroup: apiextensions.k8s.io, resource: customresourcedefinitions}
    allowed: true
    reason: admins
  - when: {path: /metrics}
    allowed: true
  - when: {user: mallory}
    denied: true
    reason: banned
`))
	require.NoError(t, err)
	w := a.Webhooks[0]
	crd := &authorizationv1.ResourceAttributes{Verb: "delete", Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions", Name: "x"}
	tests := []struct {
		name string
		spec authorizationv1.SubjectAccessReviewSpec
		want authorizationv1.SubjectAccessReviewStatus
	}{
		{"every field of when", authorizationv1.SubjectAccessReviewSpec{User: "a", Groups: []string{"dev", "admins"}, ResourceAttributes: crd}, authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "admins"}},
		{"a group missing", authorizationv1.SubjectAccessReviewSpec{User: "a", Groups: []string{"dev"}, ResourceAttributes: crd}, authorizationv1.SubjectAccessReviewStatus{}},
		{"a path", authorizationv1.SubjectAccessReviewSpec{User: "a", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}, authorizationv1.SubjectAccessReviewStatus{Allowed: true}},
		{"first match wins", authorizationv1.SubjectAccessReviewSpec{User: "mallory", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}}, authorizationv1.SubjectAccessReviewStatus{Allowed: true}},
		{"later match", authorizationv1.SubjectAccessReviewSpec{User: "mallory", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}}, authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "banned"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, w.decide(tt.spec), tt.name)
	}
}

// FuzzAnswers: any answers file is read or refused, and what is read
// answers any review.
func FuzzAnswers(f *testing.F) {
	for _, file := range []string{expl + "/answers.yaml", expl + "/answers-down.yaml", expl + "/answers-incomplete.yaml", expl + "/incluster-answers.yaml"} {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := parseAnswers(data)
		if err != nil {
			return
		}
		for _, w := range a.Webhooks {
			w.decide(authorizationv1.SubjectAccessReviewSpec{User: "u", Groups: []string{"g"}, ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}})
			w.decide(authorizationv1.SubjectAccessReviewSpec{User: "u", NonResourceAttributes: &authorizationv1.NonResourceAttributes{Verb: "get", Path: "/"}})
		}
	})
}
