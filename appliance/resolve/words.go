package resolve

// Word lists used by Normalize. Each list is general knowledge about how installers and
// package managers decorate names, not knowledge of particular products.

// legalNoise are legal forms and organisation words in publisher names ("Google LLC",
// "Igor Pavlov", "The Git Development Community", "Wireshark Foundation").
var legalNoise = set("inc", "incorporated", "corporation", "corp", "ltd", "limited", "gmbh", "llc", "co",
	"s.a", "sa", "ag", "bv", "b.v", "s.r.o", "srl", "s.r.l", "pty", "plc", "oy", "ab", "kg", "kk", "the",
	"foundation", "team", "project", "community", "developers", "development", "group", "software",
	"technologies", "technology", "systems", "communications", "contributors", "authors", "org", "e.v")

// productNoise are words that describe a build or an installer, never a product.
var productNoise = set("release", "version", "build", "setup", "tm", "r", "v", "bit", "stable", "remove",
	"only", "edition")

// editionNoise are edition names and filler words, dropped only after the first product word
// ("PyCharm Community Edition", "Microsoft 365 Apps for enterprise").
var editionNoise = set("community", "professional", "enterprise", "standard", "ultimate", "express", "home",
	"personal", "plus", "for", "the", "and", "of", "a", "with")

// phraseNoise are two-word markers ("64 bit", "x86_64" split as "x86 64").
var phraseNoise = set("64 bit", "32 bit", "x86 64", "remove only", "for testing")

// archNoise are architecture and packaging markers.
var archNoise = set("x64", "x86", "x86-64", "x86_64", "amd64", "arm64", "aarch64", "i386", "i686", "ia32",
	"win64", "win32", "64-bit", "32-bit", "noarch", "universal", "mui", "(x64)", "64bit", "32bit")

// localePrefixes are ISO 639-1 languages that appear in installer locale markers (en-us).
var localePrefixes = set("en", "de", "fr", "es", "it", "pt", "nl", "ja", "zh", "ko", "ru", "pl", "sv",
	"da", "fi", "nb", "cs", "hu", "tr", "el", "he", "ar", "uk", "ro", "sk", "sl", "bg", "hr", "lt", "lv",
	"et", "th", "vi", "id", "ms")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
