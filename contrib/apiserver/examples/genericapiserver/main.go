// Command genericapiserver is a minimal server built on k8s.io/apiserver's
// generic server whose authorization is gatehouse's chain, built from an
// --authorization-config file as kube-apiserver builds its own, and
// following the file: edit it while the server runs.
//
//	go run ./examples/genericapiserver --authorization-config examples/genericapiserver/authorization-config.yaml
//	curl -k -H 'Authorization: Bearer alice-token' https://localhost:8443/hello   # 200: alice is a reader
//	curl -k -H 'Authorization: Bearer bob-token' https://localhost:8443/hello     # 403
//
// Authentication is by static bearer tokens (alice-token, bob-token,
// root-token for a member of system:masters); the type RBAC of the file is
// a small stand-in that lets the group "readers" get non-resource paths.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	"k8s.io/client-go/rest"
	"k8s.io/component-base/compatibility"

	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/contrib/apiserver"
)

func main() {
	configPath := flag.String("authorization-config", "", "AuthorizationConfiguration file, reloaded when it changes")
	port := flag.Int("secure-port", 8443, "HTTPS port, on a self-signed certificate")
	certDir := flag.String("cert-dir", os.TempDir(), "directory of the self-signed certificate")
	flag.Parse()
	if *configPath == "" {
		fmt.Fprintln(os.Stderr, "--authorization-config is required")
		os.Exit(2)
	}
	ctx := genericapiserver.SetupSignalContext()
	server, _, err := newServer(ctx, serverOptions{AuthorizationConfig: *configPath, SecurePort: *port, CertDir: *certDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := server.PrepareRun().RunWithContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type serverOptions struct {
	AuthorizationConfig string
	// SecurePort 0 builds the server without a listener, for tests that
	// call its Handler.
	SecurePort int
	CertDir    string
}

// tokens are the users of the example.
var tokens = map[string]*user.DefaultInfo{
	"alice-token": {Name: "alice", Groups: []string{"readers", user.AllAuthenticated}},
	"bob-token":   {Name: "bob", Groups: []string{user.AllAuthenticated}},
	"root-token":  {Name: "root", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
}

// readersRBAC stands in for RBAC: the group "readers" may get non-resource
// paths.
var readersRBAC = kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
	if a.GetUser() == nil || a.IsResourceRequest() || a.GetVerb() != "get" {
		return kauthorizer.DecisionNoOpinion, "", nil
	}
	for _, g := range a.GetUser().GetGroups() {
		if g == "readers" {
			return kauthorizer.DecisionAllow, "readers may get " + a.GetPath(), nil
		}
	}
	return kauthorizer.DecisionNoOpinion, "", nil
})

// newServer builds the generic server, its authorizer following the
// configuration file until ctx ends.
func newServer(ctx context.Context, opts serverOptions) (*genericapiserver.GenericAPIServer, *apiserver.ReloadingAuthorizer, error) {
	// The scheme knows the unversioned types the server answers with, such
	// as the Status of a 403.
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Version: "v1"}
	scheme.AddUnversionedTypes(unversioned, &metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	config := genericapiserver.NewConfig(serializer.NewCodecFactory(scheme))
	config.EffectiveVersion = compatibility.NewEffectiveVersionFromString("1.37", "", "")
	if opts.SecurePort > 0 {
		serving := genericoptions.NewSecureServingOptions()
		serving.BindAddress = net.IPv4(127, 0, 0, 1)
		serving.BindPort = opts.SecurePort
		serving.ServerCert.CertDirectory = opts.CertDir
		if err := serving.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
			return nil, nil, err
		}
		if err := serving.WithLoopback().ApplyTo(&config.SecureServing, &config.LoopbackClientConfig); err != nil {
			return nil, nil, err
		}
	} else {
		config.LoopbackClientConfig = &rest.Config{}
	}
	config.ExternalAddress = net.JoinHostPort("localhost", strconv.Itoa(opts.SecurePort))

	config.Authentication.Authenticator = bearertoken.New(authenticator.TokenFunc(
		func(_ context.Context, token string) (*authenticator.Response, bool, error) {
			u, ok := tokens[token]
			if !ok {
				return nil, false, nil
			}
			return &authenticator.Response{User: u}, true, nil
		}))

	// The one call: gatehouse's chain of the file, with the server's own
	// authorizer for the type RBAC, as a k8s.io/apiserver authorizer.
	az, err := apiserver.NewReloadingAuthorizer(ctx, apiserver.ReloadingOptions{
		ReloaderOptions: authorizer.ReloaderOptions{Path: opts.AuthorizationConfig, APIServerID: "gatehouse-example"},
		KubeAuthorizers: map[string]kauthorizer.Authorizer{"RBAC": readersRBAC},
	})
	if err != nil {
		return nil, nil, err
	}
	config.Authorization.Authorizer = az

	server, err := config.Complete(nil).New("gatehouse-example", genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, nil, err
	}
	server.Handler.NonGoRestfulMux.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "hello\n")
	})
	return server, az, nil
}
