package jsonscan

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestInt32(t *testing.T) {
	tests := []struct {
		in   string
		want int32
		ok   bool
	}{
		{"0", 0, true},
		{" 400", 400, true},
		{"-17", -17, true},
		{"2147483647", 2147483647, true},
		{"-2147483648", -2147483648, true},
		{"2147483648", 0, false},
		{"-2147483649", 0, false},
		{"99999999999", 0, false},
		{"012", 0, false},
		{"-0", 0, false},
		{"-", 0, false},
		{"", 0, false},
		{"1.0", 0, false},
		{"1e3", 0, false},
		{"1E3", 0, false},
		{`"1"`, 0, false},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		got, ok := s.Int32()
		if ok != tt.ok || got != tt.want {
			t.Errorf("Int32(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok {
			var v int32
			if err := json.Unmarshal([]byte(tt.in), &v); err != nil || v != got {
				t.Errorf("encoding/json reads %q as %d, %v", tt.in, v, err)
			}
		} else if s.pos != 0 {
			t.Errorf("Int32(%q) failed but moved to %d", tt.in, s.pos)
		}
	}
}

func TestStr(t *testing.T) {
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{`"abc"`, "abc", true},
		{` "日本"`, "日本", true},
		{`""`, "", true},
		{`"a\"b"`, "", false},
		{`"a\nb"`, "", false},
		{"\"a\nb\"", "", false},
		{"\"\xff\"", "", false},
		{`"abc`, "", false},
		{`abc`, "", false},
	}
	for _, tt := range tests {
		got, ok := New([]byte(tt.in)).Str()
		if ok != tt.ok || string(got) != tt.want {
			t.Errorf("Str(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestObjectAndArray(t *testing.T) {
	s := New([]byte(" {\"a\" : [ 1 ,2], \"b\":{},\"c\":null,\"d\":[]}\r\n"))
	var keys []string
	var ints []int32
	ok := s.Object(func(key []byte) bool {
		keys = append(keys, string(key))
		switch string(key) {
		case "a", "d":
			return s.Array(func() bool {
				n, ok := s.Int32()
				ints = append(ints, n)
				return ok
			})
		case "b":
			return s.EmptyObject()
		}
		return s.Null()
	})
	if !ok || !s.End() {
		t.Fatalf("not read: ok %v, at %d", ok, s.pos)
	}
	if len(keys) != 4 || len(ints) != 2 || ints[1] != 2 {
		t.Errorf("keys %q, ints %v", keys, ints)
	}
	for _, bad := range []string{`{"a":1,}`, `{"a"}`, `[1,]`, `{"a":1`, `[1 2]`} {
		s := New([]byte(bad))
		var ok bool
		if bad[0] == '{' {
			ok = s.Object(func([]byte) bool { _, ok := s.Int32(); return ok })
		} else {
			ok = s.Array(func() bool { _, ok := s.Int32(); return ok })
		}
		if ok && s.End() {
			t.Errorf("%q read as valid", bad)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, in := range []string{
		`"abc"`, `""`, `"a\"b"`, `"\\\/\b\f\n\r\t"`, `"\u0041\u00e9\u65e5\uFFFF"`, `"日本\u0020x"`,
		`"\ud83d\ude00"`, `"\ud800"`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"a\nb\"", "\"\xff\\n\"", `"a\"`, `"\`,
	} {
		s := New([]byte(in))
		got, ok := s.Unquote()
		var want string
		err := json.Unmarshal([]byte(in), &want)
		if ok && (err != nil || string(got) != want || !s.End()) {
			t.Errorf("Unquote(%q) = %q; encoding/json: %q, %v", in, got, want, err)
		}
		if !ok && err == nil && !strings.Contains(in, `\ud`) && !strings.Contains(in, "\xff") {
			t.Errorf("Unquote(%q) failed; encoding/json reads %q", in, want)
		}
	}
}

func TestFields(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		seen []int
	}{
		{`{"a":1,"b":2}`, true, []int{0, 1}},
		{`{"b":2,"a":1}`, true, []int{1, 0}},
		{`{}`, true, nil},
		{`{"a":1,"a":2}`, false, []int{0}},
		{`{"a":1,"c":2}`, false, []int{0}},
		{`{"A":1}`, false, nil},
	}
	for _, tt := range tests {
		s := New([]byte(tt.in))
		var seen []int
		ok := s.Fields([]string{"a", "b"}, func(i int) bool {
			seen = append(seen, i)
			_, ok := s.Int32()
			return ok
		})
		if ok != tt.ok || fmt.Sprint(seen) != fmt.Sprint(tt.seen) {
			t.Errorf("Fields(%q) = %v, read %v; want %v, %v", tt.in, ok, seen, tt.ok, tt.seen)
		}
	}
}
