// Package admissionpolicy holds what kube-apiserver's admission policy
// plugins (MutatingAdmissionPolicy in package mutation,
// ValidatingAdmissionPolicy in package validatingpolicy) share around their
// expressions, written once: the params of a binding (ParamSource, Params,
// CollectParams with kube-apiserver's texts), the request's namespace looked
// up once (NamespaceCache), the per-request caching authorizer, the
// request's attributes and the `request` variable built from them, and the
// Converter of matchPolicy Equivalent. The engines re-export the public
// types as aliases, so one ParamSource or NamespaceLookup serves both.
package admissionpolicy
