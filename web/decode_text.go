package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vulnkeeper/vulnkeeper/appliance"
	"github.com/vulnkeeper/vulnkeeper/appliance/jsonarray"
)

// checkText refuses a body with a string (member name or value) that is not valid UTF-8 or
// holds a NUL: encoding/json would silently turn the first into U+FFFD and keep the second,
// and neither belongs in a stored name. The cheap scan runs on every body; the walk that names
// the offending field only when the scan found something.
func checkText(body []byte) error {
	if utf8.Valid(body) && !hasSuspectEscape(body) {
		return nil
	}
	return locateBadText(body)
}

// hasSuspectEscape reports a \u0000 or a \uD800–\uDFFF escape (a surrogate, which is only valid
// as a pair; locateBadText tells the two apart).
func hasSuspectEscape(body []byte) bool {
	for i := bytes.Index(body, []byte(`\u`)); i >= 0 && i+6 <= len(body); {
		hex := strings.ToLower(string(body[i+2 : i+6]))
		if hex == "0000" || hex[0] == 'd' && hex[1] >= '8' {
			return true
		}
		next := bytes.Index(body[i+2:], []byte(`\u`))
		if next < 0 {
			break
		}
		i += 2 + next
	}
	return false
}

// textFrame is one open object or array of the walk.
type textFrame struct {
	object  bool
	key     string // object: the member being read
	haveKey bool   // object: key read, value pending
	index   int    // array: index of the element being read
}

// locateBadText walks body token by token, keeping the JSON path, and returns a
// ValidationError naming the first bad string; nil when it finds none (a syntax error is left
// to the decoder, which reports it with its offset).
func locateBadText(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []*textFrame
	prev := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		end := dec.InputOffset()
		raw := body[prev:end]
		prev = end
		var top *textFrame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				if top != nil && !top.object {
					top.index++
				}
				stack = append(stack, &textFrame{object: d == '{', index: -1})
				continue
			}
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].haveKey = false
			}
			continue
		}
		isKey := top != nil && top.object && !top.haveKey
		if top != nil && !top.object {
			top.index++
		}
		if s, ok := tok.(string); ok {
			if isKey {
				top.key = s
			}
			if constraint, why := badText(s, raw); constraint != "" {
				field := textPath(stack)
				return appliance.Invalid(field, constraint, "%s %s", field, why)
			}
		}
		if top != nil && top.object {
			top.haveKey = isKey
		}
	}
}

// badText says why s (decoded from raw) may not be stored.
func badText(s string, raw []byte) (constraint, why string) {
	if !utf8.Valid(raw) {
		return "utf8", "must be valid UTF-8"
	}
	if strings.ContainsRune(s, 0) {
		return "nul", "must not contain NUL characters"
	}
	if strings.ContainsRune(s, utf8.RuneError) && !bytes.Contains(raw, []byte("\uFFFD")) &&
		!bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
		return "utf8", "must be valid UTF-8 (an unpaired surrogate escape)"
	}
	return "", ""
}

// textPath spells the walk's position as hostname, products[3].vendor, …
func textPath(stack []*textFrame) string {
	var b strings.Builder
	for _, f := range stack {
		if f.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
			continue
		}
		b.WriteString("[" + strconv.Itoa(f.index) + "]")
	}
	if b.Len() == 0 {
		return "body"
	}
	return b.String()
}

// cappedArray decodes a JSON array of at most max elements and refuses a longer one before
// decoding anything, so a body of millions of tiny elements costs a scan of max elements, not
// millions of values. raw must stay unchanged while dst is used (json.Unmarshal hands
// UnmarshalJSON a piece of the body, and Span fields keep pieces of raw). The array is decoded
// in one call; only when that fails is it decoded again element by element, to name the
// element at fault. null leaves dst nil.
func cappedArray[T any](raw []byte, field string, max int, dst *[]T) error {
	if string(bytes.TrimSpace(raw)) == "null" {
		*dst = nil
		return nil
	}
	n, err := jsonarray.Count(raw, max+1)
	switch {
	case err != nil:
		return appliance.Invalid(field, "type", "%s must be an array", field)
	case n > max:
		return appliance.Invalid(field, "max_items", "at most %d items in %s", max, field)
	}
	out := make([]T, 0, n)
	if err := json.Unmarshal(raw, &out); err == nil {
		*dst = out
		return nil
	}
	return elementError[T](raw, field)
}

// elementError decodes raw element by element and reports the first that does not decode.
func elementError[T any](raw []byte, field string) error {
	i := 0
	err := jsonarray.Each(raw, func(span []byte) error {
		var v T
		if err := json.Unmarshal(span, &v); err != nil {
			return itemError(err, field, i)
		}
		i++
		return nil
	})
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return err
	}
	return appliance.Invalid(field, "type", "%s must be an array", field)
}

// itemError names the element (and its member, where the decoder knows it) of a decode error.
func itemError(err error, field string, i int) error {
	var ve *appliance.ValidationError
	if errors.As(err, &ve) {
		return err
	}
	at := field + "[" + strconv.Itoa(i) + "]"
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		at += "." + typ.Field
		return appliance.Invalid(at, "type", "%s must be %s, not %s", at, jsonTypeName(typ.Type.Kind().String()), typ.Value)
	}
	return appliance.Invalid(at, "json", "%s is malformed", at)
}
