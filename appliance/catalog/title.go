package catalog

import (
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance/cpe"
)

func normalizeSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// stripVersion removes a trailing " <version> <update>" or " <version>" that repeats the CPE
// name's own version, so the titles of a product's versions collapse to the product's name
// ("1024cms.org 1024 CMS 1.4.2 beta" → "1024cms.org 1024 CMS").
func stripVersion(title, version, update string) string {
	if !concrete(version) {
		return title
	}
	suffixes := []string{" " + version}
	if concrete(update) {
		suffixes = []string{" " + version + " " + update, " " + version}
	}
	for _, suffix := range suffixes {
		if rest, ok := cutSuffixFold(title, suffix); ok && rest != "" {
			return rest
		}
	}
	return title
}

func concrete(value string) bool {
	return value != "" && value != cpe.Any && value != cpe.NA
}

func cutSuffixFold(s, suffix string) (string, bool) {
	if len(s) < len(suffix) || !strings.EqualFold(s[len(s)-len(suffix):], suffix) {
		return s, false
	}
	return strings.TrimSpace(s[:len(s)-len(suffix)]), true
}

// isEnglish accepts "en" and its regional tags ("en-US").
func isEnglish(lang string) bool {
	lang = strings.ToLower(lang)
	return lang == "en" || strings.HasPrefix(lang, "en-") || strings.HasPrefix(lang, "en_")
}

// englishTitle picks the shortest English title of an entry; sources list one per language.
func englishTitle(titles []sourceTitle) string {
	best := ""
	for _, t := range titles {
		text := strings.TrimSpace(t.Text)
		if isEnglish(t.Lang) && text != "" && (best == "" || len(text) < len(best)) {
			best = text
		}
	}
	return best
}

// sourceTitle is a title as dictionaries carry it: text and language tag.
type sourceTitle struct {
	Text string `json:"title"`
	Lang string `json:"lang"`
}
