package admissionwebhook

import (
	"reflect"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/utils/ptr"
)

// TestClientKeyCoversEveryField: clientKey reads each field of a
// clientConfig; a field added to the API type fails this test until
// clientKey reads it too.
func TestClientKeyCoversEveryField(t *testing.T) {
	for typ, fields := range map[reflect.Type][]string{
		reflect.TypeFor[admissionregistrationv1.WebhookClientConfig](): {"URL", "Service", "CABundle"},
		reflect.TypeFor[admissionregistrationv1.ServiceReference]():    {"Namespace", "Name", "Path", "Port"},
	} {
		var got []string
		for f := range typ.Fields() {
			got = append(got, f.Name)
		}
		if !reflect.DeepEqual(got, fields) {
			t.Errorf("%v has the fields %q, clientKey reads %q", typ, got, fields)
		}
	}
}

// TestClientKeyTellsConfigsApart: clientConfigs that differ, even by a
// field's presence or by where one string ends and the next begins, have
// different keys; the same config, copied, the same key.
func TestClientKeyTellsConfigsApart(t *testing.T) {
	svc := func(ns, name string, path *string, port *int32) *admissionregistrationv1.ServiceReference {
		return &admissionregistrationv1.ServiceReference{Namespace: ns, Name: name, Path: path, Port: port}
	}
	configs := []admissionregistrationv1.WebhookClientConfig{
		{},
		{URL: ptr.To("")},
		{URL: ptr.To("https://a")},
		{URL: ptr.To("https://a"), CABundle: []byte("ca")},
		{URL: ptr.To("https://a"), CABundle: []byte("cb")},
		{CABundle: []byte("ca")},
		{Service: svc("", "", nil, nil)},
		{Service: svc("ab", "c", nil, nil)},
		{Service: svc("a", "bc", nil, nil)},
		{Service: svc("a", "bc", ptr.To(""), nil)},
		{Service: svc("a", "bc", ptr.To("/p"), nil)},
		{Service: svc("a", "bc", nil, ptr.To[int32](443))},
		{Service: svc("a", "bc", nil, ptr.To[int32](-1))},
		{Service: svc("a", "bc", ptr.To("/p"), ptr.To[int32](443))},
		{Service: svc("a", "bc", ptr.To("/p"), ptr.To[int32](443)), CABundle: []byte("ca")},
		{URL: ptr.To("https://a"), Service: svc("a", "bc", nil, nil)},
	}
	seen := map[string]int{}
	for i := range configs {
		key := clientKey(&configs[i])
		if j, dup := seen[key]; dup {
			t.Errorf("configs %d and %d have the same key %q", j, i, key)
		}
		seen[key] = i
		copied := configs[i].DeepCopy()
		if got := clientKey(copied); got != key {
			t.Errorf("config %d: copy keyed %q, not %q", i, got, key)
		}
	}
	if clientKey(&admissionregistrationv1.WebhookClientConfig{CABundle: []byte{}}) != clientKey(&admissionregistrationv1.WebhookClientConfig{}) {
		t.Error("an empty caBundle is keyed apart from none")
	}
}
