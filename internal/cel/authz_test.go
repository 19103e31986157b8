package cel

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/selection"
)

// recordingAuthorizer answers every check with the same decision and records
// the attributes it was asked about.
type recordingAuthorizer struct {
	decision Decision
	reason   string
	err      error

	mu    sync.Mutex
	calls []AuthorizationAttributes
}

func (a *recordingAuthorizer) Authorize(_ context.Context, attrs *AuthorizationAttributes) (Decision, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, *attrs)
	return a.decision, a.reason, a.err
}

func evalAuthz(t *testing.T, expr string, a Authorizer) (any, error) {
	t.Helper()
	env, err := NewEnv(
		cel.Variable("authorizer", AuthorizerType),
		cel.Variable("requestResource", ResourceCheckType),
	)
	require.NoError(t, err)
	ast, iss := env.Compile(expr)
	require.NoError(t, iss.Err())
	prg, err := env.Program(ast, ProgramOptions()...)
	require.NoError(t, err)
	user := &UserInfo{Name: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"k": {"v"}}}
	out, _, err := prg.Eval(map[string]any{
		"authorizer":      NewAuthorizerValue(context.Background(), user, a),
		"requestResource": NewResourceCheckValue(context.Background(), user, a, "apps", "deployments", "scale", "ns1", "web"),
	})
	if err != nil {
		return nil, err
	}
	return out.Value(), nil
}

func TestAuthzChecks(t *testing.T) {
	alice := &UserInfo{Name: "alice", UID: "u1", Groups: []string{"dev"}, Extra: map[string][]string{"k": {"v"}}}
	sa := &UserInfo{Name: "system:serviceaccount:kube-system:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system"}}
	tests := []struct {
		name      string
		expr      string
		authz     *recordingAuthorizer
		want      any
		wantErr   string
		wantAttrs []AuthorizationAttributes
	}{
		{
			name:  "path check allowed",
			expr:  "authorizer.path('/healthz').check('get').allowed()",
			authz: &recordingAuthorizer{decision: DecisionAllow},
			want:  true,
			wantAttrs: []AuthorizationAttributes{{
				User: alice, Verb: "get", Path: "/healthz",
			}},
		},
		{
			name:  "resource check with every builder",
			expr:  "authorizer.group('apps').resource('deployments').subresource('status').namespace('ns').name('n').check('update').reason()",
			authz: &recordingAuthorizer{decision: DecisionDeny, reason: "nope"},
			want:  "nope",
			wantAttrs: []AuthorizationAttributes{{
				User: alice, Verb: "update", ResourceRequest: true, APIGroup: "apps", APIVersion: "*",
				Resource: "deployments", Subresource: "status", Namespace: "ns", Name: "n",
			}},
		},
		{
			name:  "no opinion is not allowed",
			expr:  "authorizer.group('').resource('pods').check('list').allowed()",
			authz: &recordingAuthorizer{decision: DecisionNoOpinion},
			want:  false,
			wantAttrs: []AuthorizationAttributes{{
				User: alice, Verb: "list", ResourceRequest: true, APIVersion: "*", Resource: "pods",
			}},
		},
		{
			name:  "errored decision",
			expr:  "authorizer.path('/x').check('get').errored() && authorizer.path('/x').check('get').error() == 'boom'",
			authz: &recordingAuthorizer{decision: DecisionNoOpinion, err: errors.New("boom")},
			want:  true,
		},
		{
			name:  "no error text without an error",
			expr:  "authorizer.path('/x').check('get').error()",
			authz: &recordingAuthorizer{decision: DecisionAllow},
			want:  "",
		},
		{
			name:  "service account user",
			expr:  "authorizer.serviceAccount('kube-system', 'builder').group('').resource('secrets').check('get').allowed()",
			authz: &recordingAuthorizer{decision: DecisionAllow},
			want:  true,
			wantAttrs: []AuthorizationAttributes{{
				User: sa, Verb: "get", ResourceRequest: true, APIVersion: "*", Resource: "secrets",
			}},
		},
		{
			name:  "request resource",
			expr:  "requestResource.check('create').allowed()",
			authz: &recordingAuthorizer{decision: DecisionAllow},
			want:  true,
			wantAttrs: []AuthorizationAttributes{{
				User: alice, Verb: "create", ResourceRequest: true, APIGroup: "apps", APIVersion: "*",
				Resource: "deployments", Subresource: "scale", Namespace: "ns1", Name: "web",
			}},
		},
		{
			name:  "field selector",
			expr:  "authorizer.group('').resource('pods').fieldSelector('spec.nodeName=n1,status.phase!=Failed').check('list').allowed()",
			authz: &recordingAuthorizer{decision: DecisionAllow},
			want:  true,
			wantAttrs: []AuthorizationAttributes{{
				User: alice, Verb: "list", ResourceRequest: true, APIVersion: "*", Resource: "pods",
				FieldSelectorRequirements: fields.Requirements{
					{Operator: selection.Equals, Field: "spec.nodeName", Value: "n1"},
					{Operator: selection.NotEquals, Field: "status.phase", Value: "Failed"},
				},
			}},
		},
		{name: "empty path", expr: "authorizer.path(' ').check('get').allowed()", authz: &recordingAuthorizer{}, wantErr: "path must not be empty"},
		{name: "empty resource", expr: "authorizer.group('').resource('').check('get').allowed()", authz: &recordingAuthorizer{}, wantErr: "resource must not be empty"},
		{name: "bad service account name", expr: "authorizer.serviceAccount('ns', 'Bad_Name').path('/x').check('get').allowed()", authz: &recordingAuthorizer{}, wantErr: "Invalid service account name"},
		{name: "bad service account namespace", expr: "authorizer.serviceAccount('Bad.NS', 'sa').path('/x').check('get').allowed()", authz: &recordingAuthorizer{}, wantErr: "Invalid service account namespace"},
		{name: "authz values do not compare", expr: "authorizer == authorizer", authz: &recordingAuthorizer{}, wantErr: "no such overload"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := evalAuthz(t, tt.expr, tt.authz)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if tt.wantAttrs != nil {
				assert.Equal(t, tt.wantAttrs, tt.authz.calls)
			}
		})
	}
}

func TestAuthzSelectorParseErrors(t *testing.T) {
	a := &recordingAuthorizer{decision: DecisionAllow}
	_, err := evalAuthz(t, "authorizer.group('').resource('pods').fieldSelector('a@b').labelSelector('x in (').check('list').allowed()", a)
	require.NoError(t, err)
	require.Len(t, a.calls, 1)
	got := a.calls[0]
	assert.Nil(t, got.FieldSelectorRequirements)
	assert.Nil(t, got.LabelSelectorRequirements)
	require.Error(t, got.FieldSelectorParsingErr)
	require.Error(t, got.LabelSelectorParsingErr)
	assert.Contains(t, got.FieldSelectorParsingErr.Error(), "invalid selector: 'a@b'")
}
