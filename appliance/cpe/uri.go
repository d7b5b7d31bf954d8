package cpe

import (
	"errors"
	"fmt"
	"strings"
)

const uriPrefix = "cpe:/"

// uriComponentCount is how many colon-separated components a CPE 2.2 URI may carry: part,
// vendor, product, version, update, edition, language — the first seven of a Name, in order.
const uriComponentCount = 7

const editionIndex = 5

// parseURI reads the components following "cpe:/"; missing trailing ones are Any.
func parseURI(body string) ([componentCount]string, error) {
	var c [componentCount]string
	for i := range c {
		c[i] = Any
	}
	for i := 0; body != "" || i == 0; i++ {
		if i == uriComponentCount {
			return c, errorf("more than %d URI components", uriComponentCount)
		}
		var raw string
		raw, body, _ = strings.Cut(body, ":")
		if err := setURIComponent(&c, i, raw); err != nil {
			return c, fmt.Errorf("component %d: %w", i+1, err)
		}
	}
	return c, nil
}

func setURIComponent(c *[componentCount]string, i int, raw string) error {
	if i == editionIndex && strings.HasPrefix(raw, "~") {
		return unpackEdition(c, raw)
	}
	value, err := decodeURIValue(raw)
	c[i] = value
	return err
}

// unpackEdition splits "~edition~sw_edition~target_sw~target_hw~other", the form in which a
// 2.2 URI carries the attributes that CPE 2.3 added.
func unpackEdition(c *[componentCount]string, raw string) error {
	packed := strings.Split(raw[1:], "~")
	if len(packed) != 5 {
		return errorf("packed edition %q has %d values, want 5", raw, len(packed))
	}
	targets := [5]int{editionIndex, 7, 8, 9, 10}
	for k, value := range packed {
		decoded, err := decodeURIValue(value)
		if err != nil {
			return err
		}
		c[targets[k]] = decoded
	}
	return nil
}

// decodeURIValue undoes percent-encoding; an empty value is Any, "-" is NA.
func decodeURIValue(raw string) (string, error) {
	if raw == "" {
		return Any, nil
	}
	if strings.IndexByte(raw, '%') < 0 {
		return raw, checkPrintable(raw)
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '%' {
			decoded, err := percentByte(raw[i+1:])
			if err != nil {
				return "", err
			}
			c, i = decoded, i+2
		}
		if !isPrintableASCII(c) {
			return "", errorf("character %q is not printable ASCII", c)
		}
		b.WriteByte(c)
	}
	return b.String(), nil
}

// percentByte decodes the two hex digits after a '%'. %01 and %02 are the URI binding's
// wildcards, which are not supported.
func percentByte(s string) (byte, error) {
	if len(s) < 2 || hexValue(s[0]) < 0 || hexValue(s[1]) < 0 {
		return 0, errors.New("'%' is not followed by two hex digits")
	}
	c := byte(hexValue(s[0])<<4 | hexValue(s[1]))
	if c == 1 || c == 2 {
		return 0, errors.New("unsupported wildcard in URI value")
	}
	return c, nil
}

func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func checkPrintable(s string) error {
	for i := 0; i < len(s); i++ {
		if !isPrintableASCII(s[i]) {
			return errorf("character %q is not printable ASCII", s[i])
		}
	}
	return nil
}
