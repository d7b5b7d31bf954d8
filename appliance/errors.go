// Package appliance holds the domain of vulnkeeper: inventory reconciliation, resolution
// policy, matching, feeds, containers, remediation and licences. It speaks neither HTTP nor SQL;
// it declares the storage and index interfaces it needs.
package appliance

import (
	"errors"
	"fmt"
	"time"
)

// Domain error kinds. The store translates driver errors into these (keeping the driver
// error in the chain); web maps them to statuses. A bare kind carries no text a client may
// read: web answers it with a fixed message. Text meant for the client travels in an *Error.
var (
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("conflict")
	ErrForbidden    = errors.New("forbidden")
	ErrUnauthorized = errors.New("unauthorized")
)

// Error is a domain error of one Kind whose Public text is safe to show a client. The cause,
// if any, is for the log only: web never sends it on. errors.Is(err, Kind) holds, and the
// cause stays reachable with errors.Is and errors.As.
type Error struct {
	Kind   error  // one of ErrNotFound, ErrConflict, ErrForbidden, ErrUnauthorized
	Public string // what a client reads
	cause  error
}

func (e *Error) Error() string {
	msg := e.Kind.Error()
	if e.Public != "" {
		msg += ": " + e.Public
	}
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

// Unwrap returns the cause, so the driver error stays in the chain for the log.
func (e *Error) Unwrap() error { return e.cause }

// Is makes errors.Is(err, e.Kind) true.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Because returns a copy of e that keeps cause in the chain; the public text is unchanged.
func (e *Error) Because(cause error) *Error {
	c := *e
	c.cause = cause
	return &c
}

func newError(kind error, format string, args []any) *Error {
	return &Error{Kind: kind, Public: fmt.Sprintf(format, args...)}
}

// NotFound is an ErrNotFound whose formatted message a client may read.
func NotFound(format string, args ...any) *Error { return newError(ErrNotFound, format, args) }

// Conflict is an ErrConflict whose formatted message a client may read.
func Conflict(format string, args ...any) *Error { return newError(ErrConflict, format, args) }

// Forbidden is an ErrForbidden whose formatted message a client may read.
func Forbidden(format string, args ...any) *Error { return newError(ErrForbidden, format, args) }

// Unauthorized is an ErrUnauthorized whose formatted message a client may read.
func Unauthorized(format string, args ...any) *Error { return newError(ErrUnauthorized, format, args) }

// ValidationError names the input that was refused and the rule it broke.
type ValidationError struct {
	Field      string
	Constraint string
	Message    string
}

func (e *ValidationError) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Message)
}

// Invalid builds a ValidationError; message is what a client reads.
func Invalid(field, constraint, format string, args ...any) error {
	return &ValidationError{Field: field, Constraint: constraint, Message: fmt.Sprintf(format, args...)}
}

// RateLimitedError says a quota refused the request and when to retry.
type RateLimitedError struct {
	RetryAfter time.Duration
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limit exceeded, retry after %s", e.RetryAfter)
}
