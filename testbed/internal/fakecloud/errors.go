package fakecloud

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinel errors. Use errors.Is to test for them; the client and the store
// wrap them with context.
var (
	// ErrNotFound reports that an object does not exist (HTTP 404).
	ErrNotFound = errors.New("fakecloud: not found")

	// ErrConflict reports that a create or update would break a uniqueness
	// rule, such as a second record set with the same zone and name (HTTP
	// 409). The error text of a conflict always contains "already exists".
	ErrConflict = errors.New("fakecloud: already exists")

	// ErrInvalid reports a request the server refuses to process (HTTP 400).
	ErrInvalid = errors.New("fakecloud: invalid request")

	// ErrCorruptState reports a state file that cannot be decoded or breaks
	// an invariant. The store never overwrites such a file.
	ErrCorruptState = errors.New("fakecloud: corrupt state file")

	// ErrLocked reports that another process holds the state file's lock.
	ErrLocked = errors.New("fakecloud: state file is locked by another process")
)

// APIError is an error answer from the fake cloud's HTTP API. It matches
// ErrNotFound, ErrConflict and ErrInvalid with errors.Is according to its
// status code.
type APIError struct {
	// Method and Path identify the request, e.g. "POST" "/v1/recordsets".
	Method string
	Path   string
	// StatusCode is the HTTP status of the answer.
	StatusCode int
	// Message is the server's message, e.g.
	// `recordset "www" already exists in zone "example-com"`.
	Message string
}

// Error implements error.
func (e *APIError) Error() string {
	return fmt.Sprintf("fakecloud: %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, http.StatusText(e.StatusCode), e.Message)
}

// Is reports whether the status code corresponds to target.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.StatusCode == http.StatusNotFound
	case ErrConflict:
		return e.StatusCode == http.StatusConflict
	case ErrInvalid:
		return e.StatusCode == http.StatusBadRequest
	}
	return false
}

// errorBody is the JSON shape of every error answer:
// {"error":{"code":409,"message":"..."}}.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// statusError carries an HTTP status through the store to the handlers.
type statusError struct {
	code int
	msg  string
	base error
}

func (e *statusError) Error() string { return e.msg }
func (e *statusError) Unwrap() error { return e.base }

func notFound(format string, args ...any) error {
	return &statusError{code: http.StatusNotFound, msg: fmt.Sprintf(format, args...), base: ErrNotFound}
}

func conflict(format string, args ...any) error {
	return &statusError{code: http.StatusConflict, msg: fmt.Sprintf(format, args...), base: ErrConflict}
}

func invalid(format string, args ...any) error {
	return &statusError{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...), base: ErrInvalid}
}
