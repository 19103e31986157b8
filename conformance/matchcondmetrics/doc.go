// Package matchcondmetrics compares the match condition metrics of
// gatehouse and kube-apiserver. It is a package of its own because it reads
// kube-apiserver's process-wide metrics registry.
package matchcondmetrics
