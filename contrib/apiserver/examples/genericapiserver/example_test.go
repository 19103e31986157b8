package main

import (
	"context"
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
	server, az, err := newServer(ctx, serverOptions{AuthorizationConfig: path})
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
	fmt.Println("reload:", az.Reloader.Check(ctx).Status)
	get("bob-token", "/hello")
	// Output:
	// alice-token GET /hello: 200
	// bob-token   GET /hello: 403
	// root-token  GET /hello: 200
	//             GET /hello: 401
	// reload: success
	// bob-token   GET /hello: 200
}
