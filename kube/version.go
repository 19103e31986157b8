package kube

import (
	"fmt"
	"strconv"
	"strings"
)

// Version is a minor version of Kubernetes 1.
type Version struct {
	minor int
}

// The versions gatehouse answers for.
var (
	V1_35 = Version{35}
	V1_36 = Version{36}
	V1_37 = Version{37}
	// V1_38 answers as 1.38's beta (k8s.io/apiserver v0.38.0-beta.0).
	V1_38 = Version{38}
)

// versions are the supported versions, oldest first, with the release each
// answers as.
var versions = []struct {
	v       Version
	release string
	beta    bool
}{
	{V1_35, "1.35.4", false},
	{V1_36, "1.36.3", false},
	{V1_37, "1.37.2", false},
	{V1_38, "1.38.0-beta.0", true},
}

// SupportedVersions returns the versions gatehouse answers for, oldest
// first.
func SupportedVersions() []Version {
	out := make([]Version, len(versions))
	for i, r := range versions {
		out[i] = r.v
	}
	return out
}

// LatestVersion is the newest released version gatehouse answers for: a
// zero Target's.
func LatestVersion() Version { return V1_37 }

// ParseVersion parses a Kubernetes version: "1.36", "v1.36", or a release
// of it ("1.36.3", "v1.38.0-beta.0"), whose patch and pre-release are
// ignored. A version gatehouse does not answer for is an error naming those
// it does.
func ParseVersion(s string) (Version, error) {
	in := s
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "1" {
		return Version{}, fmt.Errorf("%q is not a Kubernetes version (such as 1.36): %s", in, supportedText())
	}
	for _, p := range parts[1:] {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			return Version{}, fmt.Errorf("%q is not a Kubernetes version (such as 1.36): %s", in, supportedText())
		}
	}
	minor, _ := strconv.Atoi(parts[1])
	v := Version{minor}
	if !v.Supported() {
		return Version{}, fmt.Errorf("unsupported Kubernetes version %s: %s", v, supportedText())
	}
	return v, nil
}

// MustParseVersion is ParseVersion for constants; it panics on error.
func MustParseVersion(s string) Version {
	v, err := ParseVersion(s)
	if err != nil {
		panic(err)
	}
	return v
}

func supportedText() string {
	names := make([]string, len(versions))
	for i, r := range versions {
		names[i] = r.v.String()
		if r.beta {
			names[i] += " (beta)"
		}
	}
	return "gatehouse answers for Kubernetes " + strings.Join(names, ", ")
}

// Supported tells whether gatehouse answers for v.
func (v Version) Supported() bool {
	for _, r := range versions {
		if r.v == v {
			return true
		}
	}
	return false
}

// IsZero tells the zero Version, which no Target has: a zero Target is at
// LatestVersion.
func (v Version) IsZero() bool { return v.minor == 0 }

// String is "1.36".
func (v Version) String() string { return fmt.Sprintf("1.%d", v.minor) }

// Release is the release of kube-apiserver whose packages gatehouse checks
// its answers for v against ("1.36.3", "1.38.0-beta.0"); "" for an
// unsupported version.
func (v Version) Release() string {
	for _, r := range versions {
		if r.v == v {
			return r.release
		}
	}
	return ""
}

// Minor is the minor version number (36 for 1.36).
func (v Version) Minor() int { return v.minor }

// Compare returns -1, 0 or 1 as v is older than, the same as or newer than
// w.
func (v Version) Compare(w Version) int {
	switch {
	case v.minor < w.minor:
		return -1
	case v.minor > w.minor:
		return 1
	}
	return 0
}

// AtLeast tells whether v is w or newer.
func (v Version) AtLeast(w Version) bool { return v.minor >= w.minor }
