// Copyright The otelcol-modelplane Authors
// SPDX-License-Identifier: Apache-2.0

// Package spelling finds the name a misspelt one was meant to be, for errors that name an
// unknown key or field and the one the user most likely meant.
package spelling // import "github.com/modelplaneai/otelcol-modelplane/internal/spelling"

import "iter"

// Nearest returns the candidate closest to name by edit distance, if it is close enough to
// be a misspelling (at most a third of the letters wrong); of equally close ones, the first
// in sort order. It returns "" when none is.
func Nearest(name string, candidates iter.Seq[string]) string {
	return NearestWithin(name, candidates, len(name)/3)
}

// NearestWithin is Nearest with at most maxEdits letters wrong: for names that share long
// prefixes, such as one engine's metrics, of which a third of the letters can differ between
// two metrics that are nothing alike.
func NearestWithin(name string, candidates iter.Seq[string], maxEdits int) string {
	best, bestDist := "", maxEdits+1
	for c := range candidates {
		if d := editDistance(name, c); d < bestDist || (d == bestDist && best != "" && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
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
