package policycheck

// nearest returns the candidate closest to s by edit distance, if one is
// close enough to be a likely typo (at most a third of s's length, and at
// least 1 edit allowed).
func nearest(s string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		d := editDistance(s, c)
		if bestD < 0 || d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	limit := max(len(s)/3, 2)
	return best, bestD >= 0 && bestD <= limit
}

// editDistance is the Levenshtein distance between a and b, bounded in
// cost by the inputs' lengths (resource names are short).
func editDistance(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return max(len(a), len(b))
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
