package mutationpatch

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// FuzzApplyBounded checks the runs applyBounded applies a patch in, and the
// copy sizes it counts, against json-patch applying the whole patch at once
// with its own bound set as kube-apiserver sets it: the same document or
// the same error.
func FuzzApplyBounded(f *testing.F) {
	jsonpatch.AccumulatedCopySizeLimit = MaxCopyBytes // this test binary only
	doc := `{"a":{"b":[1,2.50,"<&>",{"c":null}],"d":"x"},"e":[]}`
	f.Add([]byte(doc), []byte(`[{"op":"copy","from":"/a","path":"/e/-"},{"op":"add","path":"/a/d","value":1}]`))
	f.Add([]byte(doc), []byte(`[{"op":"copy","from":"/a/b/3","path":"/f"},{"op":"test","path":"/f/c","value":null},{"op":"copy","from":"/nope","path":"/g"}]`))
	f.Add([]byte(doc), []byte(`[{"op":"copy","from":"a/b","path":"/a/b/-1"},{"op":"move","from":"/a","path":"/z"},{"op":"copy","from":"/z/b/-1","path":"/y"}]`))
	f.Add([]byte(doc), []byte(`[{"op":"replace","path":"","value":null},{"op":"copy","from":"/a","path":"/b"}]`))
	f.Add([]byte(doc), []byte(copyBomb(20)))
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		p, err := jsonpatch.DecodePatch(patch)
		if err != nil || len(p) > 64 {
			return
		}
		want, wantErr := func() (out []byte, err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("panic: %v", r)
				}
			}()
			return p.Apply(doc)
		}()
		got, gotErr := applyBounded(p, doc)
		var pe *panicError
		switch {
		case errors.As(gotErr, &pe):
			if wantErr == nil || !strings.HasPrefix(wantErr.Error(), "panic: ") {
				t.Fatalf("panic error %v, json-patch: %v", gotErr, wantErr)
			}
		case (wantErr == nil) != (gotErr == nil):
			t.Fatalf("errors %v and %v", gotErr, wantErr)
		case wantErr != nil:
			if wantErr.Error() != gotErr.Error() {
				t.Fatalf("error %q, json-patch's %q", gotErr, wantErr)
			}
		case !bytes.Equal(want, got) && !jsonpatch.Equal(want, got):
			t.Fatalf("document %s, json-patch's %s", got, want)
		}
	})
}

func copyBomb(n int) string {
	var b strings.Builder
	b.WriteString(`[{"op":"add","path":"/x","value":{"s":"` + strings.Repeat("x", 100) + `"}}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"op":"copy","from":"/x","path":"/x/c%d"}`, i)
	}
	b.WriteString("]")
	return b.String()
}
