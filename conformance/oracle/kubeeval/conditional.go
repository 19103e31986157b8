//go:build !k8s138

package kubeeval

import "github.com/gatehouse-dev/gatehouse/conformance/oracle/protocol"

// conditional answers OpConditional: before 1.38 the decisions cannot be
// conditional (1.37 has the types but no authorizer that answers
// conditionally, and its validation of conditions differs); only the 1.38
// oracle answers.
func conditional(protocol.Query) protocol.Answer {
	return protocol.Answer{Error: "op conditional needs the Kubernetes 1.38 oracle"}
}

// conditionalWebhook answers OpConditionalWebhook: 1.38 only.
func conditionalWebhook(*protocol.ConditionalWebhookQuery) protocol.Answer {
	return protocol.Answer{Error: "op conditionalwebhook needs the Kubernetes 1.38 oracle"}
}

// conditionsEnforcer answers OpConditionsEnforcer: 1.38 only.
func conditionsEnforcer(protocol.Query) protocol.Answer {
	return protocol.Answer{Error: "op conditionsenforcer needs the Kubernetes 1.38 oracle"}
}
