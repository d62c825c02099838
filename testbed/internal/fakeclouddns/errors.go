package fakeclouddns

import (
	"errors"
	"fmt"
	"net/http"
)

// Sentinel errors. The server's API errors match them with errors.Is
// according to their Google error reason.
var (
	// ErrNotFound reports a zone, change or record set that does not exist
	// (HTTP 404, reason notFound).
	ErrNotFound = errors.New("fakeclouddns: not found")

	// ErrAlreadyExists reports an addition whose name and type already
	// exist, or a zone whose name is taken (HTTP 409, reason alreadyExists).
	ErrAlreadyExists = errors.New("fakeclouddns: already exists")

	// ErrConditionNotMet reports a deletion that does not match the
	// existing record set exactly (HTTP 412, reason conditionNotMet).
	ErrConditionNotMet = errors.New("fakeclouddns: condition not met")

	// ErrInvalid reports a request the server refuses to process (HTTP 400).
	ErrInvalid = errors.New("fakeclouddns: invalid request")
)

// Google error reasons, as Cloud DNS puts them in error.errors[].reason.
const (
	reasonNotFound          = "notFound"
	reasonAlreadyExists     = "alreadyExists"
	reasonConditionNotMet   = "conditionNotMet"
	reasonInvalid           = "invalid"
	reasonRequired          = "required"
	reasonContainerNotEmpty = "containerNotEmpty"
	reasonBackendError      = "backendError"
	reasonRateLimitExceeded = "rateLimitExceeded"
)

// apiError is an error answer in Google's JSON error shape. It carries one
// error item, as Cloud DNS's answers do.
type apiError struct {
	code    int
	reason  string
	message string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("fakeclouddns: %d %s: %s (%s)", e.code, http.StatusText(e.code), e.message, e.reason)
}

// Is matches the package's sentinels by reason.
func (e *apiError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.reason == reasonNotFound
	case ErrAlreadyExists:
		return e.reason == reasonAlreadyExists
	case ErrConditionNotMet:
		return e.reason == reasonConditionNotMet
	case ErrInvalid:
		return e.code == http.StatusBadRequest
	}
	return false
}

func newAPIError(code int, reason, format string, args ...any) *apiError {
	return &apiError{code: code, reason: reason, message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *apiError {
	return newAPIError(http.StatusNotFound, reasonNotFound, format, args...)
}

func alreadyExists(format string, args ...any) *apiError {
	return newAPIError(http.StatusConflict, reasonAlreadyExists, format, args...)
}

func invalid(format string, args ...any) *apiError {
	return newAPIError(http.StatusBadRequest, reasonInvalid, format, args...)
}

// errorBody is Google's JSON error shape:
//
//	{"error":{"code":409,"message":"...","errors":[{"domain":"global","reason":"alreadyExists","message":"..."}]}}
//
// googleapi.CheckResponse decodes it into a *googleapi.Error whose Code,
// Message and Errors[].Reason the Terraform provider inspects.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Errors  []errorItem `json:"errors"`
}

type errorItem struct {
	Domain  string `json:"domain"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (e *apiError) body() errorBody {
	return errorBody{errorDetail{
		Code:    e.code,
		Message: e.message,
		Errors:  []errorItem{{Domain: "global", Reason: e.reason, Message: e.message}},
	}}
}
