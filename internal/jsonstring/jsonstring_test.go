package jsonstring

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "<>&", "\"\\", "\b\f\n\r\t", "\x00\x01\x1f\x7f", "\u2028\u2029", "é日本🎉", "\xff", "a\xc3", "\xed\xa0\x80", "\ufffd", "\xf4\x90\x80\x80"} {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(Append(nil, s)), "%q", s)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "<a>", "\u2028", "\xff\xfe", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append(nil, s); !bytes.Equal(want, got) {
			t.Fatalf("%q: encoding/json %s, Append %s", s, want, got)
		}
	})
}
