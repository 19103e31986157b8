package admissionmanifest

import (
	"reflect"
	"testing"
)

var splitSeeds = []string{
	"a: 1\n", "a: 1\r\nb: 2\r\n", "a: 1\rb: 2", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n--- # c\nb: 2", "a: 1\n--- x\n",
	"a: 1\n----\n", "\n\n---\n\n", "---\n---\n", "  ---\n", "a: ---\n", "", "\n", "a: 1", "# c\n---\n# d",
}

// TestSplitDocumentsAsTheReader: the shortcut for files without
// separators splits as apimachinery's reader does.
func TestSplitDocumentsAsTheReader(t *testing.T) {
	for _, s := range splitSeeds {
		checkSplit(t, []byte(s))
	}
}

func FuzzSplitDocuments(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkSplit)
}

func checkSplit(t *testing.T, data []byte) {
	got, gotErr := splitDocuments(nil, "f", data)
	want, wantErr := splitDocumentsWithReader(nil, "f", data)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: split %q (%v), the reader %q (%v)", data, got, gotErr, want, wantErr)
	}
}
