package containers

import (
	"strings"
)

// The grammar follows the distribution reference rules that docker enforces: an optional
// registry host[:port], then lowercase path components separated by "/".

// checkName returns what is wrong with a repository name, or "" when it is valid.
func checkName(name string) string {
	if name == "" {
		return "repository name is empty"
	}
	if len(name) > maxNameLength {
		return "repository name is longer than 255 characters"
	}
	components := strings.Split(name, "/")
	if len(components) > 1 && looksLikeRegistry(components[0]) {
		if !validRegistry(components[0]) {
			return "invalid registry host or port"
		}
		components = components[1:]
	}
	for _, c := range components {
		if !validPathComponent(c) {
			return "invalid path component " + quoteClipped(c)
		}
	}
	return ""
}

// looksLikeRegistry applies docker's rule: the first component names a registry when it
// has a dot, a port, is localhost, or carries uppercase letters (paths may not).
func looksLikeRegistry(c string) bool {
	return strings.ContainsAny(c, ".:[") || c == "localhost" || strings.ToLower(c) != c
}

func validRegistry(host string) bool {
	host, port, hasPort := cutPort(host)
	if hasPort && !validPort(port) {
		return false
	}
	if strings.HasPrefix(host, "[") {
		return validBracketedIPv6(host)
	}
	for _, label := range strings.Split(host, ".") {
		if !validHostLabel(label) {
			return false
		}
	}
	return true
}

// cutPort splits "host:port" at the colon after any bracketed IPv6 address.
func cutPort(host string) (string, string, bool) {
	colon := strings.LastIndexByte(host, ':')
	if colon < 0 || colon < strings.LastIndexByte(host, ']') {
		return host, "", false
	}
	return host[:colon], host[colon+1:], true
}

func validPort(port string) bool {
	if port == "" || len(port) > 5 {
		return false
	}
	return strings.Trim(port, "0123456789") == ""
}

func validBracketedIPv6(host string) bool {
	inner, ok := strings.CutSuffix(strings.TrimPrefix(host, "["), "]")
	return ok && inner != "" && strings.Trim(strings.ToLower(inner), "0123456789abcdef:.") == ""
}

func validHostLabel(label string) bool {
	if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
		return false
	}
	for i := 0; i < len(label); i++ {
		if !isAlnum(label[i]) && label[i] != '-' {
			return false
		}
	}
	return true
}

// validPathComponent: runs of [a-z0-9] joined by ".", "_", "__" or any run of "-".
func validPathComponent(c string) bool {
	if c == "" || !isLowerAlnum(c[0]) || !isLowerAlnum(c[len(c)-1]) {
		return false
	}
	for i := 0; i < len(c); {
		if isLowerAlnum(c[i]) {
			i++
			continue
		}
		end := i
		for end < len(c) && !isLowerAlnum(c[end]) {
			end++
		}
		if !validSeparator(c[i:end]) {
			return false
		}
		i = end
	}
	return true
}

func validSeparator(sep string) bool {
	return sep == "." || sep == "_" || sep == "__" || strings.Trim(sep, "-") == ""
}

// checkTag returns what is wrong with a tag, or "" when it is valid or absent.
func checkTag(tag string) string {
	if tag == "" {
		return ""
	}
	if len(tag) > maxTagLength {
		return "tag is longer than 128 characters"
	}
	if tag[0] == '.' || tag[0] == '-' {
		return "tag must start with a letter, digit or underscore"
	}
	for i := 0; i < len(tag); i++ {
		if c := tag[i]; !isAlnum(c) && c != '_' && c != '.' && c != '-' {
			return "tag contains an invalid character " + quoteClipped(tag[i:i+1])
		}
	}
	return ""
}

func isLowerAlnum(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || c >= 'A' && c <= 'Z' }

func quoteClipped(s string) string { return "\"" + clip(s, 64) + "\"" }
