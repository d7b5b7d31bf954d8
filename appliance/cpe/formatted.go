package cpe

import (
	"errors"
	"fmt"
)

// parseFormatted reads the 11 components following "cpe:2.3:".
func parseFormatted(body string) ([componentCount]string, error) {
	var c [componentCount]string
	raw, err := splitFormatted(body)
	if err != nil {
		return c, err
	}
	for i, value := range raw {
		if err := checkFormattedValue(value); err != nil {
			return c, fmt.Errorf("component %d: %w", i+3, err)
		}
		c[i] = Unescape(value)
	}
	return c, nil
}

// splitFormatted cuts body at unescaped colons into exactly componentCount values.
func splitFormatted(body string) ([componentCount]string, error) {
	var c [componentCount]string
	n, start := 0, 0
	for i := 0; i <= len(body); i++ {
		switch {
		case i < len(body) && body[i] == '\\':
			i++
		case i == len(body) || body[i] == ':':
			if n == componentCount {
				return c, errorf("more than %d fields", componentCount+2)
			}
			c[n], n, start = body[start:i], n+1, i+1
		}
	}
	if n != componentCount {
		return c, errorf("%d fields, want %d", n+2, componentCount+2)
	}
	return c, nil
}

// checkFormattedValue enforces the formatted-string alphabet on one still-escaped value.
// Punctuation that the binding wants quoted is tolerated unquoted ("notepad++"), except the
// wildcards '*' and '?', whose unquoted meaning is not supported.
func checkFormattedValue(value string) error {
	if value == "" {
		return errors.New("empty value")
	}
	if value == Any {
		return nil
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case !isPrintableASCII(c):
			return errorf("character %q is not printable ASCII", c)
		case c == '\\':
			if i++; i == len(value) || !isPrintableASCII(value[i]) {
				return errors.New("backslash quotes nothing printable")
			}
		case c == '*' || c == '?':
			return errorf("unsupported wildcard %q inside a value", c)
		}
	}
	return nil
}
