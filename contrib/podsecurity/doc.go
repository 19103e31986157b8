// Package podsecurity is kube-apiserver's PodSecurity admission plugin
// (Pod Security Admission, KEP-2579) for gatehouse's admission chain: a
// Plugin is an admission.Validator that admission.Options.PodSecurity
// takes, and the chain runs it where kube-apiserver does, first in the
// validating phase, on the admitted object.
//
// The checks are kube's own: k8s.io/pod-security-admission's policy
// package (policy.NewEvaluator over policy.DefaultChecks, the evaluator
// kube-apiserver runs), and its api package for levels, versions and
// labels. The plugin around them is this package's: the namespace's policy
// from its labels (pod-security.kubernetes.io/enforce, audit, warn and their
// -version) over the PodSecurityConfiguration's defaults, the exemptions
// (usernames, runtimeClasses, namespaces), which requests are looked at and
// how:
//
//   - pods, on CREATE and on an UPDATE that changes an image or adds a
//     container (kube ignores the others), and on their subresources but
//     exec, attach, binding, eviction, log, portforward, proxy and status
//     (so ephemeralcontainers is evaluated): the enforce level denies with
//     kube-apiserver's status (403 Forbidden, `pods "x" is forbidden:
//     violates PodSecurity "restricted:latest": ...`);
//   - the pod templates of Deployments, ReplicaSets, StatefulSets,
//     DaemonSets, Jobs, CronJobs, ReplicationControllers and PodTemplates:
//     warnings and audit annotations only, never a denial;
//   - Namespaces: labels that do not parse are denied (422 Invalid, with
//     kube's field errors) on CREATE and on an UPDATE that changes them; an
//     UPDATE that tightens the enforce level warns of the existing pods that
//     violate it when Options.Pods can list them (nothing without it); an
//     exempt namespace labelled with a policy is warned that it is ignored;
//   - the warn level warns ("would violate PodSecurity ..."), the audit
//     level annotates (pod-security.kubernetes.io/audit-violations), the
//     evaluated enforce policy is annotated
//     (pod-security.kubernetes.io/enforce-policy), an exempt request says why
//     (pod-security.kubernetes.io/exempt: user, namespace or runtimeClass),
//     and labels that do not parse are annotated
//     (pod-security.kubernetes.io/error) and fall back as kube's do.
//
// The Kubernetes version is Options.Kube's: "latest" means that version's
// minor (a 1.35 target evaluates "latest" with 1.35's checks), and a
// -version label newer than it is evaluated as that kube-apiserver evaluates
// it, with its newest checks, while the messages keep the label's words
// ("restricted:v1.38"). This is how kube-apiserver 1.37 emulates an older
// version, and the checks of v0.37.2 at 1.35 and 1.36 are those
// kube-apiserver 1.35 and 1.36 ship (their policy packages differ from
// v0.37.2's only by 1.37's two sysctls).
//
// The configuration is a PodSecurityConfiguration
// (pod-security.admission.config.k8s.io/v1; v1beta1 and v1alpha1 read
// alike): Decode or ReadFile for a file of its own,
// FromAdmissionConfiguration or ReadAdmissionConfiguration for the
// PodSecurity entry of an AdmissionConfiguration (embedded, or by path);
// New checks it as kube-apiserver does at start, with its errors; Validate
// gives kube's field errors.
//
// What is not matched:
//   - 1.38's checks: they are v0.37.2's. 1.38's beta ships the same policy
//     package (no check with a minimum version of 1.38); a 1.38 check added
//     later would be missing until this module moves to v0.38.
//   - The wording of decoding errors of a PodSecurityConfiguration that is
//     not one (a scheme's name appears in apimachinery's "not registered"
//     messages), and the AdmissionConfiguration around it, which is read
//     leniently here (admissionmanifest reads it strictly).
//   - kube's pod_security_* metrics (evaluations, exemptions, errors) are
//     not recorded; the chain records the admission controller metric of
//     the plugin PodSecurity.
//   - Objects are read from their unstructured form into the v1 types
//     (apps/v1, batch/v1, core/v1); kube-apiserver converts from its
//     internal types, having defaulted them. Defaults the checks read
//     (none of the pod fields they look at has a default that changes a
//     result) are the caller's to set.
//   - The existing pods' check stops after one second of the real clock
//     (or half the context's remaining time), as kube's; its outcome on a
//     slow lister depends on the machine.
package podsecurity
