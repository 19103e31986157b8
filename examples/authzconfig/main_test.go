package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gatehouse-dev/gatehouse/authzconfig"
)

func TestSamples(t *testing.T) {
	opts := authzconfig.ValidateOptions{SkipFileChecks: true}
	assert.False(t, report(published, opts), "kube-apiserver rejects the published sample")
	assert.True(t, report(corrected, opts), "the corrected sample is valid")
}
