package authzconfig

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yamlv2 "go.yaml.in/yaml/v2"
)

// checkSingleDocument reports a second YAML document that is not empty. It
// uses the YAML parser kube-apiserver reads the first document with.
func checkSingleDocument(data []byte) error {
	dec := yamlv2.NewDecoder(bytes.NewReader(data))
	for n := 1; ; n++ {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if n == 1 {
			// The first document decoded already.
			continue
		}
		if err != nil {
			return fmt.Errorf("YAML document %d: %w", n, err)
		}
		if doc != nil {
			return fmt.Errorf("the data holds more than one YAML document (document %d is not empty); kube-apiserver would read only the first and ignore the others", n)
		}
	}
}
