// Package admissionvalidation holds the rules of kube-apiserver's REST
// validation (pkg/apis/admissionregistration/validation) that the
// admissionregistration.k8s.io kinds share: rules with operations, match
// resources, paramKind, paramRef and the names of variables. Package
// admissionmanifest validates webhook configurations and validating
// admission policies with them, package mutation mutating admission
// policies. Field errors are kube-apiserver's: type, path, value and detail.
package admissionvalidation
