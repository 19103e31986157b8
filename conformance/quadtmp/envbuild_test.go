package quad

import (
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/ext"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
)

func BenchmarkKubeEnv(b *testing.B) {
	environment.DisableBaseEnvSetCachingForTests()
	for b.Loop() {
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()).StoredExpressionsEnv()
	}
}

func opts() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		library.URLs(), library.Regex(),
		cel.CostEstimatorOptions(checker.PresenceTestHasCost(false)),
		library.Authz(),
		cel.CrossTypeNumericComparisons(true),
		cel.OptionalTypes(),
		library.Quantity(),
		cel.ASTValidators(
			cel.ValidateDurationLiterals(),
			cel.ValidateTimestampLiterals(),
			cel.ValidateRegexLiterals(),
			cel.ValidateHomogeneousAggregateLiterals(),
		),
		ext.Strings(ext.StringsVersion(2)),
		ext.Sets(),
		library.IP(), library.CIDR(), library.Format(), library.AuthzSelectors(),
		ext.TwoVarComprehensions(),
		library.SemverLib(library.SemverVersion(1)),
		ext.Lists(ext.ListsVersion(3)),
		library.Lists(library.ListsVersion(1)),
	}
}

func BenchmarkOneEnv(b *testing.B) {
	for b.Loop() {
		if _, err := cel.NewEnv(opts()...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOneEnvLazy(b *testing.B) {
	for b.Loop() {
		o := opts()
		o[1] = cel.EagerlyValidateDeclarations(false)
		if _, err := cel.NewEnv(o...); err != nil {
			b.Fatal(err)
		}
	}
}
func BenchmarkStdOnly(b *testing.B) {
	for b.Loop() {
		if _, err := cel.NewEnv(cel.EagerlyValidateDeclarations(true)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCelGoOnly(b *testing.B) {
	for b.Loop() {
		o := opts()
		var keep []cel.EnvOption
		for i, x := range o {
			switch i {
			case 3, 4, 6, 9, 13, 14, 15, 16, 18, 20:
				continue
			}
			keep = append(keep, x)
		}
		if _, err := cel.NewEnv(keep...); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEach(b *testing.B) {
	names := []string{"homog", "eager", "utc", "urls", "regex", "costest", "authz", "crosstype", "optional", "quantity", "validators", "strings", "sets", "ip", "cidr", "format", "authzsel", "twovar", "semver", "extlists", "k8slists"}
	for i, n := range names {
		b.Run(n, func(b *testing.B) {
			for b.Loop() {
				if _, err := cel.NewEnv(opts()[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
