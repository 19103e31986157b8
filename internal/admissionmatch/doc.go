// Package admissionmatch decides whether an admission request goes to an
// admission webhook or an admission policy: the rules (operations, groups,
// versions, resources and subresources with their wildcards, scope), a
// policy's resourceNames and excludeResourceRules, the namespaceSelector,
// the objectSelector, matchPolicy Equivalent and the exemptions, with
// kube-apiserver 1.37's decisions, matched kind and resource, and errors.
// Match conditions are not its business: package matchcond evaluates them
// once a hook matched. It is the one implementation of matching shared by
// package mutation (policies and bindings) and package admissionmanifest
// (webhooks).
//
// # Use
//
// Compile each hook once: CompileWebhook (a webhook's rules, selectors and
// matchPolicy; ValidatingWebhookCriteria and MutatingWebhookCriteria read
// them from the API types), CompilePolicy (a policy's matchConstraints) or
// CompileBinding (a binding's matchResources). Options say whether the hook
// is static (loaded from a manifest) and which resources no hook sees. The
// compiled values are immutable and safe for concurrent use: selectors are
// parsed and rules prepared at compilation.
//
// Build one Request per admission request, with the caller's NamespaceLookup
// (the labels of a namespace) and runtime.EquivalentResourceMapper (the
// resources equivalent to the request's), and match it against each hook
// with Match, or Explain to also learn which predicate decided (Reason) and
// which rule matched. To match a request against many hooks, NewIndex puts
// them (webhooks, policies or bindings, in the caller's order) in an Index,
// whose Match skips the hooks whose rules name neither the request's
// resource, nor an equivalent one, nor "*" (such a hook can neither match
// nor fail) and reports the others that match or fail, in order.
//
// A Request reads the labels of its objects, looks up its namespace and asks
// for its equivalent resources at most once, when a hook first needs them (an Index asks for the equivalent resources of every
// request, to find the hooks that may match them). Matching allocates
// nothing unless it fails; reading the labels of an unstructured object
// copies them, once per request.
//
// # Order of checks
//
// A webhook (kube-apiserver's webhook Dispatch, then ShouldCallHook):
//  1. Exemptions: a request on an excluded resource (by group and resource)
//     goes to no webhook; a request whose kind is an admission-configuration
//     kind of admissionregistration.k8s.io (ValidatingWebhookConfiguration,
//     MutatingWebhookConfiguration, ValidatingAdmissionPolicy(Binding),
//     MutatingAdmissionPolicy(Binding)) goes only to static webhooks.
//  2. Rules: a rule matches when its scope, an operation ("*" for all), a
//     group, a version ("*" for any) and a resource match. A resource entry
//     is split at its first "/" into resource and subresource: "*" matches
//     every resource without subresource, "r/*" r and all its
//     subresources, "*/s" the subresource s of any resource, "*/*"
//     everything. Scope "Namespaced" excludes core v1 namespaces and
//     requests without a namespace; "Cluster" admits only those; nil or
//     "*" admits all; any other value nothing.
//  3. With matchPolicy Equivalent and no rule matching the request's own
//     resource: each rule, in order, against each equivalent resource; the
//     first that matches gives the resource and its kind (an unknown kind
//     is the internal error "unable to convert to <resource>: unknown
//     kind").
//  4. namespaceSelector: a request without a namespace that is not on the
//     namespaces resource always matches; a selector that does not parse is
//     an internal error; an empty one matches; a Namespace being created or
//     updated (the namespaces resource, no subresource) is selected by its
//     own labels; otherwise by the labels the NamespaceLookup returns (a
//     NotFound status is returned as is, any other error as an internal
//     error). A nil selector selects no namespace.
//  5. objectSelector: a selector that does not parse is an internal error;
//     an empty one matches; otherwise the labels of the new or of the old
//     object must match; an absent object, or one without metadata, never
//     matches. A nil selector selects nothing.
//  6. When the rules matched and both selectors matched or failed: the
//     first error of the rules (unknown kind), of the namespaceSelector, of
//     the objectSelector, in that order, fails the request; a selector that
//     did not match (without error) wins over every error.
//
// A policy or binding (the policy plugin's Dispatch, DefinitionMatches or
// BindingMatches, then policy/matching):
//  1. Exemptions: excluded resources as for webhooks; requests on the
//     resources validatingadmissionpolicies, validatingadmissionpolicybindings,
//     mutatingadmissionpolicies and mutatingadmissionpolicybindings (any
//     version, any subresource; webhook configurations are not exempt) go
//     only to static policies.
//  2. A binding without matchResources matches. A policy without
//     matchConstraints fails with "policy contained no match constraints, a
//     required field"; a nil namespaceSelector, then a nil objectSelector,
//     with "a nil namespace selector was passed, please ensure selectors
//     are initialized properly" (or object).
//  3. excludeResourceRules, as rules with resourceNames (below), with the
//     matchPolicy; a match excludes the request.
//  4. resourceRules: none matches every request with its own kind and
//     resource; otherwise as webhook rules, where a rule with resourceNames
//     also needs the request's name among them (the name is empty for a
//     create with generateName). Equivalent resources are tried unless
//     matchPolicy is nil or Exact (so an unknown matchPolicy is
//     Equivalent); the kind of an equivalent resource is looked up before
//     its names are compared, and unknown, it fails with the plain error
//     "unable to convert to <resource>: unknown kind".
//  5. namespaceSelector and objectSelector as for webhooks, and the errors
//     in the same order (rules, then namespace, then object).
//
// kube-apiserver evaluates the selectors before the rules. Since a hook
// whose rules do not match never fails, and a selector that does not match
// wins over every error, the decision, the matched kind and resource and the
// error are the same in either order; evaluating the rules first spares the
// namespace lookup of every hook whose rules do not match the request.
// Explain therefore names the rules, not a selector, when both excluded.
//
// # Differences from kube-apiserver
//
//   - The namespace is looked up once per Request, not once per hook; the
//     outcome differs only if the lookup would answer differently within one
//     request.
//   - A typed nil object (a nil *corev1.Pod in a runtime.Object) makes
//     kube-apiserver's object and namespace predicates panic; here it has no
//     labels: the objectSelector does not select it, and a Namespace being
//     created or updated as a typed nil fails with the internal error
//     "object does not implement the Object interfaces".
//   - kube-apiserver's selector conversion visits matchLabels in map order,
//     so of several invalid labels it reports one at random; so does this
//     package (it uses the same conversion), once at compilation.
//
// There is no feature gate: the exemption of the excluded resources from
// webhooks (ExcludeAdmissionWebhookVirtualResources, on by default in 1.37)
// is always on; Options.ExcludedResources can empty the list.
package admissionmatch
