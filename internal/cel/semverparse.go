//lint:file-ignore ST1005 the error messages are github.com/blang/semver/v4's, which kube-apiserver returns.

package cel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// semver is a semantic version (https://semver.org/spec/v2.0.0.html), parsed
// and compared as github.com/blang/semver/v4 (which kube-apiserver uses)
// does, with its error messages.
type semver struct {
	major, minor, patch uint64
	pre                 []prerelease
	build               []string
}

// prerelease is one dot-separated identifier of a pre-release version.
type prerelease struct {
	str     string
	num     uint64
	numeric bool
}

const (
	semverDigits   = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789"
)

func (v semver) String() string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(v.major, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.minor, 10))
	b.WriteByte('.')
	b.WriteString(strconv.FormatUint(v.patch, 10))
	for i, p := range v.pre {
		if i == 0 {
			b.WriteByte('-')
		} else {
			b.WriteByte('.')
		}
		if p.numeric {
			b.WriteString(strconv.FormatUint(p.num, 10))
		} else {
			b.WriteString(p.str)
		}
	}
	for i, m := range v.build {
		if i == 0 {
			b.WriteByte('+')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(m)
	}
	return b.String()
}

func compareUint(a, b uint64) int {
	switch {
	case a > b:
		return 1
	case a < b:
		return -1
	}
	return 0
}

// compare returns -1, 0 or 1 by semantic version precedence.
func (v semver) compare(o semver) int {
	if c := compareUint(v.major, o.major); c != 0 {
		return c
	}
	if c := compareUint(v.minor, o.minor); c != 0 {
		return c
	}
	if c := compareUint(v.patch, o.patch); c != 0 {
		return c
	}
	switch {
	case len(v.pre) == 0 && len(o.pre) == 0:
		return 0
	case len(v.pre) == 0:
		return 1
	case len(o.pre) == 0:
		return -1
	}
	for i := 0; i < len(v.pre) && i < len(o.pre); i++ {
		if c := v.pre[i].compare(o.pre[i]); c != 0 {
			return c
		}
	}
	return compareUint(uint64(len(v.pre)), uint64(len(o.pre)))
}

func (p prerelease) compare(o prerelease) int {
	switch {
	case p.numeric && !o.numeric:
		return -1
	case !p.numeric && o.numeric:
		return 1
	case p.numeric:
		return compareUint(p.num, o.num)
	}
	return strings.Compare(p.str, o.str)
}

func containsOnly(s, set string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(set, r) }) == -1
}

func hasLeadingZero(s string) bool { return len(s) > 1 && s[0] == '0' }

// parseVersionNumber parses the major, minor or patch number.
func parseVersionNumber(s, which string) (uint64, error) {
	if !containsOnly(s, semverDigits) {
		return 0, fmt.Errorf("Invalid character(s) found in %s number %q", which, s)
	}
	if hasLeadingZero(s) {
		return 0, fmt.Errorf("%s number must not contain leading zeroes %q", strings.ToUpper(which[:1])+which[1:], s)
	}
	return strconv.ParseUint(s, 10, 64)
}

// parseSemver parses a version strictly: MAJOR.MINOR.PATCH[-PRE][+BUILD].
func parseSemver(s string) (semver, error) {
	if s == "" {
		return semver{}, errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return semver{}, errors.New("No Major.Minor.Patch elements found")
	}
	var v semver
	var err error
	if v.major, err = parseVersionNumber(parts[0], "major"); err != nil {
		return semver{}, err
	}
	if v.minor, err = parseVersionNumber(parts[1], "minor"); err != nil {
		return semver{}, err
	}
	patch := parts[2]
	var build, pre []string
	if i := strings.IndexRune(patch, '+'); i != -1 {
		build = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if i := strings.IndexRune(patch, '-'); i != -1 {
		pre = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if v.patch, err = parseVersionNumber(patch, "patch"); err != nil {
		return semver{}, err
	}
	for _, p := range pre {
		parsed, err := parsePrerelease(p)
		if err != nil {
			return semver{}, err
		}
		v.pre = append(v.pre, parsed)
	}
	for _, b := range build {
		if b == "" {
			return semver{}, errors.New("Build meta data is empty")
		}
		if !containsOnly(b, semverAlphanum) {
			return semver{}, fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
		v.build = append(v.build, b)
	}
	return v, nil
}

func parsePrerelease(s string) (prerelease, error) {
	switch {
	case s == "":
		return prerelease{}, errors.New("Prerelease is empty")
	case containsOnly(s, semverDigits):
		if hasLeadingZero(s) {
			return prerelease{}, fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return prerelease{}, err
		}
		return prerelease{num: n, numeric: true}, nil
	case containsOnly(s, semverAlphanum):
		return prerelease{str: s}, nil
	}
	return prerelease{}, fmt.Errorf("Invalid character(s) found in prerelease %q", s)
}
