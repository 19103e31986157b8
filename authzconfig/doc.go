// Package authzconfig reads, checks and writes the AuthorizationConfiguration
// file of kube-apiserver 1.37 (--authorization-config; KEP-3221), giving the
// same answers and the same error texts as kube-apiserver.
//
// Configuration is the one in-memory form of the three versions of the file
// (apiserver.config.k8s.io v1alpha1, v1beta1 and v1, field for field
// identical), with the JSON names of the external versions.
//
// Decode reads YAML or JSON strictly, applies the defaults and reports errors
// with kube-apiserver's texts. It reads only the first YAML document, as
// kube-apiserver does; DecodeSingleDocument reports the others instead.
package authzconfig
