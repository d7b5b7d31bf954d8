package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/vulnkeeper/vulnkeeper/appliance"
)

// errorBody is the common error body of the spec.
type errorBody struct {
	Error   string       `json:"error"`
	Message string       `json:"message"`
	Details errorDetails `json:"details"`
}

type errorDetails struct {
	Field      string `json:"field,omitempty"`
	Constraint string `json:"constraint,omitempty"`
}

// kindStatus maps the domain error kinds onto statuses, codes and a default message.
var kindStatus = []struct {
	kind    error
	status  int
	code    string
	message string
}{
	{appliance.ErrUnauthorized, http.StatusUnauthorized, "unauthorized", "authentication required"},
	{appliance.ErrForbidden, http.StatusForbidden, "forbidden", "insufficient permissions"},
	{appliance.ErrNotFound, http.StatusNotFound, "not_found", "resource does not exist"},
	{appliance.ErrConflict, http.StatusConflict, "conflict", "conflicting resource"},
}

// writeError is the one place that turns an error into a response. Validation and domain
// kinds become 4xx with a client-readable message; anything else is a logged 500 whose
// text never reaches the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var ve *appliance.ValidationError
	var rl *appliance.RateLimitedError
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &ve):
		writeErrorBody(w, http.StatusBadRequest, "validation_error", ve.Message, errorDetails{ve.Field, ve.Constraint})
		return
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(rl.RetryAfter)))
		writeErrorBody(w, http.StatusTooManyRequests, "rate_limited", "rate limit exceeded; retry later", errorDetails{})
		return
	case errors.As(err, &mbe):
		writeErrorBody(w, http.StatusRequestEntityTooLarge, "payload_too_large",
			"request body exceeds "+strconv.FormatInt(mbe.Limit, 10)+" bytes", errorDetails{Field: "body", Constraint: "max_bytes"})
		return
	case errors.Is(err, context.Canceled):
		return // the client went away; nobody reads an answer
	}
	for _, k := range kindStatus {
		if errors.Is(err, k.kind) {
			writeErrorBody(w, k.status, k.code, kindMessage(err, k.kind, k.message), errorDetails{})
			return
		}
	}
	s.log.ErrorContext(r.Context(), "request failed", slog.String("request_id", requestID(r)),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	writeErrorBody(w, http.StatusInternalServerError, "internal_error",
		"internal error (request "+requestID(r)+"); see the server log", errorDetails{})
}

// kindMessage keeps the domain's own wording ("not found: organization x ...") when the
// error starts with the kind, which only appliance-built errors do; wrapped internal
// context falls back to the generic message.
func kindMessage(err, kind error, fallback string) string {
	prefix := kind.Error() + ": "
	if msg, ok := strings.CutPrefix(err.Error(), prefix); ok && msg != "" {
		return msg
	}
	return fallback
}

func writeErrorBody(w http.ResponseWriter, status int, code, message string, d errorDetails) {
	writeJSON(w, status, errorBody{Error: code, Message: message, Details: d})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	if v == nil {
		return
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func retryAfterSeconds(d interface{ Seconds() float64 }) int {
	s := int(d.Seconds())
	if float64(s) < d.Seconds() {
		s++
	}
	return max(1, s)
}
