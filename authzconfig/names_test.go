package authzconfig

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
)

func TestIsDNS1123Subdomain(t *testing.T) {
	for _, name := range []string{
		"", "a", "A", "0", "-", ".", "a.b", "a-b", "a--b", "a.-b", "a-.b", "a..b", ".a", "a.", "-a", "a-",
		"example.com", "kube-system.authorizer", "Bad_Name", "a b", "é", strings.Repeat("a", 253), strings.Repeat("a", 254),
		strings.Repeat("a", 63) + "." + strings.Repeat("b", 189),
	} {
		assert.Equal(t, len(utilvalidation.IsDNS1123Subdomain(name)) == 0, isDNS1123Subdomain(name), "%q", name)
	}
}

func FuzzIsDNS1123Subdomain(f *testing.F) {
	for _, s := range []string{"a", "a.b", "a-.b", "Bad_Name", "x..y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if want := len(utilvalidation.IsDNS1123Subdomain(name)) == 0; isDNS1123Subdomain(name) != want {
			t.Fatalf("isDNS1123Subdomain(%q) = %v, apimachinery says %v", name, !want, want)
		}
	})
}
