package web

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

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

// kindStatus maps the domain error kinds onto statuses, codes and the fixed message a bare
// kind (one without public text, such as a constraint the store translated) is answered with.
var kindStatus = []struct {
	kind    error
	status  int
	code    string
	message string
}{
	{appliance.ErrUnauthorized, http.StatusUnauthorized, "unauthorized", "authentication required"},
	{appliance.ErrForbidden, http.StatusForbidden, "forbidden", "insufficient permissions"},
	{appliance.ErrNotFound, http.StatusNotFound, "not_found", "resource does not exist"},
	{appliance.ErrConflict, http.StatusConflict, "conflict", "the request conflicts with the current state of a resource"},
}

// kindOf is the status, code and client-safe text of an error of a domain kind (ok false
// for any other error): the public text of an *appliance.Error, else the kind's fixed message.
func kindOf(err error) (status int, code, public string, ae *appliance.Error, ok bool) {
	kind := err
	if errors.As(err, &ae) {
		kind, public = ae.Kind, ae.Public
	}
	for _, k := range kindStatus {
		if errors.Is(kind, k.kind) {
			if public == "" {
				public = k.message
			}
			return k.status, k.code, public, ae, true
		}
	}
	return 0, "", "", nil, false
}

// writeError is the one place that turns an error into a response. Validation errors and
// domain kinds become 4xx; of a kind's error only the public text of an *appliance.Error
// reaches the client, a bare kind gets its fixed message. Anything else is a logged 500
// whose text never reaches the client.
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
	if status, code, public, ae, ok := kindOf(err); ok {
		s.logRefusal(r, err, ae)
		writeErrorBody(w, status, code, public, errorDetails{})
		return
	}
	s.log.ErrorContext(r.Context(), "request failed", slog.String("request_id", requestID(r)),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
	writeErrorBody(w, http.StatusInternalServerError, "internal_error",
		"internal error (request "+requestID(r)+"); see the server log", errorDetails{})
}

// logRefusal records a 4xx whose error says more than the client was told (a translated
// store error, a wrapped cause), so the log line with the request ID keeps the whole chain.
func (s *Server) logRefusal(r *http.Request, err error, ae *appliance.Error) {
	if ae == err && ae.Unwrap() == nil || isKind(err) {
		return
	}
	s.log.InfoContext(r.Context(), "request refused", slog.String("request_id", requestID(r)),
		slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Any("error", err))
}

func isKind(err error) bool {
	for _, k := range kindStatus {
		if err == k.kind {
			return true
		}
	}
	return false
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
