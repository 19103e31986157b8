package protocol

import (
	"encoding/json"
	"strings"
	"sync"
)

// ConditionalWebhookServer is the scripted server of a
// ConditionalWebhookQuery, shared by the oracle and the tests: it answers
// each review body as the query says and records what was posted. It is
// safe for concurrent use.
type ConditionalWebhookServer struct {
	Query *ConditionalWebhookQuery

	mu            sync.Mutex
	sar, acr, uid string
}

// Answer is the answer to a posted review: ACRAnswer (with the request's
// uid for {{uid}}) to an AuthorizationConditionsReview, SARAnswer to
// anything else.
func (s *ConditionalWebhookServer) Answer(body []byte) []byte {
	var review struct {
		Kind    string `json:"kind"`
		Request struct {
			AdmissionRequest struct {
				UID string `json:"uid"`
			} `json:"admissionRequest"`
		} `json:"request"`
	}
	_ = json.Unmarshal(body, &review)
	s.mu.Lock()
	defer s.mu.Unlock()
	if review.Kind == "AuthorizationConditionsReview" {
		s.uid = review.Request.AdmissionRequest.UID
		s.acr = strings.ReplaceAll(string(body), s.uid, "{{uid}}")
		return []byte(strings.ReplaceAll(string(s.Query.ACRAnswer), "{{uid}}", s.uid))
	}
	s.sar = string(body)
	return s.Query.SARAnswer
}

// Record sets a's requests to those posted, and replaces the conditions
// review's uid in a.Error by {{uid}}.
func (s *ConditionalWebhookServer) Record(a *ConditionalWebhookAnswer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a.SARRequest, a.ACRRequest = s.sar, s.acr
	if s.uid != "" {
		a.Error = strings.ReplaceAll(a.Error, s.uid, "{{uid}}")
	}
}
