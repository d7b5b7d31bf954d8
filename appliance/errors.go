// Package appliance holds the domain of vulnkeeper: inventory reconciliation, resolution
// policy, matching, feeds, containers, remediation and licences. It speaks neither HTTP nor SQL;
// it declares the storage and index interfaces it needs.
package appliance

import (
	"errors"
	"fmt"
	"time"
)

// Domain error kinds. The store translates driver errors into these; web maps them to statuses.
var (
	ErrNotFound     = errors.New("not found")
	ErrConflict     = errors.New("conflict")
	ErrForbidden    = errors.New("forbidden")
	ErrUnauthorized = errors.New("unauthorized")
)

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

// ConflictError carries a client-readable reason for an ErrConflict.
func Conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConflict, fmt.Sprintf(format, args...))
}
