package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
)

// The server answers through its handler chain (authentication, then
// gatehouse's authorization), without a listener; a change of the
// configuration file is applied at once.
func Example() {
	dir, err := os.MkdirTemp("", "genericapiserver")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "authorization-config.yaml")
	original, err := os.ReadFile("authorization-config.yaml")
	if err != nil {
		panic(err)
	}
	if err := os.WriteFile(path, original, 0o600); err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server, err := newServer(ctx, serverOptions{AuthorizationConfig: path})
	if err != nil {
		panic(err)
	}

	get := func(token, path string) {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		server.Handler.ServeHTTP(rec, req)
		fmt.Printf("%-11s GET %s: %d\n", token, path, rec.Code)
	}
	get("alice-token", "/hello")
	get("bob-token", "/hello")
	get("root-token", "/hello")
	get("", "/hello")

	// Allow everything that RBAC does not: the chain follows the file.
	allowAll := strings.Replace(string(original), "- type: AlwaysDeny", "- type: AlwaysAllow\n  name: alwaysallow\n- type: AlwaysDeny", 1)
	if err := os.WriteFile(path, []byte(allowAll), 0o600); err != nil {
		panic(err)
	}
	fmt.Println("reload:", server.Authorizer.Reloader.Check(ctx).Status)
	get("bob-token", "/hello")
	// Output:
	// alice-token GET /hello: 200
	// bob-token   GET /hello: 403
	// root-token  GET /hello: 200
	//             GET /hello: 401
	// reload: success
	// bob-token   GET /hello: 200
}

// Creating widgets goes through the server's admission chain: gatehouse's
// chain of the static manifests directories under admission/, where a
// mutating policy colors widgets blue and a validating policy denies big
// ones; removing a policy's file takes it out at the next check.
func Example_admission() {
	dir, err := os.MkdirTemp("", "genericapiserver")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for _, sub := range []string{"MutatingAdmissionPolicy", "ValidatingAdmissionPolicy"} {
		if err := os.CopyFS(filepath.Join(dir, sub), os.DirFS(filepath.Join("admission", sub))); err != nil {
			panic(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	server, err := newServer(ctx, serverOptions{AuthorizationConfig: "authorization-config.yaml", AdmissionManifests: dir})
	if err != nil {
		panic(err)
	}

	create := func(name string, size int) {
		body := fmt.Sprintf(`{"apiVersion":"example.gatehouse.dev/v1","kind":"Widget","metadata":{"name":%q},"spec":{"size":%d}}`, name, size)
		req := httptest.NewRequest(http.MethodPost, "/apis/example.gatehouse.dev/v1/namespaces/default/widgets", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer alice-token")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		server.Handler.ServeHTTP(rec, req)
		var answer struct {
			Message string
			Spec    struct{ Color string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			panic(err)
		}
		fmt.Printf("create %s (size %d): %d %s%s\n", name, size, rec.Code, answer.Spec.Color, answer.Message)
	}
	create("small", 3)
	create("big", 50)

	if err := os.Remove(filepath.Join(dir, "ValidatingAdmissionPolicy", "widget-size.yaml")); err != nil {
		panic(err)
	}
	for _, ev := range server.Admission.Reloader.Check() {
		fmt.Println("reload:", ev.Plugin, ev.Status)
	}
	create("big", 50)
	// Output:
	// create small (size 3): 201 blue
	// create big (size 50): 422 widgets.example.gatehouse.dev "big" is forbidden: ValidatingAdmissionPolicy 'widget-size.static.k8s.io' with binding 'widget-size.static.k8s.io' denied request: a widget is at most 10 in size, not 50
	// reload: ValidatingAdmissionPolicy success
	// create big (size 50): 201 blue
}
