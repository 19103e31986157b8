// Package authzconfig reads, checks and writes the AuthorizationConfiguration
// file of kube-apiserver 1.37 (--authorization-config, KEP-3221), giving the
// answers and the error texts kube-apiserver gives.
//
// Configuration is the one in-memory form of the three versions of the file
// (apiserver.config.k8s.io v1alpha1, v1beta1 and v1, which are field for
// field identical), with the JSON names of the external versions.
//
// # Reading
//
// Decode reads YAML or JSON strictly: unknown, duplicate and wrong-case
// fields are errors, with kube-apiserver's texts for those and for a missing
// apiVersion or kind, an unknown group, version or kind, another kind of the
// group, a wrong type, a bad duration or a YAML syntax error. It applies the
// version's defaults: authorizedTTL 5m and unauthorizedTTL 30s when zero
// (an explicit 0s too), the cache switches true when absent. Empty data
// gives an empty configuration (which Validate rejects), as in kube-apiserver.
// Files in plain block YAML with known, well-typed fields (the usual case)
// are read by a fast path about ten times faster than kube-apiserver's
// decoder; anything else, and every error, goes through a decoder that
// follows kube-apiserver's step by step with the same libraries.
//
// A YAML stream of several documents: Decode reads the first and ignores the
// others, as kube-apiserver does. DecodeSingleDocument reports the others as
// an error, for tools that want to catch a file that does not mean what its
// author thinks.
//
// # Checking
//
// Validate applies kube-apiserver's rules and returns a field.ErrorList whose
// errors (type, field path, value, detail) and whose ToAggregate text are
// kube-apiserver's, quirks included: a webhook's field errors are reported
// under the authorizer's path without ".webhook", the failurePolicy values
// are listed unsorted, and an unsupported connection type prints the whole
// connection info. Match conditions are compiled with kube-apiserver's CEL
// environment (package matchcond), and ValidateAndCompile hands the compiled
// matchers back with the configuration, so that the authorizer chain need
// not compile them again. The caller chooses the known and repeatable
// authorizer types, may fake or skip the kubeconfig file checks, may reject
// InClusterConfig, and should pass a compiler it keeps; see ValidateOptions.
//
// DecodeAndValidate is what kube-apiserver runs on its file at startup and
// on every reload, its own checks included (non-webhook authorizers named
// after their lowercased type; the reload rules), with the error text it
// reports. ValidateReload checks the reload rules alone.
//
// # The legacy flags
//
// Flags, ParseFlags and Flags.Validate handle the --authorization-mode and
// --authorization-webhook-* flags with kube-apiserver's messages, including
// their exclusion of --authorization-config. FromFlags translates them into
// the configuration kube-apiserver builds from them, and Encode writes a
// configuration as a YAML file, so that migrating from the flags to a file is
// ParseFlags, FromFlags and Encode.
//
// # Kubernetes versions
//
// ValidateOptions.Kube validates as kube-apiserver 1.35, 1.36, 1.37 (the
// zero Target) or 1.38's beta: the match conditions compile in the
// version's stored-expressions environment (includes() from 1.37) and
// cel-go (duration(size(x)) compiles before 1.37, and literal duration(5)
// fails there with "invalid duration argument"). The three served
// versions of the file and every other rule are the same in these
// versions; conformance's TestAuthzConfigMatchesKubeAPIServerPerVersion
// checks 1,522 configurations against each version's k8s.io/apiserver
// (1.35, 1.36, 1.37). 1.38's webhook conditionsReview (conditional
// authorization, v1 only) is read by DecodeFor and LoadFor at 1.38 and
// validated with kube-apiserver 1.38's errors (its gate
// ConditionalAuthorization, off by default, first); before 1.38, and by
// Decode, it is an unknown field. The conditional exchange itself is not
// made by package authorizer.
//
// # Differences from kube-apiserver
//
// kube-apiserver prints the validation errors of its file through
// fmt.Errorf(text), so that a '%' in a value (a name, a path, an expression)
// is read as a formatting verb and garbled ("100%!d(MISSING)").
// DecodeAndValidate keeps the text as it is.
//
// kube-apiserver accepts connectionInfo.type InClusterConfig in validation,
// then dereferences the absent kubeconfig path when it builds the webhook,
// and crashes. Validate accepts it too, as kube-apiserver's validation does;
// ValidateOptions.RejectInClusterConfig turns it into a validation error for
// servers that cannot call a webhook in-cluster.
//
// Decoding errors are plain errors with kube-apiserver's texts, not
// apimachinery's typed errors: runtime.IsStrictDecodingError and
// runtime.IsMissingKind do not recognize them.
package authzconfig
