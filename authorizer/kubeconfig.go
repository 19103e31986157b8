package authorizer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// This file reads the kubeconfig file of a webhook: kube-apiserver reads it
// with client-go's clientcmd; here only the fields a webhook connection uses
// are read, with clientcmd's rules:
//
//   - YAML or JSON; keys are case-sensitive; unknown keys are ignored;
//     apiVersion and kind may be omitted (v1, Config);
//   - the current-context picks the cluster and the user; names in each list
//     must be unique;
//   - relative file paths are relative to the kubeconfig's directory;
//   - cluster: server, certificate-authority(-data), insecure-skip-tls-verify,
//     tls-server-name, proxy-url, disable-compression;
//   - user: client-certificate(-data), client-key(-data), token, tokenFile,
//     username and password.
//
// Exec plugins, auth providers and impersonation, which client-go supports,
// are rejected with an error naming them.

type kubeconfig struct {
	APIVersion     string         `json:"apiVersion,omitempty"`
	Kind           string         `json:"kind,omitempty"`
	Clusters       []namedCluster `json:"clusters"`
	Users          []namedUser    `json:"users"`
	Contexts       []namedContext `json:"contexts"`
	CurrentContext string         `json:"current-context"`
}

type namedCluster struct {
	Name    string    `json:"name"`
	Cluster kcCluster `json:"cluster"`
}

type kcCluster struct {
	Server                   string `json:"server"`
	TLSServerName            string `json:"tls-server-name,omitempty"`
	InsecureSkipTLSVerify    bool   `json:"insecure-skip-tls-verify,omitempty"`
	CertificateAuthority     string `json:"certificate-authority,omitempty"`
	CertificateAuthorityData []byte `json:"certificate-authority-data,omitempty"`
	ProxyURL                 string `json:"proxy-url,omitempty"`
	DisableCompression       bool   `json:"disable-compression,omitempty"`
}

type namedUser struct {
	Name string `json:"name"`
	User kcUser `json:"user"`
}

type kcUser struct {
	ClientCertificate     string `json:"client-certificate,omitempty"`
	ClientCertificateData []byte `json:"client-certificate-data,omitempty"`
	ClientKey             string `json:"client-key,omitempty"`
	ClientKeyData         []byte `json:"client-key-data,omitempty"`
	Token                 string `json:"token,omitempty"`
	TokenFile             string `json:"tokenFile,omitempty"`
	Username              string `json:"username,omitempty"`
	Password              string `json:"password,omitempty"`

	// Read only to be rejected.
	Impersonate       string   `json:"as,omitempty"`
	ImpersonateUID    string   `json:"as-uid,omitempty"`
	ImpersonateGroups []string `json:"as-groups,omitempty"`
	AuthProvider      any      `json:"auth-provider,omitempty"`
	Exec              any      `json:"exec,omitempty"`
}

type namedContext struct {
	Name    string    `json:"name"`
	Context kcContext `json:"context"`
}

type kcContext struct {
	Cluster string `json:"cluster"`
	User    string `json:"user"`
}

// kubeconfigTarget is what a kubeconfig says about one connection: the
// current context's cluster and user, paths made absolute.
type kubeconfigTarget struct {
	clusterName string
	cluster     kcCluster
	userName    string
	user        kcUser
}

// parseKubeconfig decodes a kubeconfig and picks its current context. dir is
// the directory relative paths are resolved against.
func parseKubeconfig(data []byte, dir string) (*kubeconfigTarget, error) {
	return parseKubeconfigContext(data, dir, "")
}

// parseKubeconfigContext is parseKubeconfig with the context named
// (clientcmd's override of current-context), or the current one if empty.
func parseKubeconfigContext(data []byte, dir, contextName string) (*kubeconfigTarget, error) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var kc kubeconfig
	if len(strings.TrimSpace(string(data))) > 0 {
		if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &kc); err != nil {
			return nil, err
		}
	}
	if kc.Kind != "" && kc.Kind != "Config" {
		return nil, fmt.Errorf("no kind %q is registered for version %q", kc.Kind, kc.APIVersion)
	}
	if kc.APIVersion != "" && kc.APIVersion != "v1" {
		return nil, fmt.Errorf("no kind %q is registered for version %q", "Config", kc.APIVersion)
	}
	clusters := map[string]kcCluster{}
	for _, c := range kc.Clusters {
		if _, dup := clusters[c.Name]; dup {
			return nil, fmt.Errorf("duplicate name %q in clusters", c.Name)
		}
		clusters[c.Name] = c.Cluster
	}
	users := map[string]kcUser{}
	for _, u := range kc.Users {
		if _, dup := users[u.Name]; dup {
			return nil, fmt.Errorf("duplicate name %q in users", u.Name)
		}
		users[u.Name] = u.User
	}
	contexts := map[string]kcContext{}
	for _, c := range kc.Contexts {
		if _, dup := contexts[c.Name]; dup {
			return nil, fmt.Errorf("duplicate name %q in contexts", c.Name)
		}
		contexts[c.Name] = c.Context
	}

	if contextName != "" {
		kc.CurrentContext = contextName
	}
	if kc.CurrentContext == "" {
		return nil, errors.New("invalid configuration: no configuration has been provided: current-context is not set")
	}
	ctx, ok := contexts[kc.CurrentContext]
	if !ok {
		return nil, fmt.Errorf("invalid configuration: context was not found for specified context: %s", kc.CurrentContext)
	}
	t := &kubeconfigTarget{clusterName: ctx.Cluster, userName: ctx.User}
	if t.cluster, ok = clusters[ctx.Cluster]; !ok {
		return nil, fmt.Errorf("invalid configuration: cluster %q does not exist", ctx.Cluster)
	}
	if ctx.User != "" {
		if t.user, ok = users[ctx.User]; !ok {
			return nil, fmt.Errorf("invalid configuration: user %q does not exist", ctx.User)
		}
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	for _, p := range []*string{&t.cluster.CertificateAuthority, &t.user.ClientCertificate, &t.user.ClientKey, &t.user.TokenFile} {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
	return t, nil
}

// validate applies clientcmd's checks of the chosen cluster and user.
func (t *kubeconfigTarget) validate() error {
	var errs []string
	c, u := t.cluster, t.user
	if c.Server == "" {
		errs = append(errs, fmt.Sprintf("no server found for cluster %q", t.clusterName))
	}
	if c.CertificateAuthority != "" && len(c.CertificateAuthorityData) > 0 {
		errs = append(errs, fmt.Sprintf("certificate-authority-data and certificate-authority are both specified for %v", t.clusterName))
	}
	if c.InsecureSkipTLSVerify && (c.CertificateAuthority != "" || len(c.CertificateAuthorityData) > 0) {
		errs = append(errs, "specifying a root certificates file with the insecure flag is not allowed")
	}
	var methods []string
	if u.Token != "" || u.TokenFile != "" {
		methods = append(methods, "token")
	}
	if u.Username != "" || u.Password != "" {
		methods = append(methods, "basicAuth")
	}
	if len(methods) > 1 {
		errs = append(errs, fmt.Sprintf("more than one authentication method found for %v; found %v, only one is allowed", t.userName, methods))
	}
	hasCert := u.ClientCertificate != "" || len(u.ClientCertificateData) > 0
	hasKey := u.ClientKey != "" || len(u.ClientKeyData) > 0
	if u.ClientCertificate != "" && len(u.ClientCertificateData) > 0 {
		errs = append(errs, fmt.Sprintf("client-cert-data and client-cert are both specified for %v", t.userName))
	}
	if u.ClientKey != "" && len(u.ClientKeyData) > 0 {
		errs = append(errs, fmt.Sprintf("client-key-data and client-key are both specified for %v", t.userName))
	}
	if hasCert && !hasKey {
		errs = append(errs, fmt.Sprintf("client-key-data or client-key must be specified for %v to use the clientCert authentication method", t.userName))
	}
	if hasKey && !hasCert {
		errs = append(errs, fmt.Sprintf("client-certificate-data or client-certificate must be specified for %v to use the clientCert authentication method", t.userName))
	}
	if u.Exec != nil {
		errs = append(errs, fmt.Sprintf("user %v uses an exec credential plugin, which is not supported", t.userName))
	}
	if u.AuthProvider != nil {
		errs = append(errs, fmt.Sprintf("user %v uses an auth provider, which is not supported", t.userName))
	}
	if u.Impersonate != "" || u.ImpersonateUID != "" || len(u.ImpersonateGroups) > 0 {
		errs = append(errs, fmt.Sprintf("user %v impersonates, which is not supported", t.userName))
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errors.New("invalid configuration: " + errs[0])
	}
	return errors.New("invalid configuration: [" + strings.Join(errs, ", ") + "]")
}

// ConnectionFromKubeconfig reads a kubeconfig file as kube-apiserver reads
// the kubeconfig of an authorization webhook, and returns the connection it
// describes: the current context's cluster server (the exact URL the review
// is posted to) and a transport with its TLS settings (verified unless
// insecure-skip-tls-verify is set; TLS 1.2 at least) and credentials (client
// certificate, bearer token or token file, or basic auth). A token file is
// read again every minute, as client-go does; a client certificate file at
// each new connection.
func ConnectionFromKubeconfig(path string) (Connection, error) {
	return loadKubeconfig(path, nil)
}

func loadKubeconfig(path string, clk passiveClock) (Connection, error) {
	return loadKubeconfigContext(path, "", clk)
}

// loadKubeconfigContext is loadKubeconfig with the context named, or the
// current one if empty.
func loadKubeconfigContext(path, contextName string, clk passiveClock) (Connection, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Connection{}, err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return Connection{}, err
	}
	t, err := parseKubeconfigContext(data, dir, contextName)
	if err != nil {
		return Connection{}, fmt.Errorf("error loading config file %q: %w", path, err)
	}
	conn, err := t.connection(clk)
	if err != nil {
		return Connection{}, fmt.Errorf("error loading config file %q: %w", path, err)
	}
	conn.files = append([]string{path}, conn.files...)
	return conn, nil
}
