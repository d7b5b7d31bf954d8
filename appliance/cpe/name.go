// Package cpe reads and writes CPE 2.3 names: the formatted string binding
// ("cpe:2.3:a:openssl:openssl:1.1.1k:*:*:*:*:*:*:*") and, for reading, the CPE 2.2 URI
// binding used by the CPE dictionary ("cpe:/a:openssl:openssl:1.1.1k").
//
// A Name holds component values unescaped ("notepad++", "node.js"); the logical values ANY and
// NA are kept literally as "*" and "-". Wildcards inside a value ("foo*") are not supported:
// nothing in the NVD data uses them and matching does not implement them, so Parse refuses them.
package cpe

import (
	"fmt"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// Logical component values.
const (
	Any = "*" // matches every value
	NA  = "-" // the attribute does not apply
)

// componentCount is the number of components after "cpe:2.3:".
const componentCount = 11

const formattedPrefix = "cpe:2.3:"

// Name is a CPE 2.3 well-formed name with unescaped component values.
type Name struct {
	Part, Vendor, Product, Version, Update, Edition, Language string
	SWEdition, TargetSW, TargetHW, Other                      string
}

// Format builds the formatted string of a name that fixes only part, vendor, product and
// version; empty arguments become Any.
func Format(part, vendor, product, version string) string {
	n := Name{Part: part, Vendor: vendor, Product: product, Version: version}
	return n.String()
}

// String returns the formatted string binding, escaping each value; empty values are Any.
// Parse reads it back to the same Name when every value is printable ASCII.
func (n Name) String() string {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(formattedPrefix[:len(formattedPrefix)-1])
	for _, value := range n.components() {
		b.WriteByte(':')
		switch value {
		case "", Any, NA:
			b.WriteString(orAny(value))
		default:
			writeEscaped(&b, value)
		}
	}
	return b.String()
}

func (n Name) components() [componentCount]string {
	return [componentCount]string{n.Part, n.Vendor, n.Product, n.Version, n.Update, n.Edition,
		n.Language, n.SWEdition, n.TargetSW, n.TargetHW, n.Other}
}

func nameOf(c [componentCount]string) Name {
	return Name{Part: c[0], Vendor: c[1], Product: c[2], Version: c[3], Update: c[4], Edition: c[5],
		Language: c[6], SWEdition: c[7], TargetSW: c[8], TargetHW: c[9], Other: c[10]}
}

func orAny(value string) string {
	if value == "" {
		return Any
	}
	return value
}

// Parse reads a CPE 2.3 formatted string or a CPE 2.2 URI. The prefix is matched without
// regard to case; values keep their case. Errors are *appliance.ValidationError.
func Parse(s string) (Name, error) {
	var (
		c   [componentCount]string
		err error
	)
	switch {
	case hasPrefixFold(s, formattedPrefix):
		c, err = parseFormatted(s[len(formattedPrefix):])
	case hasPrefixFold(s, uriPrefix):
		c, err = parseURI(s[len(uriPrefix):])
	default:
		return Name{}, invalid(s, "does not start with %q or %q", formattedPrefix, uriPrefix)
	}
	if err == nil {
		c[0], err = checkPart(c[0])
	}
	if err != nil {
		return Name{}, invalid(s, "%v", err)
	}
	return nameOf(c), nil
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

func checkPart(part string) (string, error) {
	switch p := strings.ToLower(part); p {
	case "a", "o", "h", Any:
		return p, nil
	}
	return "", errorf("part %q is not one of a, o, h", part)
}

// invalid builds the validation error every Parse failure returns, quoting a bounded input.
func invalid(s, format string, args ...any) error {
	const maxQuoted = 120
	if len(s) > maxQuoted {
		s = s[:maxQuoted] + "..."
	}
	return appliance.Invalid("cpe", "format", "%q is not a CPE name: "+format, append([]any{s}, args...)...)
}

// errorf describes what is wrong inside a name; Parse wraps it into the validation error.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
