package appliance

import (
	"fmt"
	"slices"
	"strings"
)

// Host tag limits.
const (
	maxTag     = 64
	MaxTags    = 20 // per host
	tagSymbols = "abcdefghijklmnopqrstuvwxyz0123456789._-"
)

// NormalizeTag lowercases a host tag and checks it: 1–64 characters of [a-z0-9._-]. field
// names it in errors.
func NormalizeTag(s, field string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || len(t) > maxTag || strings.Trim(t, tagSymbols) != "" {
		return "", Invalid(field, "format", "a tag has 1 to %d characters among a-z, 0-9, '.', '_' and '-'", maxTag)
	}
	return t, nil
}

// NormalizeTags checks a host's tags: each as NormalizeTag, at most MaxTags; duplicates go,
// and the rest come back sorted.
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	for i, s := range tags {
		t, err := NormalizeTag(s, fmt.Sprintf("tags[%d]", i))
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if len(out) > MaxTags {
		return nil, Invalid("tags", "max_items", "a host has at most %d tags", MaxTags)
	}
	return out, nil
}
