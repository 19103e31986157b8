// Package rbac is kube-apiserver 1.37's RBAC authorizer as a library, over
// Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (k8s.io/api
// rbac/v1) that the caller supplies: from informer listers in a server
// (New), or from YAML and JSON files offline (Load, Decode, FromObjects).
//
// It gives kube-apiserver's decisions and reasons: the ClusterRoleBindings,
// then the RoleBindings of the request's namespace, each applying to the
// user through its first subject that is the User of that name, a Group of
// the user, or the user's ServiceAccount (system:serviceaccount:<ns>:<name>,
// the namespace defaulting to a RoleBinding's own); a RoleBinding may refer
// to a ClusterRole. A request is allowed by the first rule that matches its
// verb, API group, resource ("*", "resource/subresource", "*/subresource")
// and name, or its non-resource path (exact, "prefix*" or "*"), with the
// reason `RBAC: allowed by ClusterRoleBinding "admins" of ClusterRole
// "cluster-admin" to Group "ops"`. Otherwise the decision is NoOpinion, its
// reason empty or, when bindings that applied refer to roles that do not
// exist, "RBAC: " and the lister's errors (`clusterrole.rbac.authorization.k8s.io
// "x" not found`). A differential test in conformance/kubernetes checks
// decisions, reasons and errors against kube-apiserver's own authorizer on
// a generated corpus.
//
// # Indexed
//
// kube-apiserver lists every ClusterRoleBinding, and every RoleBinding of
// the namespace, on every request. Here the bindings are indexed once, by
// the user names and groups their subjects apply to, with their roles
// resolved and their reasons written: a decision reads the few bindings
// that apply to the user, and costs the same with 10 or 10,000 bindings.
// The index is rebuilt by Sync (from the listers) or Update (from objects)
// and swapped in atomically while requests go on.
//
// # Aggregation, explanation, review
//
// Aggregate computes aggregated ClusterRoles as kube-controller-manager
// does; the Authorizer applies it to its objects unless told not to.
// Explain says which binding, subject, role and rule allowed a request, and
// which bindings applied; the authorizer also gives these details to
// authorizer.Explain when it sits in a chain. RulesFor and
// SubjectRulesReview say what a user may do in a namespace (kubectl auth
// can-i --list); WhoCan and AllowedSubjects say who may make a request.
//
// # In a chain
//
// authorizer.New takes the authorizer for the entries of type RBAC of an
// AuthorizationConfiguration through Options.Authorizers["RBAC"]. The Node
// authorizer stays the caller's: it decides from the graph of pods,
// volumes, attachments and service accounts bound to each node, which needs
// those objects' informers, not RBAC's.
//
// # Differences from kube-apiserver
//
//   - Order: kube-apiserver asks bindings in the order its informer's
//     lister returns them, the order of a Go map, which changes from one
//     request to the next: when several bindings allow a request, which one
//     its reason names is left to chance, as is the order of the errors in a
//     reason. Here the ClusterRoleBindings are asked in name order, and the
//     RoleBindings of a namespace too, so the answer is always the same;
//     it is one of those kube-apiserver may give.
//   - Freshness: kube-apiserver reads its listers on every request; an
//     Authorizer built by New reads them at each Sync.
//   - A request without a user (nil Attributes or User) is NoOpinion with
//     the error "no user on request."; kube-apiserver's authorizer
//     dereferences the missing user and panics.
//   - AllowedSubjects lists each subject once. kube-apiserver's subject
//     locator builds the list without duplicates and then returns the one
//     with them.
//   - ClusterRoles with an aggregationRule get the rules the aggregation
//     controller would give them (Options.SkipAggregation turns this off);
//     kube-apiserver reads what the controller last wrote.
//   - FromObjects and Update refuse two objects of one kind with the same
//     name (and namespace), which a cluster cannot hold.
package rbac
