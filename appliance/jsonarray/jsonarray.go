// Package jsonarray reads large JSON arrays one element at a time without holding any element
// twice: a decoder that keeps nothing finds each element's bytes in the caller's buffer, and the
// caller decodes them from there. Agent bodies and scanner reports are read this way, so a cap
// on the number of elements is enforced while reading, not after a whole array was built.
package jsonarray

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrNotArray says the value given to Each is not a JSON array; ErrMalformed that it is not
// JSON at all.
var (
	ErrNotArray  = errors.New("not a JSON array")
	ErrMalformed = errors.New("malformed JSON")
)

// Each calls fn with the bytes of each element of the JSON array raw, as slices of raw (so raw
// must not change while they are used). An error from fn stops the walk and is returned as is.
// raw is validated first (a scan that allocates nothing), then split by a scanner that only
// tracks strings and nesting, so no element is ever copied.
func Each(raw []byte, fn func(element []byte) error) error {
	if !json.Valid(raw) {
		return ErrMalformed
	}
	i := skipSpace(raw, 0)
	if raw[i] != '[' {
		return ErrNotArray
	}
	i = skipSpace(raw, i+1)
	for raw[i] != ']' {
		end := skipValue(raw, i)
		if err := fn(raw[i:end]); err != nil {
			return err
		}
		i = skipSpace(raw, end)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return nil
}

// Count returns how many elements the JSON array raw has, counting no further than limit, so
// a huge array costs limit elements of scanning. raw is not validated (a malformed array
// gives some count, and the decoder that reads it afterwards refuses it); a value that does
// not start as an array is ErrNotArray.
func Count(raw []byte, limit int) (int, error) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return 0, ErrNotArray
	}
	n := 0
	for i = skipSpace(raw, i+1); i < len(raw) && raw[i] != ']' && n < limit; n++ {
		end := skipValue(raw, i)
		if end <= i { // not a value: malformed, left to the decoder
			return n + 1, nil
		}
		if i = skipSpace(raw, end); i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return n, nil
}

func skipSpace(raw []byte, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the valid JSON value starting at i.
func skipValue(raw []byte, i int) int {
	switch raw[i] {
	case '"':
		return skipString(raw, i)
	case '{', '[':
		depth := 0
		for ; i < len(raw); i++ {
			switch raw[i] {
			case '"':
				i = skipString(raw, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(raw) && !bytes.ContainsRune([]byte(",]} \t\r\n"), rune(raw[i])) {
		i++
	}
	return i
}

// skipString returns the index just past the string whose opening quote is at i.
func skipString(raw []byte, i int) int {
	for i++; i < len(raw) && raw[i] != '"'; i++ {
		if raw[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// Span keeps a JSON value as the bytes it was given, without the copy json.RawMessage makes.
// Use it only in values decoded by json.Unmarshal from a buffer that outlives them (never with
// a json.Decoder, whose buffer is reused).
type Span []byte

// UnmarshalJSON keeps b itself.
func (s *Span) UnmarshalJSON(b []byte) error {
	*s = b
	return nil
}

// MarshalJSON writes the value back as it was read (null when empty), like json.RawMessage.
func (s Span) MarshalJSON() ([]byte, error) {
	if len(s) == 0 {
		return []byte("null"), nil
	}
	return s, nil
}

// Present reports whether the value was in the document and not null.
func (s Span) Present() bool { return len(s) > 0 && !bytes.Equal(s, []byte("null")) }
