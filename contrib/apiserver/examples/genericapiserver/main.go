// Command genericapiserver is a minimal server built on k8s.io/apiserver's
// generic server whose authorization is gatehouse's chain, built from an
// --authorization-config file as kube-apiserver builds its own, and whose
// admission is gatehouse's chain of the static manifests directories under
// --admission-manifests (a subdirectory named after each plugin:
// MutatingAdmissionPolicy, MutatingAdmissionWebhook,
// ValidatingAdmissionPolicy, ValidatingAdmissionWebhook), following both:
// edit them while the server runs (the directories are read every minute).
//
//	go run ./examples/genericapiserver --authorization-config examples/genericapiserver/authorization-config.yaml \
//	    --admission-manifests examples/genericapiserver/admission
//	curl -k -H 'Authorization: Bearer alice-token' https://localhost:8443/hello   # 200: alice is a reader
//	curl -k -H 'Authorization: Bearer bob-token' https://localhost:8443/hello     # 403
//	curl -k -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' \
//	    https://localhost:8443/apis/example.gatehouse.dev/v1/namespaces/default/widgets \
//	    -d '{"apiVersion":"example.gatehouse.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":3}}'
//	    # 201: created, and blue (the mutating policy)
//	curl -k -H 'Authorization: Bearer alice-token' -H 'Content-Type: application/json' \
//	    https://localhost:8443/apis/example.gatehouse.dev/v1/namespaces/default/widgets \
//	    -d '{"apiVersion":"example.gatehouse.dev/v1","kind":"Widget","metadata":{"name":"big"},"spec":{"size":50}}'
//	    # 422: denied by the validating policy
//
// Authentication is by static bearer tokens (alice-token, bob-token,
// root-token for a member of system:masters); the type RBAC of the file is
// a small stand-in that lets the group "readers" get non-resource paths and
// get, list and create widgets. The server serves one API of its own,
// widgets.example.gatehouse.dev/v1, kept in memory, for admission to admit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	kadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/user"
	kauthorizer "k8s.io/apiserver/pkg/authorization/authorizer"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	"k8s.io/apiserver/pkg/registry/rest"
	genericapiserver "k8s.io/apiserver/pkg/server"
	genericoptions "k8s.io/apiserver/pkg/server/options"
	clientrest "k8s.io/client-go/rest"
	"k8s.io/component-base/compatibility"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/admissionmanifest"
	"github.com/gatehouse-dev/gatehouse/authorizer"
	"github.com/gatehouse-dev/gatehouse/contrib/apiserver"
	"github.com/gatehouse-dev/gatehouse/mutation"
)

func main() {
	configPath := flag.String("authorization-config", "", "AuthorizationConfiguration file, reloaded when it changes")
	port := flag.Int("secure-port", 8443, "HTTPS port, on a self-signed certificate")
	certDir := flag.String("cert-dir", os.TempDir(), "directory of the self-signed certificate")
	manifests := flag.String("admission-manifests", "", "directory whose subdirectories, named after the admission plugins, are their static manifests directories")
	flag.Parse()
	if *configPath == "" {
		fmt.Fprintln(os.Stderr, "--authorization-config is required")
		os.Exit(2)
	}
	ctx := genericapiserver.SetupSignalContext()
	s, err := newServer(ctx, serverOptions{AuthorizationConfig: *configPath, AdmissionManifests: *manifests, SecurePort: *port, CertDir: *certDir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := s.PrepareRun().RunWithContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

type serverOptions struct {
	AuthorizationConfig string
	// AdmissionManifests holds the plugins' static manifests directories;
	// "" admits everything.
	AdmissionManifests string
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
// paths, and get, list and create widgets.
var readersRBAC = kauthorizer.AuthorizerFunc(func(_ context.Context, a kauthorizer.Attributes) (kauthorizer.Decision, string, error) {
	if a.GetUser() == nil || !slices.Contains(a.GetUser().GetGroups(), "readers") {
		return kauthorizer.DecisionNoOpinion, "", nil
	}
	switch {
	case !a.IsResourceRequest() && a.GetVerb() == "get":
		return kauthorizer.DecisionAllow, "readers may get " + a.GetPath(), nil
	case a.IsResourceRequest() && a.GetAPIGroup() == widgetsGV.Group && a.GetResource() == "widgets" && slices.Contains([]string{"get", "list", "create"}, a.GetVerb()):
		return kauthorizer.DecisionAllow, "readers may " + a.GetVerb() + " widgets", nil
	}
	return kauthorizer.DecisionNoOpinion, "", nil
})

// exampleServer is the generic server and what follows its files.
type exampleServer struct {
	*genericapiserver.GenericAPIServer
	Authorizer *apiserver.ReloadingAuthorizer
	// Admission is nil without admission manifests.
	Admission *apiserver.ReloadingAdmissionPlugin
}

// newServer builds the generic server, its authorizer and admission
// following their files until ctx ends.
func newServer(ctx context.Context, opts serverOptions) (*exampleServer, error) {
	// The scheme knows the unversioned types the server answers with, such
	// as the Status of a 403, and the widgets.
	scheme := runtime.NewScheme()
	metav1.AddToGroupVersion(scheme, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Version: "v1"}
	scheme.AddUnversionedTypes(unversioned, &metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{}, &metav1.APIGroup{}, &metav1.APIResourceList{})
	if err := addWidgets(scheme); err != nil {
		return nil, err
	}
	codecs := serializer.NewCodecFactory(scheme)
	config := genericapiserver.NewConfig(codecs)
	config.EffectiveVersion = compatibility.NewEffectiveVersionFromString("1.37", "", "")
	// The widgets' OpenAPI serves server-side apply's field management; the
	// example does not publish it.
	config.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(widgetDefinitions, openapinamer.NewDefinitionNamer(scheme))
	config.SkipOpenAPIInstallation = true
	if opts.SecurePort > 0 {
		serving := genericoptions.NewSecureServingOptions()
		serving.BindAddress = net.IPv4(127, 0, 0, 1)
		serving.BindPort = opts.SecurePort
		serving.ServerCert.CertDirectory = opts.CertDir
		if err := serving.MaybeDefaultWithSelfSignedCerts("localhost", nil, []net.IP{net.IPv4(127, 0, 0, 1)}); err != nil {
			return nil, err
		}
		if err := serving.WithLoopback().ApplyTo(&config.SecureServing, &config.LoopbackClientConfig); err != nil {
			return nil, err
		}
	} else {
		config.LoopbackClientConfig = &clientrest.Config{}
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
		return nil, err
	}
	config.Authorization.Authorizer = az
	s := &exampleServer{Authorizer: az}

	if opts.AdmissionManifests != "" {
		// The one call: gatehouse's admission chain of the directories, as
		// a k8s.io/apiserver admission plugin, in an admission chain of
		// k8s.io/apiserver (which reinvokes the mutating plugins when
		// asked).
		schemas := mutation.BuiltIn()
		if err := schemas.AddCRD(widgetsSchema); err != nil {
			return nil, err
		}
		if s.Admission, err = apiserver.NewReloadingAdmissionPlugin(ctx, admission.ReloaderOptions{
			Dirs: pluginDirs(opts.AdmissionManifests), APIServerID: "gatehouse-example",
			Chain: admission.Options{Schemas: schemas},
		}); err != nil {
			return nil, err
		}
		plugins := kadmission.NewPlugins()
		plugins.Register(apiserver.AdmissionPluginName, func(io.Reader) (kadmission.Interface, error) { return s.Admission, nil })
		if config.AdmissionControl, err = plugins.NewFromPlugins([]string{apiserver.AdmissionPluginName}, noConfig{}, kadmission.PluginInitializers{}, nil); err != nil {
			return nil, err
		}
	}

	if s.GenericAPIServer, err = config.Complete(nil).New("gatehouse-example", genericapiserver.NewEmptyDelegate()); err != nil {
		return nil, err
	}
	s.Handler.NonGoRestfulMux.HandleFunc("/hello", func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "hello\n")
	})
	widgets := genericapiserver.NewDefaultAPIGroupInfo(widgetsGV.Group, scheme, runtime.NewParameterCodec(scheme), codecs)
	widgets.VersionedResourcesStorageMap[widgetsGV.Version] = map[string]rest.Storage{"widgets": newWidgetStorage()}
	if err := s.InstallAPIGroup(&widgets); err != nil {
		return nil, err
	}
	return s, nil
}

// pluginDirs are the subdirectories of dir named after admission plugins.
func pluginDirs(dir string) map[admissionmanifest.Plugin]string {
	dirs := map[admissionmanifest.Plugin]string{}
	for _, p := range admissionmanifest.Plugins() {
		sub := filepath.Join(dir, string(p))
		if fi, err := os.Stat(sub); err == nil && fi.IsDir() {
			if abs, err := filepath.Abs(sub); err == nil {
				dirs[p] = abs
			}
		}
	}
	return dirs
}

// noConfig gives the admission plugin no configuration file.
type noConfig struct{}

func (noConfig) ConfigFor(string) (io.Reader, error) { return nil, nil }
