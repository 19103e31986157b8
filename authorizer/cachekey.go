package authorizer

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// The decision cache key of kube-apiserver is json.Marshal of the v1
// SubjectAccessReviewSpec. appendCacheKey writes a key that tells apart
// exactly the requests that key tells apart, without JSON: strings are
// length-prefixed, and each byte of invalid UTF-8 becomes 0xFF (a byte valid
// UTF-8 never contains), because encoding/json writes every such byte as the
// same \ufffd escape. What the JSON key omits (empty strings, empty group
// lists, requirements dropped in translation, a nil or empty extra map) is
// written as empty here too, and what it distinguishes (a nil extra value,
// "null", from an empty one, "[]") is distinguished.

const (
	keyResource    = 'R'
	keyNonResource = 'N'
	keyNilList     = 0xFF // marks a nil extra value; lengths below are uvarints
)

// attributeSizeLimit is kube-apiserver's maxControlledAttrCacheSize: a
// request whose controlled attributes sum to this many bytes or more is not
// cached.
const attributeSizeLimit = 10000

// cacheable reports whether kube-apiserver would store the decision for a.
// The user, groups and extra are not counted.
func cacheable(a *Attributes) bool {
	size := len(a.Namespace) + len(a.Verb) + len(a.APIGroup) + len(a.APIVersion) +
		len(a.Resource) + len(a.Subresource) + len(a.Name) + len(a.Path)
	return size < attributeSizeLimit
}

// appendCacheKey appends a's key. It first writes every string as it is,
// then checks the whole key for a byte outside ASCII in one pass: if there
// is none, every string was ASCII (so valid UTF-8, written as the exact
// path writes it), every length was below 128 and no nil list was marked,
// and the key is the exact one. Otherwise the key is written again by the
// exact path, which checks each string. Requests are nearly always ASCII:
// one pass over the key replaces a UTF-8 check per string.
func appendCacheKey(dst []byte, a *Attributes) []byte {
	start := len(dst)
	dst = appendCacheKeyFast(dst, a)
	if isASCII(dst[start:]) {
		return dst
	}
	return appendCacheKeyOf(dst[:start], a, true)
}

// appendCacheKeyFast writes a's key as appendCacheKeyOf does when every
// string is ASCII and every length and count is below 128, straight, with
// one byte per length. Any other key it writes differently but with a byte
// of 0x80 or above, which sends appendCacheKey to the exact path: a length or
// count of 128 or more is written as 0x80, the strings as they are, a nil
// extra value as keyNilList.
func appendCacheKeyFast(dst []byte, a *Attributes) []byte {
	if a.ResourceRequest {
		dst = append(dst, keyResource)
		dst = appendFast(dst, a.Namespace)
		dst = appendFast(dst, a.Verb)
		dst = appendFast(dst, a.APIGroup)
		dst = appendFast(dst, a.APIVersion)
		dst = appendFast(dst, a.Resource)
		dst = appendFast(dst, a.Subresource)
		dst = appendFast(dst, a.Name)
		if len(a.FieldSelector) == 0 && len(a.LabelSelector) == 0 {
			dst = append(dst, 0, 0)
		} else {
			dst = appendSelectorsFast(dst, a)
		}
	} else {
		dst = append(dst, keyNonResource)
		dst = appendFast(dst, a.Path)
		dst = appendFast(dst, a.Verb)
	}
	u := a.User
	if u == nil {
		return append(dst, 0, 0, 0, 0)
	}
	dst = appendFast(dst, u.Name)
	dst = appendFast(dst, u.UID)
	dst = append(dst, fastLen(len(u.Groups)))
	for _, g := range u.Groups {
		dst = appendFast(dst, g)
	}
	if len(u.Extra) == 0 {
		return append(dst, 0)
	}
	// Extra values are rare: the exact path's code, with its UTF-8 checks
	// off, writes them as the fast path would.
	start := len(dst)
	dst = appendCacheKeyOf(dst, &Attributes{User: &User{Extra: u.Extra}}, false)
	return append(dst[:start], dst[start+6:]...) // less its "N", path, verb, name, uid and groups
}

// appendSelectorsFast writes the selectors' part of the key for
// appendCacheKeyFast.
func appendSelectorsFast(dst []byte, a *Attributes) []byte {
	n := 0
	for _, r := range a.FieldSelector {
		if _, ok := fieldOperator(r.Operator); ok {
			n++
		}
	}
	dst = append(dst, fastLen(n))
	for _, r := range a.FieldSelector {
		if op, ok := fieldOperator(r.Operator); ok {
			dst = appendFast(dst, r.Field)
			dst = append(dst, op[0])
			dst = appendFast(dst, r.Value)
		}
	}
	n = 0
	for _, r := range a.LabelSelector {
		if _, ok := labelOperator(r.Operator); ok {
			n++
		}
	}
	dst = append(dst, fastLen(n))
	for _, r := range a.LabelSelector {
		if op, ok := labelOperator(r.Operator); ok {
			dst = appendFast(dst, r.Key)
			dst = append(dst, op[0])
			dst = append(dst, fastLen(len(r.Values)))
			for _, v := range r.Values {
				dst = appendFast(dst, v)
			}
		}
	}
	return dst
}

// fastLen is a length or count as one byte of the fast key: itself below
// 128, 0x80 (not ASCII) otherwise.
func fastLen(n int) byte {
	if n >= 0x80 {
		return 0x80
	}
	return byte(n)
}

// appendFast appends s with its length as one byte (see fastLen).
func appendFast(dst []byte, s string) []byte {
	return append(append(dst, fastLen(len(s))), s...)
}

// isASCII reports whether b has no byte of 0x80 or above.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// appendCacheKeyOf writes a's key; exact checks each string's UTF-8, which
// only a key of ASCII strings may skip (see appendCacheKey).
func appendCacheKeyOf(dst []byte, a *Attributes, exact bool) []byte {
	if a.ResourceRequest {
		dst = append(dst, keyResource)
		dst = appendKeyString(exact, dst, a.Namespace)
		dst = appendKeyString(exact, dst, a.Verb)
		dst = appendKeyString(exact, dst, a.APIGroup)
		dst = appendKeyString(exact, dst, a.APIVersion)
		dst = appendKeyString(exact, dst, a.Resource)
		dst = appendKeyString(exact, dst, a.Subresource)
		dst = appendKeyString(exact, dst, a.Name)
		n := 0
		for _, r := range a.FieldSelector {
			if _, ok := fieldOperator(r.Operator); ok {
				n++
			}
		}
		dst = binary.AppendUvarint(dst, uint64(n))
		for _, r := range a.FieldSelector {
			if op, ok := fieldOperator(r.Operator); ok {
				dst = appendKeyString(exact, dst, r.Field)
				dst = append(dst, op[0]) // "In" or "NotIn"
				dst = appendKeyString(exact, dst, r.Value)
			}
		}
		n = 0
		for _, r := range a.LabelSelector {
			if _, ok := labelOperator(r.Operator); ok {
				n++
			}
		}
		dst = binary.AppendUvarint(dst, uint64(n))
		for _, r := range a.LabelSelector {
			if op, ok := labelOperator(r.Operator); ok {
				dst = appendKeyString(exact, dst, r.Key)
				dst = append(dst, op[0]) // In, NotIn, Exists, DoesNotExist
				dst = appendKeyList(exact, dst, r.Values)
			}
		}
	} else {
		dst = append(dst, keyNonResource)
		dst = appendKeyString(exact, dst, a.Path)
		dst = appendKeyString(exact, dst, a.Verb)
	}
	u := a.User
	if u == nil {
		return append(dst, 0, 0, 0, 0) // name, uid, groups, extra: all empty
	}
	dst = appendKeyString(exact, dst, u.Name)
	dst = appendKeyString(exact, dst, u.UID)
	dst = appendKeyList(exact, dst, u.Groups)
	dst = binary.AppendUvarint(dst, uint64(len(u.Extra)))
	if len(u.Extra) == 0 {
		return dst
	}
	if len(u.Extra) == 1 {
		for k, v := range u.Extra {
			return appendExtraEntry(exact, appendKeyString(exact, dst, k), v)
		}
	}
	// encoding/json writes map keys sorted by their bytes; sort the same way
	// so that two maps whose keys collapse to the same JSON string compare as
	// the JSON does. Small maps sort on the stack.
	var buf [8]string
	keys := buf[:0]
	for k := range u.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		dst = appendExtraEntry(exact, appendKeyString(exact, dst, k), u.Extra[k])
	}
	return dst
}

// appendExtraEntry appends an extra value, telling nil ("null" in JSON) from
// empty ("[]").
func appendExtraEntry(exact bool, dst []byte, v []string) []byte {
	if v == nil {
		return append(dst, keyNilList)
	}
	return appendKeyList(exact, append(dst, 0), v)
}

func appendKeyList(exact bool, dst []byte, list []string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(list)))
	for _, s := range list {
		dst = appendKeyString(exact, dst, s)
	}
	return dst
}

// appendKeyString appends s with its length; exact replaces invalid UTF-8
// bytes by 0xFF, otherwise s is written as it is.
func appendKeyString(exact bool, dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	if !exact || utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, 0xFF)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}
