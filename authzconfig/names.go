package authzconfig

// isDNS1123Subdomain reports whether name is a lowercase RFC 1123
// subdomain: at most 253 characters, dot-separated labels of lowercase
// letters, digits and '-', each starting and ending with a letter or digit.
// It gives the verdict of apimachinery's IsDNS1123Subdomain without its
// regular expression; that function is called only to word an error.
func isDNS1123Subdomain(name string) bool {
	if len(name) == 0 || len(name) > 253 {
		return false
	}
	labelStart := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			labelStart = false
		case c == '-':
			if labelStart {
				return false
			}
		case c == '.':
			if labelStart || name[i-1] == '-' {
				return false
			}
			labelStart = true
		default:
			return false
		}
	}
	return !labelStart && name[len(name)-1] != '-'
}
