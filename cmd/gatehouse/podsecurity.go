package main

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"

	"github.com/gatehouse-dev/gatehouse/admission"
	"github.com/gatehouse-dev/gatehouse/contrib/podsecurity"
)

// podSecurity is kube-apiserver's PodSecurity plugin for the chain of o,
// over its namespaces (their pod-security.kubernetes.io labels), as
// kube-apiserver enables it by default: with the configuration of file, a
// PodSecurityConfiguration or an AdmissionConfiguration with a PodSecurity
// entry, or the default one (everything privileged) when file is "".
func podSecurity(file string, o admission.Options) (admission.Validator, error) {
	cfg := podsecurity.DefaultConfiguration()
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if yaml.Unmarshal(data, &head) == nil && head.Kind == "AdmissionConfiguration" {
			cfg, err = podsecurity.FromAdmissionConfiguration(data, filepath.Dir(file))
		} else {
			cfg, err = podsecurity.Decode(data)
		}
		if err != nil {
			return nil, err
		}
	}
	p, err := podsecurity.New(cfg, podsecurity.Options{Kube: o.Kube, Namespaces: o.Namespaces})
	if err != nil {
		return nil, err
	}
	return p, nil
}
